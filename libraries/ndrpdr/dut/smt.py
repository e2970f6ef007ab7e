"""A DUT node's hardware threads (SMT) and which of them a test's cores get, by CSIT's rule.

A test's ``Nc`` is N *physical* cores. On a node with SMT (``lscpu``:
"Thread(s) per core" above 1) each physical core a test takes gives the
data plane every hardware thread of that core as a worker (VPP worker
threads, DPDK forwarding lcores): ``1c`` on a 2-thread node is two workers,
tagged ``2T1C`` (``ThreadPlan.tag``) and ``MTHREAD`` (more than one worker;
``STHREAD`` otherwise), as FD.io CSIT's ``CpuUtils.get_affinity_vswitch``
and its keyword "Add worker threads to all DUTs" do. With ``smt_used``
false (CSIT's ``${smt_used}``) a core gives only its first thread.

CSIT's placement on the NUMA node of the DUT's ports (``csit_cpus``): the
node's physical cores in the order of their lowest CPU; the first is left
to the system (``CPU_CNT_SYSTEM``), the main thread takes the first thread
of the second (``CPU_CNT_MAIN``, never its sibling, which stays idle), the
workers take the cores after it: first thread of each core, then the
second thread of each ("2,3,58,59" for 2c on a node with CPUs 0-27 and
56-83). CSIT finds the siblings by cutting the NUMA node's CPU list in two
halves (its ``NR_OF_THREADS`` is 2); this module reads each CPU's core from
``lscpu -p=CPU,CORE,SOCKET,NODE``, so it gives the same CPUs where CSIT's
halves are right and the true siblings elsewhere (4 threads a core,
siblings numbered side by side).

CPUs a topology lists (``worker_cores``) are taken as listed: grouped by
physical core in list order, a test takes its N cores' listed CPUs
(``take_cores``): a listed CPU's sibling that is not listed is not used.

Pure functions, no I/O.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from typing import Any

from ndrpdr.dut.cores import UnsupportedCoresError

#: The command that lists a node's CPUs: one "cpu,core,socket,node" line each.
LSCPU_ARGV: tuple[str, ...] = ("lscpu", "-p=CPU,CORE,SOCKET,NODE")
#: Physical cores CSIT leaves to the system before the main thread's (Constants.CPU_CNT_SYSTEM).
CPU_CNT_SYSTEM = 1


class CpuLayoutError(ValueError):
    """A CPU list (lscpu's output) that cannot be read; the message names its source."""


@dataclasses.dataclass(frozen=True)
class LogicalCpu:
    """One CPU the OS schedules on (a hardware thread): its physical core, socket, NUMA node."""

    cpu: int
    core: int
    socket: int
    numa: int


@dataclasses.dataclass(frozen=True)
class CpuLayout:
    """The online CPUs of a node (``source`` says where the list came from)."""

    cpus: tuple[LogicalCpu, ...]
    source: str = "lscpu"

    def _core_key(self, cpu: LogicalCpu) -> tuple[int, int]:
        return (cpu.socket, cpu.core)

    def siblings(self, cpu: int) -> tuple[int, ...]:
        """The CPUs of ``cpu``'s physical core, lowest first (``cpu`` alone when unknown)."""
        known = {c.cpu: c for c in self.cpus}
        if cpu not in known:
            return (cpu,)
        key = self._core_key(known[cpu])
        return tuple(sorted(c.cpu for c in self.cpus if self._core_key(c) == key))

    @property
    def threads_per_core(self) -> int:
        """Hardware threads of the busiest physical core (lscpu's "Thread(s) per core")."""
        counts: dict[tuple[int, int], int] = {}
        for cpu in self.cpus:
            counts[self._core_key(cpu)] = counts.get(self._core_key(cpu), 0) + 1
        return max(counts.values(), default=1)

    @property
    def smt(self) -> bool:
        """True when a physical core has more than one hardware thread."""
        return self.threads_per_core > 1

    def numa_of(self, cpu: int) -> int:
        """The NUMA node of ``cpu`` (0 when it is not listed)."""
        return next((c.numa for c in self.cpus if c.cpu == cpu), 0)

    def physical_cores(self, numa: int) -> list[tuple[int, ...]]:
        """The physical cores of NUMA node ``numa`` as their CPUs (lowest first), ordered
        by their lowest CPU."""
        cores: dict[tuple[int, int], list[int]] = {}
        for cpu in sorted(self.cpus, key=lambda c: c.cpu):
            if cpu.numa == numa:
                cores.setdefault(self._core_key(cpu), []).append(cpu.cpu)
        return sorted((tuple(cpus) for cpus in cores.values()), key=lambda cpus: cpus[0])


def parse_lscpu(text: str, source: str = "lscpu") -> CpuLayout:
    """``lscpu -p=CPU,CORE,SOCKET,NODE``'s output as a CpuLayout (an empty NODE is 0).

    CpuLayoutError naming ``source`` and the line for anything else.
    """
    cpus: list[LogicalCpu] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        fields = line.split(",")
        try:
            if len(fields) != 4:
                raise ValueError("not 4 fields")
            cpu, core, socket, numa = (int(field) if field else 0 for field in fields)
        except ValueError:
            raise CpuLayoutError(
                f"{source}: line {number} {line!r} is not 'cpu,core,socket,node' "
                f"(the output of {' '.join(LSCPU_ARGV)})"
            ) from None
        cpus.append(LogicalCpu(cpu, core, socket, numa))
    if not cpus:
        raise CpuLayoutError(f"{source}: no CPU listed")
    return CpuLayout(tuple(cpus), source)


@dataclasses.dataclass(frozen=True)
class NodeCpus:
    """What a test's CPU plan needs of a DUT node: its CPUs and the NUMA node of its ports."""

    layout: CpuLayout
    numa: int = 0


@dataclasses.dataclass(frozen=True)
class Worker:
    """A data-plane thread's CPU: its physical core (by its lowest CPU) and which of the
    core's threads it is (0: the first)."""

    cpu: int
    core: int
    thread: int


@dataclasses.dataclass(frozen=True)
class ThreadPlan:
    """Which CPU does what on one DUT for one test.

    ``main``: the main thread's CPU (None: the driver shares a worker's);
    ``workers`` in the order the data plane numbers them; ``smt_used``: a
    core gave all its threads; ``threads_per_core``: the node's (1 when
    not known).
    """

    main: int | None
    workers: tuple[Worker, ...]
    smt_used: bool = False
    threads_per_core: int = 1

    @property
    def cpus(self) -> tuple[int, ...]:
        """The workers' CPUs, in order."""
        return tuple(worker.cpu for worker in self.workers)

    @property
    def threads(self) -> int:
        """Data-plane threads (CSIT's ``dp_count_int``)."""
        return len(self.workers)

    @property
    def cores(self) -> int:
        """Physical cores the workers run on (CSIT's ``cpu_count_int``)."""
        return len({worker.core for worker in self.workers})

    @property
    def tag(self) -> str:
        """CSIT's ``<threads>T<cores>C`` test tag ("2T1C")."""
        return f"{self.threads}T{self.cores}C"

    @property
    def thread_tag(self) -> str:
        """CSIT's ``MTHREAD`` (more than one data-plane thread) or ``STHREAD``."""
        return "MTHREAD" if self.threads > 1 else "STHREAD"

    def to_json(self) -> dict[str, Any]:
        """The record's ``threads`` entry of a DUT (``ndrpdr.results.record``)."""
        return {
            "tag": self.tag,
            "smt_used": self.smt_used,
            "threads_per_core": self.threads_per_core,
            "main_cpu": self.main,
            "workers": [{"cpu": w.cpu, "core": w.core, "thread": w.thread} for w in self.workers],
        }

    @property
    def text(self) -> str:
        """One line: "2T1C: main cpu 1; workers cpu 2 (core 2), cpu 58 (core 2, thread 1)"."""
        main = "shared" if self.main is None else f"cpu {self.main}"
        workers = ", ".join(
            f"cpu {w.cpu} (core {w.core}{f', thread {w.thread}' if w.thread else ''})"
            for w in self.workers
        )
        return f"{self.tag}: main {main}; workers {workers or 'none'}"


def take_cores(
    node: str,
    cores: int,
    cpus: Sequence[int],
    where: str,
    layout: CpuLayout | None = None,
    *,
    smt_used: bool = True,
) -> tuple[Worker, ...]:
    """The workers of ``cores`` physical cores out of ``cpus`` (grouped by physical core in
    list order; without ``layout`` each CPU is a core of its own).

    Each core gives its CPUs of ``cpus`` (only the first with ``smt_used``
    false), first threads first (CSIT's order). UnsupportedCoresError (a
    skip) naming ``where`` when ``cpus`` has fewer cores; ValueError for a
    negative ``cores``.
    """
    if cores < 0:
        raise ValueError(f"{node}: cores {cores} is negative")
    groups = group_by_core(cpus, layout)
    if len(groups) < cores:
        if layout is None or not layout.smt:  # each CPU a core of its own
            needs = f"{cores} CPUs for {cores} workers (and one more for its main thread)"
            where_text = f"{where}: {list(cpus)}"
        else:
            needs = f"{cores} physical cores for workers (and a CPU for its main thread)"
            where_text = f"{where}: {list(cpus)}; physical cores: {cores_text(groups)}"
        raise UnsupportedCoresError(
            f"{node} needs {needs}, and has {len(groups)} for workers ({where_text})"
        )
    taken = list(groups.items())[:cores]
    rounds = max((len(group) for _, group in taken), default=0) if smt_used else 1
    return tuple(
        Worker(group[thread], core, thread)
        for thread in range(rounds)
        for core, group in taken
        if thread < len(group)
    )


def group_by_core(cpus: Sequence[int], layout: CpuLayout | None) -> dict[int, list[int]]:
    """``cpus`` grouped by physical core (keyed by its lowest CPU), in list order; without
    ``layout`` each CPU is a core of its own."""
    groups: dict[int, list[int]] = {}
    for cpu in cpus:
        core = layout.siblings(cpu)[0] if layout is not None else cpu
        groups.setdefault(core, []).append(cpu)
    return groups


def cores_text(groups: dict[int, list[int]]) -> str:
    """``[2,58] [3,59]``: each physical core's CPUs; ``none`` for no core."""
    return " ".join("[" + ",".join(str(cpu) for cpu in g) + "]" for g in groups.values()) or "none"


def plan(
    main: int | None, workers: Iterable[Worker], layout: CpuLayout | None, smt_used: bool
) -> ThreadPlan:
    """A ThreadPlan of ``workers`` on a node of ``layout`` (None: not known)."""
    per_core = layout.threads_per_core if layout is not None else 1
    return ThreadPlan(main, tuple(workers), smt_used and per_core > 1, per_core)


def csit_cpus(layout: CpuLayout, numa: int, main: int | None = None) -> tuple[int, tuple[int, ...]]:
    """CSIT's main thread CPU and the CPUs its workers may take, in core order.

    ``main`` None: the first thread of the NUMA node's second physical core
    (the first is the system's); else ``main`` and the cores after its
    core on its NUMA node. The workers' list holds every thread of those
    cores (``take_cores`` picks the test's).
    """
    if main is None:
        physical = layout.physical_cores(numa)
        index = CPU_CNT_SYSTEM
        if len(physical) <= index:
            raise UnsupportedCoresError(
                f"{layout.source}: NUMA node {numa} has {len(physical)} physical core(s): none "
                "is left for the main thread after the system's"
            )
        main = physical[index][0]
    else:
        physical = layout.physical_cores(layout.numa_of(main))
        index = next((i for i, cpus in enumerate(physical) if main in cpus), -1)
    return main, tuple(cpu for cpus in physical[index + 1 :] for cpu in cpus)


def whole_core(layout: CpuLayout | None, cpu: int, avoid: int | None = None) -> tuple[int, ...]:
    """``cpu`` then its siblings (those of ``layout``, but not ``avoid``): one physical core."""
    if layout is None:
        return (cpu,)
    return (cpu, *(c for c in layout.siblings(cpu) if c not in (cpu, avoid)))
