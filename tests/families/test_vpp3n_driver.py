"""What the vpp driver does with a 3-node family's set-up, against a recording stand-in access.

The lab path (systemd VPP on topologies/csit-2n-example.yaml's DUT): a
family with more than ``EXEC_THRESHOLD`` commands goes to VPP as one
script (written next to startup.conf, run by ``vppctl exec``), an error
line of the script fails the set-up quoting VPP, the family's
startup.conf section is appended, the set-up time is in the telemetry.
What runs for real (af_packet VPPs, the second VPP) is in
``test_vpp3n_real.py`` and ``test_memif_real.py``.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from example_topologies import filled
from ndrpdr.access.base import CommandResult, NodeAccessError
from ndrpdr.dut.base import DutError, DutTestConfig
from ndrpdr.dut.plan import plan_dut
from ndrpdr.dut.vpp.driver import VppDriver
from ndrpdr.dut.vpp.family import EXEC_THRESHOLD
from ndrpdr.families import get_family
from ndrpdr.topology.loader import load_topology

ROOT = Path(__file__).resolve().parents[2]
SOCKET = "/run/vpp/cli.sock"
SCRIPT = "/etc/vpp/ndrpdr-DUT1-setup.vpp"


class Access:
    """Answers every command with exit 0; ``answers`` gives stdout for an exact argv."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, ...]] = []
        self.files: dict[str, bytes] = {}
        self.answers: dict[tuple[str, ...], str] = {
            ("vppctl", "-s", SOCKET, "show", "version"): "vpp v26.06-release\n"
        }

    node = "DUT1"

    def run(self, argv: Sequence[str], **_: object) -> CommandResult:
        key = tuple(argv)
        self.calls.append(key)
        return CommandResult("DUT1", key, 0, self.answers.get(key, ""), "", 0.01)

    def put_file(self, data: bytes, path: str, *, mode: int = 0o644, sudo: bool = False) -> None:
        self.calls.append(("<put_file>", path))
        self.files[path] = data

    def start(self, argv: Sequence[str], **_: object) -> None:
        raise AssertionError("a systemd VPP is not started by the driver")

    def get_file(self, path: str, *, sudo: bool = False) -> bytes:
        """The node's memory and SMT are unknown here (startup.conf keeps CSIT's sizes)."""
        if path not in ("/proc/meminfo", "/sys/devices/system/cpu/smt/active"):
            raise AssertionError(f"{path} not read")
        raise NodeAccessError(f"DUT1: cannot read {path}")

    def close(self) -> None:
        pass

    def env(self) -> Mapping[str, str]:
        return {}


def config(family: str) -> DutTestConfig:
    topology = load_topology(filled("csit-2n-example.yaml"))
    planned = plan_dut(topology, "ip4base")
    return dataclasses.replace(planned, family=get_family(family).setup, position=0, chain=2)


def driver(access: Access) -> VppDriver:
    topology = load_topology(filled("csit-2n-example.yaml"))
    node = dataclasses.replace(topology.duts[0], options={})
    return VppDriver(node, access, sleep=lambda _: None)  # type: ignore[arg-type]


def test_many_commands_go_to_vpp_as_one_exec_script() -> None:
    access = Access()
    family = "ethip4ipsec40tnlsw-ip4base-int-aes256gcm"
    cfg = config(family)
    vpp = driver(access)
    vpp.configure(cfg)
    vpp.start()
    vpp.health_check()
    commands = get_family(family).setup.vpp.commands(cfg, ("port1", "port2"))  # type: ignore[union-attr]
    assert len(commands) > EXEC_THRESHOLD
    script = access.files[SCRIPT].decode().splitlines()
    assert script[: len(commands)] == commands  # then the RX queues' placement on the workers
    assert all(line.startswith("set interface rx-placement ") for line in script[len(commands) :])
    vppctl = [call for call in access.calls if call[0] == "vppctl"]
    assert ("vppctl", "-s", SOCKET, "exec", SCRIPT) in vppctl
    assert not [c for c in vppctl if c[3:5] == ("ipsec", "sa")]  # none one by one
    assert re.fullmatch(r"\d+ vppctl commands in \d+\.\d{3} s", vpp.telemetry()["setup_time"])


def test_few_commands_go_one_vppctl_call_each() -> None:
    access = Access()
    vpp = driver(access)
    vpp.configure(config("ethip6ip6-ip6base-srv6enc1sid"))
    vpp.start()
    vpp.health_check()
    assert SCRIPT not in access.files
    assert ("vppctl", "-s", SOCKET, "set", "sr", "encaps", "source", "addr", "2002:1::") in (
        access.calls
    )


def test_a_failed_script_line_fails_the_set_up_quoting_vpp() -> None:
    access = Access()
    access.answers[("vppctl", "-s", SOCKET, "exec", SCRIPT)] = (
        "loop0\nipip0\nexec: CLI line error: unknown interface `port9 up'\n"
    )
    vpp = driver(access)
    vpp.configure(config("ethip4ipsec40tnlsw-ip4base-int-aes256gcm"))
    vpp.start()
    with pytest.raises(DutError, match=r"VPP says: exec: CLI line error: unknown interface"):
        vpp.health_check()


def test_the_family_startup_section_is_appended_to_startup_conf() -> None:
    access = Access()
    vpp = driver(access)
    vpp.configure(config("ethip4ipsec10000tnlsw-ip4base-policy-flow-cache-aes256gcm"))
    written = access.files["/etc/vpp/startup.conf"].decode()
    assert written.rstrip().endswith("ipv4-inbound-spd-flow-cache on\n}")
    # its 10000 tunnels' 1 GiB heap and 256 MiB statseg: CSIT's sizes already hold them (the
    # main heap twice CSIT's 3 GiB, its heap_size_mult for a 10000-tunnel policy suite)
    assert "main-heap-size 1024M" not in written and "main-heap-size 6G" in written
    assert "statseg { size" not in written and "  size 3G" in written
    vpp.configure(config("ethip4ipsec4tnlsw-ip4base-int-aes256gcm"))
    assert "flow-cache" not in access.files["/etc/vpp/startup.conf"].decode()
