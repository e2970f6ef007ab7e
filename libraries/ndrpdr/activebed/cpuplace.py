"""Which CPU each node of a run on this machine uses, so concurrent runs do not collide.

Nodes placed: those on this machine (access local, netns or labbox) whose
driver has a ``cpu`` option (the local TG, the linux, testpmd, l3fwd and
ovs DUTs); lab hosts reached over SSH are other machines and left alone.
The TG is placed first, then the DUTs in path order, all in one look at
the claims (``ndrpdr.localbed.cpuclaim``), so no other run claims in
between.

* A node whose ``cpu`` option the topology sets keeps it (modulo the CPU
  count, as the drivers take it); it is still claimed, and whom it shares
  the CPU with is said.
* A node without one gets the CPU its driver's default would be, if no run
  (this one included) claims it; else a free CPU this process may run on
  (``os.sched_getaffinity``), the highest first (CPU 0 is where most
  housekeeping and the TG's default are); when every CPU is claimed, the
  one with the fewest claims, the default first on a tie. The choice is
  written into the node's options, so every part of the run (the drivers'
  pinning, the local testbed's RPS masks) uses it.

A DUT whose driver takes ``worker_cores`` (vpp, testpmd, l3fwd) and whose
topology lists none gets its own CPU first, then the CPUs no node of this
run was placed on (not claimed: a test with fewer cores leaves them alone),
so a test asking for N cores gets N workers on CPUs of their own or is
skipped (``ndrpdr.dut.cores.UnsupportedCoresError``), never run on fewer.
On a 2-CPU machine with the TG on CPU 0 that is CPU 1 alone: 1 worker.
``machine_text`` sums the placement up for such a skip's message.

``CpuPlacement.text`` is what the DUT telemetry says (``cpu_placement``):
``"cpu 1 (claimed)"``, or ``"cpu 0 (shared with run 1234-ab12 DUT1, pid
1234: all 2 CPUs claimed)"``; runs that claimed the CPU after this one
are named too (``with_joined``), ``"..., which came later"``.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence

from ndrpdr.drivers import describe
from ndrpdr.localbed.cpuclaim import CpuClaims, CpuHolder
from ndrpdr.localbed.errors import LocalTestbedError
from ndrpdr.localbed.plan import node_cpu
from ndrpdr.topology.model import LabboxAccess, LocalAccess, NetnsAccess, Node, Topology


@dataclasses.dataclass(frozen=True)
class CpuPlacement:
    """Where one node runs and who else uses that CPU.

    ``explicit``: the topology's ``options.cpu`` set it; ``others``: claims
    of other runs on the CPU when it was claimed; ``own``: other nodes of
    this run on it; ``joined``: claims of other runs made on it later;
    ``cpu_count``: CPUs this run may use; ``all_claimed``:
    (chosen CPUs) no free CPU was left; ``error``: why the CPU could not be
    claimed (None when it was); ``workers``: the CPUs its workers may use,
    in order (written to ``options.worker_cores``; empty when its driver
    has no workers or the topology lists them).
    """

    node: str
    cpu: int
    explicit: bool
    others: tuple[CpuHolder, ...] = ()
    own: tuple[str, ...] = ()
    joined: tuple[CpuHolder, ...] = ()
    cpu_count: int = 1
    all_claimed: bool = False
    error: str | None = None
    workers: tuple[int, ...] = ()

    @property
    def shared(self) -> bool:
        """True when another run uses (or used) this CPU too."""
        return bool(self.others or self.joined)

    @property
    def sharers(self) -> str | None:
        """Who else uses (or used) this CPU ('run X DUT1, pid N and ...'), None: no one."""
        if not self.shared:
            return None
        who = [f"run {h.run_id} {h.node}, pid {h.pid}" for h in self.others]
        who += [f"run {h.run_id} {h.node}, pid {h.pid}, which came later" for h in self.joined]
        return " and ".join(who)

    @property
    def text(self) -> str:
        """One line: the CPU, whether it is shared and with whom, and why."""
        if self.error is not None:
            return f"cpu {self.cpu} (not claimed: {self.error})"
        status = f"shared with {self.sharers}" if self.shared else "claimed"
        if self.own:
            status += f", also {' and '.join(self.own)} of this run"
        if self.explicit:
            why = "set by options.cpu"
        elif self.all_claimed and (self.others or self.own):
            why = f"all {self.cpu_count} CPUs claimed"
        else:
            why = ""
        return f"cpu {self.cpu} ({status}{': ' + why if why else ''})"


def with_joined(placement: CpuPlacement, claims: CpuClaims) -> CpuPlacement:
    """``placement`` naming as well the runs that claimed its CPU after it (``claims.joined``)."""
    joined = tuple(h for h in claims.joined(placement.node) if h not in placement.others)
    return dataclasses.replace(placement, joined=joined)


def takes_worker_cores(node: Node) -> bool:
    """True when ``node``'s driver has a ``worker_cores`` option (vpp, testpmd, l3fwd)."""
    options = describe(node.type, node.driver).options
    return any(field.name == "worker_cores" for field in dataclasses.fields(options))


def machine_text(placements: Mapping[str, CpuPlacement]) -> str:
    """ "this machine has 2 CPUs for the run: TG on cpu 0, DUT1 on cpu 1 (workers: cpu 1)"."""
    if not placements:
        return ""
    count = max(p.cpu_count for p in placements.values())
    nodes = []
    for key, placement in placements.items():
        workers = ",".join(str(cpu) for cpu in placement.workers)
        nodes.append(
            f"{key} on cpu {placement.cpu}" + (f" (workers: cpu {workers})" if workers else "")
        )
    return f"this machine has {count} CPU(s) for the run: {', '.join(nodes)}"


def single_cpu_problem(node: Node, placement: CpuPlacement, cores: int) -> str | None:
    """Why a placed DUT whose driver has no workers (linux, ovs) cannot give ``cores`` > 1."""
    if cores <= 1 or node.type != "DUT" or takes_worker_cores(node):
        return None
    return (
        f"{node.key} ({node.driver}) forwards on one CPU (cpu {placement.cpu}) and the test "
        f"asks for {cores} cores"
    )


def spare_cpus(
    usable: Sequence[int], placements: Mapping[str, CpuPlacement], node: Node
) -> tuple[int, ...]:
    """``node``'s CPUs for workers: its own, then those no placed node of this run has."""
    own = placements[node.key].cpu
    taken = {p.cpu for p in placements.values()}
    main = node.options.get("main_core")
    return (own, *(cpu for cpu in sorted(usable) if cpu not in taken and cpu != main))


def cpu_option_default(node: Node) -> int | None:
    """The default of the ``cpu`` option of ``node``'s driver (None: the driver has none)."""
    options = describe(node.type, node.driver).options
    for field in dataclasses.fields(options):
        if field.name == "cpu" and isinstance(field.default, int):
            return field.default
    return None


def on_this_machine(node: Node) -> bool:
    """True for a node of this machine: local, netns or labbox access."""
    return isinstance(node.access, LocalAccess | NetnsAccess | LabboxAccess)


def choose_cpu(default: int, allowed: Sequence[int], load: Mapping[int, int]) -> int:
    """The CPU with the fewest claims (``load``): ``default`` first, then the highest first."""
    order = [default] if default in allowed else []
    order += sorted((cpu for cpu in allowed if cpu != default), reverse=True)
    if not order:
        return default
    return min(order, key=lambda cpu: load.get(cpu, 0))


def placed_nodes(topology: Topology, keys: Sequence[str]) -> list[str]:
    """Those of ``keys`` to place: on this machine, with a driver that has a ``cpu`` option."""
    return [
        key
        for key in keys
        if on_this_machine(topology.nodes[key])
        and cpu_option_default(topology.nodes[key]) is not None
    ]


def place_cpus(
    topology: Topology,
    keys: Sequence[str],
    claims: CpuClaims,
    *,
    cpu_count: int | None = None,
    allowed: Sequence[int] | None = None,
) -> tuple[Topology, dict[str, CpuPlacement]]:
    """Claim a CPU for each node of ``keys`` (in order; see ``placed_nodes``).

    Returns the topology with the chosen CPUs in the options of nodes that
    had none, and the placements by node key. ``cpu_count``: CPUs of the
    machine (default ``os.cpu_count()``); ``allowed``: CPUs to choose from
    (default ``os.sched_getaffinity(0)``). Claims that cannot be made (no
    writable claim directory) leave the default CPU, saying why.
    """
    count = cpu_count if cpu_count is not None else (os.cpu_count() or 1)
    usable = sorted(os.sched_getaffinity(0) if allowed is None else allowed)
    usable = [cpu for cpu in usable if cpu < count] or list(range(count))
    nodes = dict(topology.nodes)
    placements: dict[str, CpuPlacement] = {}
    try:
        with claims.choosing() as holders:
            for key in keys:
                placement = _place(nodes[key], claims, holders, count, usable)
                placements[key] = placement
                nodes[key] = _with_cpu(nodes[key], placement)
        _give_workers(nodes, placements, usable)
    except LocalTestbedError as exc:  # no claim directory: place without claims, say so
        for key in keys:
            if key not in placements:
                node = nodes[key]
                default = cpu_option_default(node) or 0
                cpu = node_cpu(node, default, count)
                placements[key] = CpuPlacement(
                    key, cpu, "cpu" in node.options, cpu_count=count, error=str(exc)
                )
    return dataclasses.replace(topology, nodes=nodes), placements


def _give_workers(
    nodes: dict[str, Node], placements: dict[str, CpuPlacement], usable: Sequence[int]
) -> None:
    """Write ``worker_cores`` into the options of placed DUTs whose driver takes it, if unset."""
    for key, node in list(nodes.items()):
        if key not in placements or node.type != "DUT" or "worker_cores" in node.options:
            continue
        if not takes_worker_cores(node):
            continue
        workers = spare_cpus(usable, placements, node)
        placements[key] = dataclasses.replace(placements[key], workers=workers)
        nodes[key] = dataclasses.replace(
            node, options={**node.options, "worker_cores": list(workers)}
        )


def _place(
    node: Node,
    claims: CpuClaims,
    holders: dict[int, list[CpuHolder]],
    count: int,
    usable: Sequence[int],
) -> CpuPlacement:
    default = cpu_option_default(node) or 0
    explicit = "cpu" in node.options
    full = False
    if explicit:
        cpu = node_cpu(node, default, count)
    else:
        load = {c: len(h) for c, h in holders.items()}
        cpu = choose_cpu(default % count, usable, load)
        full = load.get(cpu, 0) > 0
    present = holders.get(cpu, [])
    others = tuple(h for h in present if h.run_id != claims.run_id)
    own = tuple(h.node for h in present if h.run_id == claims.run_id and h.node != node.key)
    holders.setdefault(cpu, []).append(claims.claim(node.key, cpu))
    return CpuPlacement(
        node.key, cpu, explicit, others, own, cpu_count=len(usable), all_claimed=full
    )


def _with_cpu(node: Node, placement: CpuPlacement) -> Node:
    if placement.explicit:
        return node
    return dataclasses.replace(node, options={**node.options, "cpu": placement.cpu})
