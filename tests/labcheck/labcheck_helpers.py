"""A lab topology and a scripted node access for the ``ndrpdr check`` unit tests."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from ndrpdr.access.base import CommandError, CommandResult, NodeAccessError
from ndrpdr.labcheck import CheckSettings, Outcome, run_check
from ndrpdr.search.trial import TrialResult
from ndrpdr.topology.model import Node, Topology

LAB_YAML = """\
metadata: {version: 0.1}
nodes:
  TG:
    type: TG
    driver: trex
    access: {kind: ssh, host: 10.0.0.1, username: testuser, key_file: /keys/ndrpdr}
    options: {install_dir: /opt/trex/v3.08}
    interfaces:
      port1: {pci_address: "0000:17:00.0", mac_address: "b4:96:91:00:00:40", link: link1}
      port2: {pci_address: "0000:17:00.1", mac_address: "b4:96:91:00:00:41", link: link2}
  DUT1:
    type: DUT
    driver: vpp
    access: {kind: ssh, host: 10.0.0.2, username: testuser, key_file: /keys/ndrpdr}
    interfaces:
      port1: {pci_address: "0000:18:00.0", mac_address: "b4:96:91:00:00:50", link: link1}
      port2: {name: ens5, mac_address: "b4:96:91:00:00:51", link: link2}
      port3: {pci_address: "0000:99:00.0", mac_address: "b4:96:91:00:00:52"}
"""

TREX_HELP = "Starting  TRex v3.08 please wait  ... \n Usage: t-rex-64 [mode] <options>\n"
TREX_HELP_TAIL = " Version : {version}   \n DPDK version : DPDK 25.07.0   \n"
VPP_LINE = "vpp {version} built by root on vm at 2026-12-06T06:03:20\n"


def trex_help(version: str = "v3.08") -> str:
    """What ``_t-rex-64 --help`` prints, of ``version``."""
    return TREX_HELP + TREX_HELP_TAIL.format(version=version)


Reply = tuple[int, str, str]  # exit code, stdout, stderr


@dataclasses.dataclass
class ScriptedAccess:
    """A node access that answers commands from a script ({argv words: reply}); a command
    not in it succeeds with no output. ``down`` makes every command fail as an unreachable
    host does; ``calls`` records (argv, sudo)."""

    node: str
    script: dict[tuple[str, ...], Reply] = dataclasses.field(default_factory=dict)
    sudo_reply: Reply = (0, "", "")
    down: str | None = None
    calls: list[tuple[tuple[str, ...], bool]] = dataclasses.field(default_factory=list)
    closed: bool = False

    def run(self, argv: Sequence[str], **options: Any) -> CommandResult:
        """The scripted reply (CommandError for a failure when ``check``, as the real ones)."""
        words, sudo = tuple(argv), bool(options.get("sudo", False))
        self.calls.append((words, sudo))
        if self.down is not None:
            raise NodeAccessError(self.down)
        code, out, err = self.sudo_reply if sudo else self.script.get(words, (0, "", ""))
        result = CommandResult(self.node, words, code, out, err, 0.01)
        if code != 0 and options.get("check", True):
            raise CommandError(result)
        return result

    def start(self, argv: Sequence[str], **options: Any) -> Any:
        raise AssertionError("the check starts no process on a node")

    def put_file(self, data: bytes, path: str, **options: Any) -> None:
        raise AssertionError("the check writes no file on a node")

    def get_file(self, path: str, **options: Any) -> bytes:
        raise AssertionError("the check reads files with commands")

    def close(self) -> None:
        self.closed = True


def pci_port(
    address: str, netdev: str | None, mac: str, driver: str = "ice"
) -> dict[tuple[str, ...], Reply]:
    """The commands and replies of a PCI port that is there (its kernel interface ``netdev``
    with ``mac``, or none: bound to ``driver``)."""
    device = f"/sys/bus/pci/devices/{address}"
    script: dict[tuple[str, ...], Reply] = {
        ("readlink", "-e", device): (0, f"/sys/devices/pci0000:00/{address}\n", "")
    }
    if netdev is None:
        script[("ls", f"{device}/net")] = (2, "", f"ls: cannot access '{device}/net'\n")
        script[("readlink", f"{device}/driver")] = (0, f"../../../bus/pci/drivers/{driver}\n", "")
    else:
        script[("ls", f"{device}/net")] = (0, f"{netdev}\n", "")
        script[("cat", f"/sys/class/net/{netdev}/address")] = (0, f"{mac}\n", "")
    return script


def healthy_lab() -> dict[str, ScriptedAccess]:
    """The accesses of LAB_YAML's nodes as a healthy lab answers."""
    tg = ScriptedAccess("TG")
    tg.script[("env", "-C", "/opt/trex/v3.08", "./_t-rex-64", "--help")] = (0, trex_help(), "")
    tg.script.update(pci_port("0000:17:00.0", None, "", driver="vfio-pci"))
    tg.script.update(pci_port("0000:17:00.1", None, "", driver="vfio-pci"))
    dut = ScriptedAccess("DUT1")
    dut.script[("/usr/bin/vpp", "--version")] = (0, VPP_LINE.format(version="v26.06-release"), "")
    dut.script.update(pci_port("0000:18:00.0", "ens4", "b4:96:91:00:00:50"))
    dut.script[("ip", "-o", "link", "show", "dev", "ens5")] = (
        0,
        "3: ens5: <BROADCAST,MULTICAST,UP> mtu 1500 qdisc mq state UP mode DEFAULT\\    "
        "link/ether b4:96:91:00:00:51 brd ff:ff:ff:ff:ff:ff\n",
        "",
    )
    return {"TG": tg, "DUT1": dut}


class FakeTestbed:
    """Stands for the ActiveTestbed the trial sets up (``ndrpdr trial``'s own is tested
    elsewhere); counts its set-ups."""

    def __init__(self) -> None:
        self.entered = 0

    def __enter__(self) -> FakeTestbed:
        self.entered += 1
        return self

    def __exit__(self, *exc: object) -> None:
        pass


def good_trial(testbed: Any) -> tuple[str, TrialResult]:
    """A trial of 10 kpps for 1 s that lost nothing."""
    return "10 kpps for 1 s (ethip4-ip4base, 64 B)", TrialResult(1.0, 10_000, 10_000, 10_000)


def write_lab(tmp_path: Path, text: str = LAB_YAML) -> Path:
    """LAB_YAML (or ``text``) as a topology file."""
    path = tmp_path / "lab.yaml"
    path.write_text(text)
    return path


def check_lines(
    topology: Path,
    accesses: Mapping[str, ScriptedAccess],
    trial: Callable[[Any], tuple[str, TrialResult]] | None = good_trial,
) -> list[str]:
    """The lines ``ndrpdr check`` prints for ``topology`` with these node accesses."""

    def open_node(node: Node) -> ScriptedAccess:
        return accesses[node.key]

    def make_testbed(topology: Topology, nic: str | None) -> Any:
        return FakeTestbed()

    settings = CheckSettings(topology, trial=trial, open_node=open_node, make_testbed=make_testbed)
    outcomes: Iterator[Outcome] = run_check(settings)
    return [outcome.line for outcome in outcomes]
