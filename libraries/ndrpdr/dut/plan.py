"""The forwarding plan of a test: each DUT's two ports on the traffic path, and addresses.

Direction 0 crosses the path's links in order (TG port A -> DUT1 ->
[DUT2 ->] TG port B), direction 1 the reverse. Each DUT gets its port where
direction 0 enters as ``ports[0]`` and the port where it leaves as
``ports[1]``. Addresses, one /24 per link of the path:

* the link from the TG (first) is 192.168.10.0/24, the link back to the TG
  (last) 192.168.20.0/24, as on a 2-node testbed; a DUT - DUT link *k*
  (k = 1, 2, ... in path order) is 192.168.(100 + k).0/24;
* on a TG link the DUT side is .1 and the TG side .2; on a DUT - DUT link
  the upstream DUT (nearer TG port A) is .1, the downstream one .2.

Routes: traffic to ``DIRECTION_PREFIXES[0]`` (direction 1's destination)
leaves every DUT through ``ports[0]`` towards the previous hop, traffic to
``DIRECTION_PREFIXES[1]`` through ``ports[1]`` towards the next hop; the
next hop's MAC (the ``mac_address`` of the interface at the other end of
the link) is each port's ``peer_mac``.
"""

from __future__ import annotations

from ndrpdr.dut.base import DutError, DutPort, DutTestConfig, FamilySetup, ForwardingMode
from ndrpdr.profiles.addressing import DIRECTION_PREFIXES, DIRECTION_PREFIXES6
from ndrpdr.topology.model import LinkEnd, Topology
from ndrpdr.topology.path import TrafficPath, compute_path


def link_subnet6(index: int, count: int) -> str:
    """The IPv6 /64 of link ``index`` as a prefix ending in "::" (mirrors ``link_subnet``)."""
    if index == 0:
        return "2001:db8:10::"
    if index == count - 1:
        return "2001:db8:20::"
    return f"2001:db8:{100 + index}::"


def link_subnet(index: int, count: int) -> str:
    """The /24 of link ``index`` (0-based, path order) of a path of ``count`` links."""
    if index == 0:
        return "192.168.10"
    if index == count - 1:
        return "192.168.20"
    return f"192.168.{100 + index}"


def _mac(topology: Topology, end: LinkEnd, needed_by: str) -> str:
    mac = topology.nodes[end.node].interfaces[end.interface].mac_address
    if mac is None:
        source = topology.source or "topology"
        raise DutError(
            f"{source}: nodes.{end.node}.interfaces.{end.interface}.mac_address is needed "
            f"(frames leaving {needed_by} are addressed to it)"
        )
    return mac


def plan_duts(
    topology: Topology,
    path: TrafficPath,
    mode: ForwardingMode,
    *,
    cores: int = 1,
    max_frame_size_b: int = 1518,
    family: FamilySetup | None = None,
) -> dict[str, DutTestConfig]:
    """The test configuration of every DUT on ``path``, by node key (DutError names a gap)."""
    count = len(path.links)
    configs: dict[str, DutTestConfig] = {}
    for index, dut in enumerate(path.duts):
        upstream, downstream = path.links[index], path.links[index + 1]
        ports = []
        # (my end, the peer's end, subnet, my host part, the peer's host part, routed prefix)
        for own, peer, link_index, side in (
            (upstream.rx, upstream.tx, index, 0),
            (downstream.tx, downstream.rx, index + 1, 1),
        ):
            subnet = link_subnet(link_index, count)
            subnet6 = link_subnet6(link_index, count)
            if peer.node == topology.tg.key:
                mine, theirs = 1, 2
            else:  # on a DUT - DUT link the upstream DUT is .1
                mine, theirs = (2, 1) if own is upstream.rx else (1, 2)
            iface = topology.nodes[dut].interfaces[own.interface]
            ports.append(
                DutPort(
                    key=own.interface,
                    name=iface.name,
                    mac=iface.mac_address,
                    pci_address=iface.pci_address,
                    peer_mac=_mac(topology, peer, f"{dut} {own.interface}"),
                    ip4_address=f"{subnet}.{mine}/24",
                    peer_ip4=f"{subnet}.{theirs}",
                    routed_prefix=DIRECTION_PREFIXES[side],
                    ip6_address=f"{subnet6}{mine}/64",
                    peer_ip6=f"{subnet6}{theirs}",
                    routed_prefix6=DIRECTION_PREFIXES6[side],
                    memif_socket=iface.memif_socket,
                )
            )
        configs[dut] = DutTestConfig(
            mode=mode,
            ports=(ports[0], ports[1]),
            cores=cores,
            max_frame_size_b=max_frame_size_b,
            family=family,
            position=index,
            chain=len(path.duts),
        )
    return configs


def plan_dut(
    topology: Topology,
    mode: ForwardingMode,
    *,
    cores: int = 1,
    max_frame_size_b: int = 1518,
) -> DutTestConfig:
    """The test configuration of the one DUT of a 2-node ``topology`` (its default path)."""
    path = compute_path(topology)
    if len(path.duts) != 1:
        raise DutError(
            f"{topology.source or 'topology'}: plan_dut is for a 2-node path; this one crosses "
            f"{', '.join(path.duts)} (use plan_duts)"
        )
    configs = plan_duts(topology, path, mode, cores=cores, max_frame_size_b=max_frame_size_b)
    return configs[path.duts[0]]
