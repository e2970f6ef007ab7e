"""The traffic path of a test: which TG ports, DUT ports and links the traffic crosses.

A test sends traffic around a chain: TG port A -> DUT1 -> [DUT2 ->] TG port
B (direction 0), and back the other way (direction 1), as FD.io CSIT's
2-node and 3-node single-link topologies do. A topology may offer many
such chains (CSIT's lab files cable several NICs, and two TG ports to each
other for TG self-tests); ``compute_path`` chooses one:

* the DUTs are the topology's DUT nodes in key order (DUT1, DUT2);
* between each pair of neighbours in the chain it takes the first link,
  in the order of the sending node's interface keys, that is not used
  yet and whose DUT end(s) have the NIC ``model`` asked for (the TG's
  ends are not filtered, as in CSIT);
* without a NIC, it tries the NIC models of DUT1's ports linked to the TG
  in the order of the TG's ports, and takes the first model that gives a
  whole chain; links between two ports of one node are never used.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterator, Sequence

from ndrpdr.errors import NdrPdrError
from ndrpdr.topology.model import Interface, LinkEnd, Topology, natural_key


class PathError(NdrPdrError):
    """No traffic path of the kind asked for (names the file, the nodes and the NIC)."""


@dataclasses.dataclass(frozen=True)
class PathLink:
    """One link of the path, as direction 0 crosses it: from ``tx`` to ``rx``."""

    name: str
    tx: LinkEnd
    rx: LinkEnd


@dataclasses.dataclass(frozen=True)
class TrafficPath:
    """The chain TG -> DUT1 -> [DUT2 ->] TG as direction 0 crosses it.

    ``links`` are in direction 0 order; ``nic`` is the NIC model the DUT
    ports were chosen by (None: the topology names no models).
    """

    links: tuple[PathLink, ...]
    nic: str | None = None

    @property
    def tg_ports(self) -> tuple[str, str]:
        """The TG's interface keys: where direction 0 leaves, where it comes back."""
        return self.links[0].tx.interface, self.links[-1].rx.interface

    @property
    def duts(self) -> tuple[str, ...]:
        """The DUT node keys in the order direction 0 crosses them."""
        return tuple(link.rx.node for link in self.links[:-1])

    @property
    def node_count(self) -> int:
        """2 for TG - DUT1 - TG, 3 for TG - DUT1 - DUT2 - TG."""
        return len(self.duts) + 1

    @property
    def topology_tag(self) -> str:
        """CSIT's topology tag: ``2_NODE_SINGLE_LINK_TOPO`` or ``3_NODE_SINGLE_LINK_TOPO``."""
        return f"{self.node_count}_NODE_SINGLE_LINK_TOPO"

    def dut_ports(self, dut: str) -> tuple[str, str]:
        """The interface keys of ``dut`` where direction 0 enters and where it leaves."""
        for index, link in enumerate(self.links[:-1]):
            if link.rx.node == dut:
                return link.rx.interface, self.links[index + 1].tx.interface
        raise KeyError(f"{dut} is not on the path")

    def describe(self, topology: Topology) -> list[str]:
        """One line per link: ``TG port1 (0000:17:00.0) --link1--> DUT1 port1 (...)``."""
        return [
            f"{_end_text(topology, link.tx)} --{link.name}--> {_end_text(topology, link.rx)}"
            for link in self.links
        ]


def _interface(topology: Topology, end: LinkEnd) -> Interface:
    return topology.nodes[end.node].interfaces[end.interface]


def _end_text(topology: Topology, end: LinkEnd) -> str:
    iface = _interface(topology, end)
    detail = [d for d in (iface.name, iface.pci_address, iface.model) if d]
    extra = f" ({', '.join(detail)})" if detail else ""
    return f"{end.node} {end.interface}{extra}"


def _links_from(topology: Topology, sender: str, receiver: str) -> Iterator[PathLink]:
    """Links from ``sender`` to ``receiver``, in the order of the sender's interface keys."""
    node = topology.nodes[sender]
    for key in sorted(node.interfaces, key=natural_key):
        peer = topology.peer(sender, key)
        if peer is not None and peer.node == receiver and peer.node != sender:
            name = node.interfaces[key].link
            assert name is not None  # peer() found its link
            yield PathLink(name, LinkEnd(sender, key), peer)


def _fits(topology: Topology, link: PathLink, nic: str | None, filtered: bool) -> bool:
    if not filtered:
        return True
    tg = topology.tg.key
    ends = [end for end in (link.tx, link.rx) if end.node != tg]
    return all(_interface(topology, end).model == nic for end in ends)


def _chain(
    topology: Topology, nodes: Sequence[str], nic: str | None, filtered: bool
) -> tuple[tuple[PathLink, ...], tuple[str, str] | None]:
    """The links of the chain through ``nodes``, and the first hop with no free link (or None)."""
    used: set[str] = set()
    chosen: list[PathLink] = []
    for sender, receiver in itertools.pairwise(nodes):
        link = next(
            (
                candidate
                for candidate in _links_from(topology, sender, receiver)
                if candidate.name not in used and _fits(topology, candidate, nic, filtered)
            ),
            None,
        )
        if link is None:
            return tuple(chosen), (sender, receiver)
        used.add(link.name)
        chosen.append(link)
    return tuple(chosen), None


def nic_models(topology: Topology) -> tuple[str | None, ...]:
    """NIC models of the first DUT's ports linked to the TG, in the order of the TG's ports."""
    duts = topology.duts
    if not duts:
        return ()
    models = [
        _interface(topology, link.rx).model
        for link in _links_from(topology, topology.tg.key, duts[0].key)
    ]
    return tuple(dict.fromkeys(models))


def compute_path(topology: Topology, nic: str | None = None) -> TrafficPath:
    """The traffic path through every DUT of ``topology`` (PathError when there is none).

    ``nic`` is a NIC model (an interface ``model``, e.g. ``Intel-E810CQ``);
    None takes the first model that gives a whole path.
    """
    source = topology.source or "topology"
    tg = topology.tg.key
    nodes = [tg, *(d.key for d in topology.duts), tg]
    shape = " - ".join(nodes)
    if nic is not None:
        links, gap = _chain(topology, nodes, nic, filtered=True)
        if gap is not None:
            known = [m for m in nic_models(topology) if m is not None]
            listing = ", ".join(known) if known else "none (no interface names a model)"
            raise PathError(
                f"{source}: no {shape} path with NIC {nic!r} (no {gap[0]} -> {gap[1]} link "
                f"with it); NIC models of {nodes[1]} ports linked to {tg}: {listing}"
            )
        return TrafficPath(links, nic)
    for model in nic_models(topology):
        links, gap = _chain(topology, nodes, model, filtered=True)
        if gap is None:
            return TrafficPath(links, model)
    links, gap = _chain(topology, nodes, None, filtered=False)
    if gap is not None:
        sender, receiver = gap
        between = sorted({link.name for link in _links_from(topology, sender, receiver)})
        have = f"links between them: {', '.join(between)}" if between else "no link between them"
        raise PathError(
            f"{source}: no {shape} path: no free link from {sender} to {receiver} ({have}; "
            "each step of the chain needs a link of its own: give two interfaces a shared "
            "'link' name)"
        )
    return TrafficPath(links, None)
