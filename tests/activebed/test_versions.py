"""Versions of the nodes' software, asked through the node's real access on this machine.

Each probe runs the real program installed here (Linux, Open vSwitch,
Debian's DPDK, tcpreplay, the TRex install directory); a program that is
not running or not there gives no version, never an error.
"""

from __future__ import annotations

import dataclasses
import shutil
import subprocess
from pathlib import Path

import pytest

import ndrpdr
from ndrpdr.access.local import LocalTransport
from ndrpdr.activebed.testbed import ActiveTestbed
from ndrpdr.activebed.versions import node_version, node_versions
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.model import LocalAccess, Node

pytestmark = pytest.mark.real  # a real system part: tests/testkinds.py

SIM = Path(__file__).resolve().parents[2] / "topologies" / "sim.yaml"


def _node(kind: str, driver: str, **options: object) -> Node:
    return Node(
        key="DUT1" if kind == "DUT" else "TG",
        type=kind,  # type: ignore[arg-type]
        driver=driver,
        access=LocalAccess(),
        interfaces={},
        options=options,
    )


def _first_line(*argv: str) -> str:
    done = subprocess.run(argv, capture_output=True, text=True, check=True)
    return (done.stdout or done.stderr).splitlines()[0]


def test_the_simulator_is_ndrpdr_itself() -> None:
    with ActiveTestbed(load_topology(SIM)) as testbed:
        versions = node_versions(testbed)
    text = f"ndrpdr {ndrpdr.__version__} (simulator)"
    assert versions == {"TG": text, "DUT1": text}


def test_linux_is_the_kernel_release() -> None:
    access = LocalTransport("DUT1")
    assert node_version(_node("DUT", "linux"), access) == f"Linux {_first_line('uname', '-r')}"


@pytest.mark.skipif(shutil.which("ovs-vswitchd") is None, reason="Open vSwitch not installed")
def test_ovs_is_what_ovs_vswitchd_says() -> None:
    said = _first_line("ovs-vswitchd", "--version").split()[-1]
    assert node_version(_node("DUT", "ovs"), LocalTransport("DUT1")) == f"Open vSwitch {said}"


@pytest.mark.skipif(shutil.which("dpkg-query") is None, reason="not a Debian system")
def test_testpmd_and_l3fwd_are_the_dpdk_package() -> None:
    package = subprocess.run(
        ["dpkg-query", "-W", "-f", "${Version}", "dpdk"],
        capture_output=True,
        text=True,
        check=False,
    )
    if package.returncode != 0:
        pytest.skip("Debian's dpdk is not installed")
    for driver in ("testpmd", "l3fwd"):
        version = node_version(_node("DUT", driver), LocalTransport("DUT1"))
        assert version == f"DPDK {package.stdout.strip()}"


def test_a_dpdk_build_of_its_own_without_a_version_text_gives_none(tmp_path: Path) -> None:
    program = tmp_path / "dpdk-testpmd"
    program.write_bytes(b"\x7fELF not really DPDK")
    assert (
        node_version(_node("DUT", "testpmd", binary=str(program)), LocalTransport("DUT1")) is None
    )
    program.write_bytes(b"\x00\x01DPDK 23.11.2\x00rest")
    version = node_version(_node("DUT", "testpmd", binary=str(program)), LocalTransport("DUT1"))
    assert version == "DPDK 23.11.2"


@pytest.mark.skipif(shutil.which("tcpreplay") is None, reason="tcpreplay not installed")
def test_the_local_tg_is_tcpreplay() -> None:
    version = node_version(_node("TG", "local"), LocalTransport("TG"))
    assert version is not None and version.startswith("tcpreplay 4.")
    assert version.split()[1] in _first_line("tcpreplay", "--version")


def test_trex_is_its_install_directory() -> None:
    node = _node("TG", "trex", install_dir="/opt/trex/v3.08")
    assert node_version(node, LocalTransport("TG")) == "TRex v3.08"
    assert node_version(_node("TG", "trex"), LocalTransport("TG")) is None  # /opt/trex-core/scripts


def test_vpp_not_running_and_unknown_drivers_give_no_version(tmp_path: Path) -> None:
    node = _node("DUT", "vpp", cli_socket=str(tmp_path / "cli.sock"))
    assert node_version(node, LocalTransport("DUT1")) is None  # vppctl missing or VPP not up
    assert node_version(_node("DUT", "no-such-driver"), LocalTransport("DUT1")) is None
    assert (
        node_version(dataclasses.replace(_node("DUT", "linux"), type="TG"), LocalTransport("TG"))
        is None
    )
