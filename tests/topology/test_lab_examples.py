"""The lab topology examples (topologies/*.yaml.example): valid, usable by the suites, sound.

Each example validates (``python3 -m ndrpdr validate``), the suites pass a
Robot dry run with it as TOPOLOGY, its SSH access is new-style (key file,
password from the environment, no secret inline), its links form the
2-node or 3-node ring it describes, and the drivers take its options
without touching a node.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest
from robot.api import ExecutionResult

import robot_runner
from ndrpdr.access.base import BackgroundProcess, CommandResult
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


def test_every_example_validates_with_the_cli() -> None:
    done = robot_runner.run_python(["-m", "ndrpdr", "validate", *map(str, EXAMPLES)])
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count(": valid: ") == len(EXAMPLES), done.stdout


@pytest.mark.parametrize("path", EXAMPLES, ids=IDS)
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


@pytest.mark.parametrize("path", EXAMPLES, ids=IDS)
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
        topology = load_topology(TOPOLOGIES / name)
        assert [d.key for d in topology.duts] == ["DUT1"]
        assert _links(topology) == {
            frozenset({("TG", "port1"), ("DUT1", "port1")}),
            frozenset({("DUT1", "port2"), ("TG", "port2")}),
        }


def test_3n_links_run_tg_dut1_dut2_tg() -> None:
    topology = load_topology(TOPOLOGIES / "3n-trex-vpp.yaml.example")
    assert [(d.key, d.driver) for d in topology.duts] == [("DUT1", "vpp"), ("DUT2", "vpp")]
    assert _links(topology) == {
        frozenset({("TG", "port1"), ("DUT1", "port1")}),
        frozenset({("DUT1", "port2"), ("DUT2", "port1")}),
        frozenset({("DUT2", "port2"), ("TG", "port2")}),
    }


def test_testpmd_example_makes_a_pci_testpmd_without_touching_the_node() -> None:
    topology = load_topology(TOPOLOGIES / "2n-trex-testpmd.yaml.example")
    dut = topology.duts[0]
    driver = make_dut_driver(dut, NoIoAccess())
    assert isinstance(driver, TestpmdDriver)
    assert (driver.pmd, driver.bind_driver, driver.restore_driver) == ("pci", "vfio-pci", False)
    assert driver.uses_hugepages and not driver.uses_kernel_ports
    assert driver.hugepages * driver.hugepage_size_kb >= driver.memory_mb * 1024


def test_l3fwd_example_makes_a_pci_l3fwd_without_touching_the_node() -> None:
    topology = load_topology(TOPOLOGIES / "2n-trex-l3fwd.yaml.example")
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


@pytest.mark.parametrize("path", EXAMPLES, ids=IDS)
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
