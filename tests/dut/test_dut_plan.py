"""plan_duts / plan_dut: each DUT's forwarding plan on the path (ports, addresses, prefixes)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from ndrpdr.dut.base import DutError
from ndrpdr.dut.plan import plan_dut, plan_duts
from ndrpdr.profiles import DIRECTION_PREFIXES
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.model import Interface, Link, LinkEnd, LocalAccess, Node, Topology
from ndrpdr.topology.path import PathError, compute_path

TOPOLOGIES = Path(__file__).resolve().parents[2] / "topologies"
TWO_NODE = [
    "sim.yaml",
    *sorted(p.name for p in TOPOLOGIES.glob("local-*.yaml") if not p.name.endswith("-3n.yaml")),
]


def _topology(
    tg_ports: dict[str, str | None],
    duts: dict[str, dict[str, str]],
    *,
    source: str | None = "built.yaml",
) -> Topology:
    """TG ports {key: link}, DUT nodes {node: {port key: link}}; every port its own MAC."""
    index = iter(range(1, 100))

    def mac() -> str:
        return f"02:00:00:00:00:{next(index):02x}"

    tg = Node(
        "TG",
        "TG",
        "sim",
        LocalAccess(),
        {k: Interface(k, mac_address=mac(), link=link) for k, link in tg_ports.items()},
    )
    nodes = {"TG": tg}
    for key, ports in duts.items():
        nodes[key] = Node(
            key,
            "DUT",
            "sim",
            LocalAccess(),
            {
                p: Interface(p, name=f"{key.lower()}-{p}", mac_address=mac(), link=link)
                for p, link in ports.items()
            },
        )
    ends: dict[str, list[LinkEnd]] = {}
    for node in nodes.values():
        for iface in node.interfaces.values():
            if iface.link is not None:
                ends.setdefault(iface.link, []).append(LinkEnd(node.key, iface.key))
    links = {name: Link(name, (pair[0], pair[1])) for name, pair in ends.items() if len(pair) == 2}
    return Topology(nodes, links, source=None if source is None else Path(source))


@pytest.mark.parametrize("name", TWO_NODE)
def test_shipped_topologies(name: str) -> None:
    topology = load_topology(TOPOLOGIES / name)
    config = plan_dut(topology, "ip4base")
    tg, dut = topology.tg, topology.duts[0]
    assert config.mode == "ip4base"
    first, second = config.ports
    for port, tg_port, third in ((first, "port1", 10), (second, "port2", 20)):
        peer = topology.peer(dut.key, port.key)
        assert peer is not None
        assert (peer.node, peer.interface) == ("TG", tg_port)
        assert port.peer_mac == tg.interfaces[tg_port].mac_address
        assert port.mac == dut.interfaces[port.key].mac_address
        assert port.name == dut.interfaces[port.key].name
        assert port.ip4_address == f"192.168.{third}.1/24"
        assert port.peer_ip4 == f"192.168.{third}.2"
    assert (first.routed_prefix, second.routed_prefix) == DIRECTION_PREFIXES
    assert DIRECTION_PREFIXES == ("198.18.0.0/24", "198.18.1.0/24")


def test_local_linux_names() -> None:
    config = plan_dut(load_topology(TOPOLOGIES / "local-linux.yaml"), "l2xc")
    assert [p.name for p in config.ports] == ["dut-if1", "dut-if2"]
    assert config.ports[0].peer_mac == "02:00:00:00:01:01"
    assert config.mode == "l2xc"


def test_crossed_cabling_follows_the_tg_ports() -> None:
    # DUT port "b" faces TG port1, DUT port "a" faces TG port2.
    topology = _topology({"port1": "l1", "port2": "l2"}, {"DUT1": {"a": "l2", "b": "l1"}})
    first, second = plan_dut(topology, "ip4base").ports
    assert (first.key, second.key) == ("b", "a")
    assert first.ip4_address == "192.168.10.1/24"
    assert first.routed_prefix == DIRECTION_PREFIXES[0]
    assert second.routed_prefix == DIRECTION_PREFIXES[1]
    assert first.peer_mac == topology.tg.interfaces["port1"].mac_address


def test_tg_ports_in_natural_order() -> None:
    # port2 comes before port10 (not text order), whatever the file order.
    topology = _topology({"port10": "l10", "port2": "l2"}, {"DUT1": {"x": "l10", "y": "l2"}})
    first, second = plan_dut(topology, "ip4base").ports
    assert (first.key, second.key) == ("y", "x")


def test_unlinked_tg_port_is_skipped() -> None:
    topology = _topology(
        {"port1": None, "port2": "l2", "port3": "l3"}, {"DUT1": {"p1": "l2", "p2": "l3"}}
    )
    assert [p.key for p in plan_dut(topology, "ip4base").ports] == ["p1", "p2"]


def test_cores_and_frame_size_pass_through() -> None:
    topology = load_topology(TOPOLOGIES / "sim.yaml")
    config = plan_dut(topology, "ip4base", cores=3, max_frame_size_b=9018)
    assert (config.cores, config.max_frame_size_b) == (3, 9018)


def test_three_node_chain() -> None:
    topology = _topology(
        {"port1": "l1", "port2": "l3"},
        {"DUT1": {"port1": "l1", "port2": "l2"}, "DUT2": {"port1": "l2", "port2": "l3"}},
        source="three-node.yaml",
    )
    path = compute_path(topology)
    configs = plan_duts(topology, path, "ip4base", cores=2)
    assert list(configs) == ["DUT1", "DUT2"]
    dut1, dut2 = configs["DUT1"], configs["DUT2"]
    mac = {
        (n.key, i.key): i.mac_address
        for n in topology.nodes.values()
        for i in n.interfaces.values()
    }
    # DUT1: in from TG port1 (link 0), out to DUT2 (the DUT - DUT link 1).
    assert [p.key for p in dut1.ports] == ["port1", "port2"]
    assert dut1.ports[0].ip4_address == "192.168.10.1/24"
    assert dut1.ports[0].peer_ip4 == "192.168.10.2"
    assert dut1.ports[0].peer_mac == mac[("TG", "port1")]
    assert dut1.ports[1].ip4_address == "192.168.101.1/24"
    assert dut1.ports[1].peer_ip4 == "192.168.101.2"
    assert dut1.ports[1].peer_mac == mac[("DUT2", "port1")]
    # DUT2: in from DUT1, out to TG port2 (the last link, 192.168.20.0/24 as on 2-node).
    assert dut2.ports[0].ip4_address == "192.168.101.2/24"
    assert dut2.ports[0].peer_ip4 == "192.168.101.1"
    assert dut2.ports[0].peer_mac == mac[("DUT1", "port2")]
    assert dut2.ports[1].ip4_address == "192.168.20.1/24"
    assert dut2.ports[1].peer_mac == mac[("TG", "port2")]
    for config in (dut1, dut2):
        assert (config.ports[0].routed_prefix, config.ports[1].routed_prefix) == (
            DIRECTION_PREFIXES
        )
        assert config.cores == 2
    with pytest.raises(
        DutError, match="plan_dut is for a 2-node path; this one crosses DUT1, DUT2"
    ):
        plan_dut(topology, "ip4base")


def test_dut_to_dut_link_needs_the_next_dut_mac() -> None:
    topology = _topology(
        {"port1": "l1", "port2": "l3"},
        {"DUT1": {"port1": "l1", "port2": "l2"}, "DUT2": {"port1": "l2", "port2": "l3"}},
        source="three-node.yaml",
    )
    dut2 = topology.nodes["DUT2"]
    port1 = dataclasses.replace(dut2.interfaces["port1"], mac_address=None)
    dut2 = dataclasses.replace(dut2, interfaces={**dut2.interfaces, "port1": port1})
    topology = dataclasses.replace(topology, nodes={**topology.nodes, "DUT2": dut2})
    with pytest.raises(DutError) as raised:
        plan_duts(topology, compute_path(topology), "ip4base")
    assert str(raised.value) == (
        "three-node.yaml: nodes.DUT2.interfaces.port1.mac_address is needed "
        "(frames leaving DUT1 port2 are addressed to it)"
    )


def test_single_link_topology() -> None:
    topology = _topology({"port1": "l1"}, {"DUT1": {"port1": "l1"}}, source="one-link.yaml")
    with pytest.raises(PathError) as raised:
        plan_dut(topology, "ip4base")
    assert str(raised.value).startswith(
        "one-link.yaml: no TG - DUT1 - TG path: no free link from DUT1 to TG (links between "
        "them: l1; each step"
    )


def test_topology_without_source_is_still_named() -> None:
    topology = _topology({"port1": "l1"}, {"DUT1": {"port1": "l1"}}, source=None)
    with pytest.raises(PathError, match=r"^topology: no TG - DUT1 - TG path"):
        plan_dut(topology, "ip4base")


def test_tg_port_without_mac() -> None:
    topology = load_topology(TOPOLOGIES / "sim.yaml")
    tg = topology.tg
    port2 = dataclasses.replace(tg.interfaces["port2"], mac_address=None)
    tg = dataclasses.replace(tg, interfaces={**tg.interfaces, "port2": port2})
    topology = dataclasses.replace(topology, nodes={**topology.nodes, "TG": tg})
    with pytest.raises(DutError) as raised:
        plan_dut(topology, "ip4base")
    message = str(raised.value)
    assert message.startswith(f"{topology.source}: nodes.TG.interfaces.port2.mac_address")
    assert "DUT1 port2" in message
