"""csit_tags: CSIT's tags from a topology and its traffic path."""

from __future__ import annotations

from pathlib import Path

from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.path import compute_path
from NdrPdrLibrary.keywords.testbed import csit_tags

ROOT = Path(__file__).resolve().parents[2]


def _tags(path: Path, nic: str | None = None) -> list[str]:
    topology = load_topology(path)
    return csit_tags(topology, compute_path(topology, nic))


def test_sim_and_local_tags() -> None:
    assert _tags(ROOT / "topologies/sim.yaml") == [
        "2_NODE_SINGLE_LINK_TOPO", "DRV_SIM", "DUT_SIM", "TG_SIM",
    ]  # fmt: skip
    assert _tags(ROOT / "topologies/local-testpmd-afxdp.yaml") == [
        "2_NODE_SINGLE_LINK_TOPO", "DRV_AF_XDP", "DUT_TESTPMD", "TG_LOCAL",
    ]  # fmt: skip


def test_labbox_three_node_tags() -> None:
    assert _tags(ROOT / "topologies/labbox-3n.yaml") == [
        "3_NODE_SINGLE_LINK_TOPO", "DRV_KERNEL", "DUT_LINUX", "NIC_veth", "TG_TREX",
    ]  # fmt: skip


def test_csit_lab_tags_follow_the_nic() -> None:
    csit = ROOT / "tests/topology/csit/lf_2n_icx_testbed212.yaml"
    assert _tags(csit) == [
        "2_NODE_SINGLE_LINK_TOPO", "DRV_VFIO_PCI", "DUT_VPP", "NIC_Intel-E810CQ", "TG_TREX",
    ]  # fmt: skip
    assert "NIC_Mellanox-CX7VEAT" in _tags(csit, "Mellanox-CX7VEAT")
