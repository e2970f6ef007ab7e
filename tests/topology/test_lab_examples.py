"""The lab topology examples (topologies/*.yaml.example): placeholders, then valid, usable, sound.

A copy of an example (``csit-2n-example.yaml`` too) that was not filled in
fails ``ndrpdr validate``, which names each placeholder left; filled in
(``example_topologies.filled``: each ``<what, e.g. VALUE>`` replaced by its
VALUE) it validates, the suites pass a Robot dry run with it as TOPOLOGY,
its SSH access is new-style (key file, password from the environment, no
secret inline), its links form the 2-node or 3-node ring it describes, and
the drivers take its options without touching a node.
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest
import yaml
from robot.api import ExecutionResult

import robot_runner
from example_topologies import EXAMPLES as ALL_EXAMPLES
from example_topologies import PLACEHOLDER, fill, filled
from ndrpdr.access.base import BackgroundProcess, CommandResult
from ndrpdr.cli.main import main
from ndrpdr.dut.base import DutError
from ndrpdr.dut.dpdk.l3fwd import L3fwdDriver
from ndrpdr.dut.dpdk.testpmd import TestpmdDriver
from ndrpdr.dut.registry import make_dut_driver
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.model import SshAccess, Topology
from suite_sample import first_family_per_folder

ROOT = robot_runner.ROOT
TOPOLOGIES = ROOT / "topologies"
SUITES = ROOT / "suites"
EXAMPLES = sorted(TOPOLOGIES.glob("*.yaml.example"))
IDS = [p.name for p in EXAMPLES]
FILLED = [filled(p.name) for p in EXAMPLES]


class NoIoAccess:
    """A NodeAccess that fails on any use: building a driver must not touch the node."""

    node = "lab"

    def run(self, argv: Sequence[str], *, timeout_s: float = 60.0, sudo: bool = False,
            check: bool = True, stdin: str | bytes | None = None,
            env: Mapping[str, str] | None = None) -> CommandResult:  # fmt: skip
        raise AssertionError(f"ran {argv}")

    def start(self, argv: Sequence[str], *, sudo: bool = False,
              env: Mapping[str, str] | None = None) -> BackgroundProcess:  # fmt: skip
        raise AssertionError(f"started {argv}")

    def put_file(self, data: bytes, path: str, *, mode: int = 0o644, sudo: bool = False) -> None:
        raise AssertionError(f"wrote {path}")

    def get_file(self, path: str, *, sudo: bool = False) -> bytes:
        raise AssertionError(f"read {path}")

    def close(self) -> None:
        pass


def _links(topology: Topology) -> set[frozenset[tuple[str, str]]]:
    """Each link as the set of its two (node, interface) ends."""
    return {
        frozenset((end.node, end.interface) for end in link.ends)
        for link in topology.links.values()
    }


def test_the_lab_examples_exist() -> None:
    assert set(IDS) >= {
        "2n-trex-vpp.yaml.example",
        "3n-trex-vpp.yaml.example",
        "2n-trex-testpmd.yaml.example",
        "2n-trex-l3fwd.yaml.example",
    }


def _placeholders(text: str) -> list[str]:
    """The placeholders of an example's text, comments left out, in file order."""
    return [
        match[0] for line in text.splitlines() for match in PLACEHOLDER.finditer(line.split("#")[0])
    ]


@pytest.mark.parametrize("example", ALL_EXAMPLES, ids=lambda p: p.name)
def test_an_unedited_copy_fails_naming_every_placeholder(
    example: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / "lab.yaml"
    shutil.copy(example, copy)
    text = copy.read_text()
    wanted = _placeholders(text)
    assert len(wanted) >= 10  # hosts, logins, MAC and PCI addresses of every node
    assert main(["validate", str(copy)]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.splitlines()
    assert (
        lines[0] == f"{copy}: {len(wanted)} placeholders to replace with the testbed's own values:"
    )
    # then one line per placeholder: "  <copy>:<line>: <field>: '<placeholder>'"
    assert len(lines) == len(wanted) + 1
    fields = set()
    for line, placeholder in zip(lines[1:], wanted, strict=True):
        where, field, value = line.split(": ", 2)
        assert value == repr(placeholder)
        number = int(where.removeprefix(f"  {copy}:"))
        assert placeholder in text.splitlines()[number - 1]
        fields.add(field)
    topology = yaml.safe_load(fill(text))
    for key, node in topology["nodes"].items():
        host = f"nodes.{key}.access.host" if "access" in node else f"nodes.{key}.host"
        assert host in fields
        for port in node["interfaces"]:
            for address in ("mac_address", "pci_address"):
                assert f"nodes.{key}.interfaces.{port}.{address}" in fields


@pytest.mark.parametrize("example", ALL_EXAMPLES, ids=lambda p: p.name)
def test_filling_in_every_placeholder_makes_a_copy_valid(
    example: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / "lab.yaml"
    text = example.read_text()
    last = _placeholders(text)[-1]
    copy.write_text(fill(text.replace(last, "<the last one>")))
    assert main(["validate", str(copy)]) == 1
    _, err = capsys.readouterr()
    assert err.startswith(f"{copy}: 1 placeholder to replace with the testbed's own value:\n  ")
    assert err.rstrip().endswith(": '<the last one>'")
    copy.write_text(fill(text))
    assert main(["validate", str(copy)]) == 0
    out, err = capsys.readouterr()
    assert out.startswith(f"{copy}: valid: TG (trex), DUT1 (") and err == ""


def test_every_example_validates_with_the_cli_once_filled_in() -> None:
    done = robot_runner.run_python(["-m", "ndrpdr", "validate", *map(str, FILLED)])
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count(": valid: ") == len(EXAMPLES), done.stdout
    unfilled = robot_runner.run_python(["-m", "ndrpdr", "validate", *map(str, EXAMPLES)])
    assert unfilled.returncode == 1 and unfilled.stdout == ""
    assert unfilled.stderr.count(" placeholders to replace ") == len(EXAMPLES), unfilled.stderr


@pytest.mark.parametrize("path", FILLED, ids=IDS)
def test_example_loads_with_ssh_access_on_every_node(path: Path) -> None:
    assert (
        path.read_text().splitlines()[0] == "# yaml-language-server: $schema=topology.schema.json"
    )
    topology = load_topology(path)
    assert topology.tg.driver == "trex"
    for node in topology.nodes.values():
        access = node.access
        assert isinstance(access, SshAccess), node.key
        assert access.key_file and access.key_file.startswith("/"), node.key
        assert access.password_env == "LAB_SSH_PASSWORD", node.key
        assert access.password is None and access.priv_key is None, node.key
        assert access.username != "root", node.key
        assert all(i.pci_address and i.mac_address for i in node.interfaces.values()), node.key
    assert "password:" not in path.read_text()  # CSIT's inline password: not in new files


@pytest.mark.parametrize("path", FILLED, ids=IDS)
def test_suites_dry_run_with_example(path: Path, tmp_path: Path) -> None:
    """The 1-core rows of the smallest frame of one family per suites/ folder
    (``suite_sample``: each kind's suites) dry-run with the example."""
    chosen = [str(SUITES / s.path) for s in first_family_per_folder()]
    done = robot_runner.run_robot(
        ["--dryrun", "--outputdir", str(tmp_path), "--log", "NONE", "--report", "NONE",
         "--console", "dotted", "--variable", f"TOPOLOGY:{path}",
         "--include", "64B AND 1C", "--include", "78B AND 1C", *chosen]
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "[ ERROR ]" not in done.stderr and "[ WARN ]" not in done.stderr, done.stderr
    stats = ExecutionResult(str(tmp_path / "output.xml")).statistics.total
    assert stats.failed == 0 and stats.passed > 0


def test_2n_links() -> None:
    for name in (
        "2n-trex-vpp.yaml.example",
        "2n-trex-testpmd.yaml.example",
        "2n-trex-l3fwd.yaml.example",
    ):
        topology = load_topology(filled(name))
        assert [d.key for d in topology.duts] == ["DUT1"]
        assert _links(topology) == {
            frozenset({("TG", "port1"), ("DUT1", "port1")}),
            frozenset({("DUT1", "port2"), ("TG", "port2")}),
        }


def test_3n_links_run_tg_dut1_dut2_tg() -> None:
    topology = load_topology(filled("3n-trex-vpp.yaml.example"))
    assert [(d.key, d.driver) for d in topology.duts] == [("DUT1", "vpp"), ("DUT2", "vpp")]
    assert _links(topology) == {
        frozenset({("TG", "port1"), ("DUT1", "port1")}),
        frozenset({("DUT1", "port2"), ("DUT2", "port1")}),
        frozenset({("DUT2", "port2"), ("TG", "port2")}),
    }


def test_testpmd_example_makes_a_pci_testpmd_without_touching_the_node() -> None:
    topology = load_topology(filled("2n-trex-testpmd.yaml.example"))
    dut = topology.duts[0]
    driver = make_dut_driver(dut, NoIoAccess())
    assert isinstance(driver, TestpmdDriver)
    assert (driver.pmd, driver.bind_driver, driver.restore_driver) == ("pci", "vfio-pci", False)
    assert driver.uses_hugepages and not driver.uses_kernel_ports
    assert driver.hugepages * driver.hugepage_size_kb >= driver.memory_mb * 1024


def test_l3fwd_example_makes_a_pci_l3fwd_without_touching_the_node() -> None:
    topology = load_topology(filled("2n-trex-l3fwd.yaml.example"))
    dut = topology.duts[0]
    driver = make_dut_driver(dut, NoIoAccess())
    assert isinstance(driver, L3fwdDriver)
    assert (driver.pmd, driver.bind_driver, driver.restore_driver) == ("pci", "vfio-pci", False)
    assert driver.uses_hugepages and not driver.uses_kernel_ports
    assert driver.hugepages * driver.hugepage_size_kb >= driver.memory_mb * 1024
    assert driver.binary == dut.options["binary"]  # prebuilt: nothing is built on the node
    # l3fwd's built-in routes follow the DPDK port ids, i.e. the PCI bus order.
    addresses = [dut.interfaces[key].pci_address or "" for key in ("port1", "port2")]
    assert addresses == sorted(addresses)


@pytest.mark.parametrize("path", FILLED, ids=IDS)
def test_drivers_take_the_example_options(path: Path) -> None:
    topology = load_topology(path)
    for dut in topology.duts:
        try:
            make_dut_driver(dut, NoIoAccess())
        except DutError as exc:
            if "later release" in str(exc):
                pytest.skip(f"no {dut.driver} driver yet: {exc}")
            raise
    options = pytest.importorskip("ndrpdr.trafficgen.trex.options")
    parsed = options.parse_options(topology)
    assert parsed.client_path is not None


def test_the_manual_shows_the_message_validate_prints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/topologies.rst shows what validate prints for a copy of 2n-trex-vpp.yaml.example."""
    manual = (ROOT / "docs" / "topologies.rst").read_text()
    shown = [line[4:] for line in manual.splitlines() if line.startswith("    lab/dut1.yaml")]
    shown += [line[4:] for line in manual.splitlines() if line.startswith("      lab/dut1.yaml:")]
    assert len(shown) >= 3, "docs/topologies.rst no longer shows the placeholder message"
    (tmp_path / "lab").mkdir()
    shutil.copy(TOPOLOGIES / "2n-trex-vpp.yaml.example", tmp_path / "lab" / "dut1.yaml")
    monkeypatch.chdir(tmp_path)
    assert main(["validate", "lab/dut1.yaml"]) == 1
    printed = capsys.readouterr().err.splitlines()
    assert [line for line in shown if line not in printed] == []
