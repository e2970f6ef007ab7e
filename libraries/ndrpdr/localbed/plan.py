"""From a topology to what the local testbed must create (pure: no I/O).

* one namespace per logical namespace of the nodes with NetnsAccess, and of
  the nodes given in ``host_namespaces`` (nodes reached otherwise, e.g. over
  SSH to an sshd the caller runs in that namespace: their ports are veths
  there like any netns node's, only their commands take another way);
* one veth pair per link whose two ends are such nodes, each end named,
  addressed (MAC) and placed as the topology says (a memif link has none:
  its ends share a socket file);
* per namespace: the interfaces to bring up, the DUT-side interfaces that
  get an RPS CPU mask, and the TG interfaces that get the nft ingress sink.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from typing import Any

from ndrpdr.localbed.errors import LocalTestbedError
from ndrpdr.localbed.naming import (
    check_ifname,
    check_logical_name,
    check_run_id,
    namespace_name,
)
from ndrpdr.topology.model import NetnsAccess, Node, Topology

#: CPU a DUT's receive processing goes to unless its options say "cpu".
DEFAULT_DUT_CPU = 1


@dataclasses.dataclass(frozen=True)
class VethEnd:
    """One end of a veth pair: node key, real namespace, interface name, MAC (None: random)."""

    node: str
    namespace: str
    name: str
    mac: str | None


@dataclasses.dataclass(frozen=True)
class VethPair:
    """A veth pair for the link ``link``; ``queues``: TX and RX queues of each end;
    ``mtu``: both ends' MTU (None: the kernel's 1500)."""

    link: str
    a: VethEnd
    b: VethEnd
    queues: int = 1
    mtu: int | None = None


#: MTU of a link between two DUTs [B]: jumbo, as CSIT's links, so that what a DUT adds to a
#: frame (an IPsec tunnel's ESP, an SRv6 header) still crosses whole from a 1518 B frame.
DUT_LINK_MTU = 9000


@dataclasses.dataclass(frozen=True)
class NamespaceSetup:
    """What to do inside one namespace once its veths exist.

    ``up``: interfaces to set up (``lo`` first); ``rps``: (interface, CPU
    mask in sysfs hex) pairs, the mask of each of its RX queues; ``sink``:
    TG interfaces whose ingress drops; ``queues``: (interface, RX queues)
    of those with more than one.
    """

    namespace: str
    nodes: tuple[str, ...]
    up: tuple[str, ...]
    rps: tuple[tuple[str, str], ...] = ()
    sink: tuple[str, ...] = ()
    queues: tuple[tuple[str, int], ...] = ()


@dataclasses.dataclass(frozen=True)
class Plan:
    """Everything one run creates: node -> namespace, veth pairs, per-namespace setup."""

    run_id: str
    node_namespaces: Mapping[str, str]
    veths: tuple[VethPair, ...]
    setups: tuple[NamespaceSetup, ...]

    @property
    def namespaces(self) -> tuple[str, ...]:
        """The real namespace names, in creation order."""
        return tuple(s.namespace for s in self.setups)


def cpu_mask(cpu: int | Sequence[int]) -> str:
    """The sysfs CPU mask (hex, 32-bit groups joined by ',') selecting CPU ``cpu`` (or those)."""
    bits = 1 << cpu if isinstance(cpu, int) else sum(1 << c for c in set(cpu))
    digits = f"{bits:x}"
    head = len(digits) % 8 or 8
    groups = [digits[:head]] + [digits[i : i + 8] for i in range(head, len(digits), 8)]
    return ",".join(groups)


def node_cpu(node: Node, default: int, cpu_count: int) -> int:
    """``options["cpu"]`` of ``node`` (default ``default``) modulo ``cpu_count``."""
    value: Any = node.options.get("cpu", default)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise LocalTestbedError(
            f"node {node.key}: options.cpu={value!r} is not valid: give a CPU number >= 0"
        )
    return value % max(cpu_count, 1)


def worker_cpus(node: Node, cpu_count: int) -> tuple[int, ...]:
    """The CPUs of a DUT's workers its options list (``worker_cores``, modulo the CPU count)."""
    value: Any = node.options.get("worker_cores")
    if not isinstance(value, list | tuple) or not all(
        isinstance(c, int) and not isinstance(c, bool) and c >= 0 for c in value
    ):
        return ()
    return tuple(dict.fromkeys(c % max(cpu_count, 1) for c in value))


def link_queues(node: Node) -> int:
    """Queues a DUT's veth ends get: its ``rx_queues`` option (VPP), else 1.

    A DUT reading a port through AF_XDP needs a socket per kernel queue:
    VPP's af_xdp opens one on each (``rx_queues`` of them); DPDK's af_xdp
    vdev reads one queue of a veth (it sees no combined channels), and
    AF_PACKET readers spread over their sockets by fanout, whatever the
    veth has. The TG's end gets as many TX queues, over which the kernel
    hashes the flows.
    """
    value: Any = node.options.get("rx_queues")
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    return 1


def _end(topology: Topology, namespaces: Mapping[str, str], node: str, key: str) -> VethEnd:
    iface = topology.nodes[node].interface(key)
    return VethEnd(node, namespaces[node], check_ifname(node, key, iface.name), iface.mac_address)


def make_plan(
    topology: Topology,
    run_id: str,
    cpu_count: int | None = None,
    *,
    host_namespaces: Mapping[str, str] | None = None,
) -> Plan:
    """The plan for ``topology`` in run ``run_id`` (LocalTestbedError naming what is wrong).

    ``host_namespaces`` maps keys of nodes without netns access to the
    logical namespace that hosts their ports.
    """
    check_run_id(run_id)
    cpus = cpu_count if cpu_count is not None else (os.cpu_count() or 1)
    hosted = dict(host_namespaces or {})
    namespaces: dict[str, str] = {}
    for node in topology.nodes.values():
        logical = hosted.pop(node.key, None)
        if isinstance(node.access, NetnsAccess):
            if logical is not None:
                raise LocalTestbedError(
                    f"node {node.key}: host namespace {logical!r} given, but it has netns "
                    f"access (namespace {node.access.namespace!r}) already"
                )
            logical = node.access.namespace
        if logical is not None:
            check_logical_name(node.key, logical)
            namespaces[node.key] = namespace_name(run_id, logical)
    if hosted:
        raise LocalTestbedError(
            f"host namespaces given for nodes the topology does not have: {', '.join(hosted)}"
        )
    if not namespaces:
        raise LocalTestbedError(
            f"{topology.source or 'topology'}: no node has netns access; nothing to set up"
        )
    veths = []
    for link in topology.links.values():
        first, second = link.ends
        memif = topology.nodes[first.node].interface(first.interface).is_memif  # no veth
        if first.node in namespaces and second.node in namespaces and not memif:
            a = _end(topology, namespaces, first.node, first.interface)
            b = _end(topology, namespaces, second.node, second.interface)
            pair = (topology.nodes[first.node], topology.nodes[second.node])
            queues = max(link_queues(n) if n.type == "DUT" else 1 for n in pair)
            mtu = DUT_LINK_MTU if all(n.type == "DUT" for n in pair) else None
            veths.append(VethPair(link.name, a, b, queues, mtu))
    setups = []
    for namespace in dict.fromkeys(namespaces.values()):
        nodes = tuple(k for k, ns in namespaces.items() if ns == namespace)
        ends = [e for p in veths for e in (p.a, p.b) if e.namespace == namespace]
        names = [e.name for e in ends]
        if len(set(names)) != len(names):
            raise LocalTestbedError(f"namespace {namespace}: interface names repeat: {names}")
        rps = []
        sink = []
        for end in ends:
            node = topology.nodes[end.node]
            if node.type == "DUT":
                cpu = node_cpu(node, DEFAULT_DUT_CPU, cpus)
                rps.append((end.name, cpu_mask(worker_cpus(node, cpus) or cpu)))
            elif node.type == "TG":
                sink.append(end.name)
        many = tuple(
            (end.name, pair.queues)
            for pair in veths
            for end in (pair.a, pair.b)
            if end.namespace == namespace and pair.queues > 1
        )
        setups.append(
            NamespaceSetup(
                namespace, nodes, ("lo", *names), rps=tuple(rps), sink=tuple(sink), queues=many
            )
        )
    return Plan(run_id, namespaces, tuple(veths), tuple(setups))
