"""compute_path on CSIT's own lab files and small built topologies: the chain, NICs, errors."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ndrpdr.topology.errors import TopologyError
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.model import LinkEnd, Topology
from ndrpdr.topology.path import PathError, PathLink, TrafficPath, compute_path, nic_models

CSIT = Path(__file__).parent / "csit"
LF_FILES = sorted(CSIT.glob("lf_*.yaml"))


def _load(name: str) -> Topology:
    return load_topology(CSIT / name)


def _render(template: Path, target: Path) -> Path:
    """A CSIT cloud template with its Jinja fields filled as terraform would."""
    values = {
        "tg_public_ip": "192.0.2.10",
        "dut1_public_ip": "192.0.2.11",
        "tg_if1_mac": "0a:00:00:00:01:01",
        "tg_if2_mac": "0a:00:00:00:01:02",
        "dut1_if1_mac": "0a:00:00:00:02:01",
        "dut1_if2_mac": "0a:00:00:00:02:02",
    }
    text = re.sub(r"\{\{\s*(\w+)[^}]*\}\}", lambda m: values[m.group(1)], template.read_text())
    target.write_text(text)
    return target


@pytest.mark.parametrize("path", LF_FILES, ids=[p.name for p in LF_FILES])
def test_every_kept_lf_file_gives_a_whole_path(path: Path) -> None:
    topology = load_topology(path)
    chain = compute_path(topology)
    duts = [d.key for d in topology.duts]
    assert list(chain.duts) == duts
    assert chain.node_count == len(duts) + 1
    assert chain.links[0].tx.node == chain.links[-1].rx.node == "TG"
    assert len({link.name for link in chain.links}) == len(chain.links)
    for link in chain.links:  # the DUT ends all have the NIC the path was chosen by
        for end in (link.tx, link.rx):
            if end.node != "TG":
                assert topology.nodes[end.node].interfaces[end.interface].model == chain.nic


def test_two_node_icx_takes_the_first_nic_and_keeps_the_tg_loop() -> None:
    topology = _load("lf_2n_icx_testbed212.yaml")
    loop = topology.links["link11"]
    assert loop.is_loop and loop.ends == (LinkEnd("TG", "port11"), LinkEnd("TG", "port12"))
    assert nic_models(topology) == (
        "Intel-E810CQ",
        "Intel-E810XXV",
        "Intel-XXV710",
        "Mellanox-CX7VEAT",
    )
    chain = compute_path(topology)
    assert chain == TrafficPath(
        (
            PathLink("link1", LinkEnd("TG", "port1"), LinkEnd("DUT1", "port1")),
            PathLink("link2", LinkEnd("DUT1", "port2"), LinkEnd("TG", "port2")),
        ),
        "Intel-E810CQ",
    )
    assert chain.topology_tag == "2_NODE_SINGLE_LINK_TOPO"
    assert "link11" not in {link.name for link in chain.links}


@pytest.mark.parametrize(
    ("nic", "tg_ports", "dut_ports"),
    [
        ("Intel-E810XXV", ("port3", "port4"), ("port3", "port4")),
        ("Intel-XXV710", ("port7", "port8"), ("port7", "port8")),
        ("Mellanox-CX7VEAT", ("port9", "port10"), ("port9", "port10")),
    ],
)
def test_nic_chooses_the_ports(
    nic: str, tg_ports: tuple[str, str], dut_ports: tuple[str, str]
) -> None:
    chain = compute_path(_load("lf_2n_icx_testbed212.yaml"), nic)
    assert (chain.nic, chain.tg_ports, chain.dut_ports("DUT1")) == (nic, tg_ports, dut_ports)


def test_unknown_nic_is_an_error_naming_the_models_there_are() -> None:
    with pytest.raises(PathError) as raised:
        compute_path(_load("lf_2n_icx_testbed212.yaml"), "Intel-X710")
    message = str(raised.value)
    assert message.startswith(f"{CSIT / 'lf_2n_icx_testbed212.yaml'}: no TG - DUT1 - TG path")
    assert "with NIC 'Intel-X710' (no TG -> DUT1 link with it)" in message
    assert message.endswith(
        "NIC models of DUT1 ports linked to TG: Intel-E810CQ, Intel-E810XXV, Intel-XXV710, "
        "Mellanox-CX7VEAT"
    )


def test_three_node_chain_on_csit_spr() -> None:
    topology = _load("lf_3na_spr_testbed21.yaml")
    chain = compute_path(topology)
    assert chain.duts == ("DUT1", "DUT2") and chain.nic == "Mellanox-CX7VEAT"
    assert [link.name for link in chain.links] == ["link3", "link59", "link7"]
    assert chain.tg_ports == ("port1", "port5")
    assert chain.dut_ports("DUT1") == ("port1", "port2")
    assert chain.dut_ports("DUT2") == ("port2", "port1")
    assert chain.topology_tag == "3_NODE_SINGLE_LINK_TOPO"
    lines = chain.describe(topology)
    assert lines[1] == (
        "DUT1 port2 (0000:2a:00.1, Mellanox-CX7VEAT) --link59--> "
        "DUT2 port2 (0000:ab:00.1, Mellanox-CX7VEAT)"
    )
    with pytest.raises(KeyError):
        chain.dut_ports("TG")


def test_rendered_cloud_template_loads_with_a_path(tmp_path: Path) -> None:
    topology = load_topology(_render(CSIT / "2n_c5n.template", tmp_path / "2n_c5n.yaml"))
    chain = compute_path(topology)
    assert (topology.tg.driver, topology.duts[0].driver) == ("trex", "vpp")
    assert chain.nic == "Amazon-Nitro-50G" and chain.tg_ports == ("port1", "port2")


def test_a_dut_may_not_be_cabled_to_itself(tmp_path: Path) -> None:
    path = tmp_path / "self.yaml"
    path.write_text(
        "nodes:\n"
        "  TG: {type: TG, driver: sim, interfaces: {p1: {link: l1}, p2: {link: l2}}}\n"
        "  DUT1:\n"
        "    type: DUT\n"
        "    driver: sim\n"
        "    interfaces: {p1: {link: l1}, p2: {link: l2}, p3: {link: x}, p4: {link: x}}\n"
    )
    with pytest.raises(TopologyError) as raised:
        load_topology(path)
    assert str(raised.value) == (
        f"{path}:6: nodes.DUT1.interfaces.p4.link: link 'x' joins two interfaces of the same "
        "node (nodes.DUT1.interfaces.p3 and nodes.DUT1.interfaces.p4); only the TG may have two "
        "ports cabled to each other"
    )
