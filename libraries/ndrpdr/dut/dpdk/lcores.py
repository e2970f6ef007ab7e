"""The lcores of a DPDK application DUT (testpmd, l3fwd): which CPU each runs on, its queues.

A test's ``cores`` are physical cores: each gives a forwarding lcore per
hardware thread (``ndrpdr.dut.smt``: on a node with SMT, ``1c`` is two
lcores, the core's sibling threads, unless ``DutTestConfig.smt`` is
false), taken from ``worker_cores`` as listed (grouped by physical core),
default the core of the app's ``cpu`` (``cpu`` and its siblings). There is
one RX and one TX queue per forwarding lcore on each port, so every lcore polls a queue of each port
(the TG's varied flows spread over the queues by RSS, or by the
AF_PACKET fanout / veth queue hash). 0 cores is 1: a DPDK app always
has a forwarding lcore.

* testpmd: main lcore 0 shares the first forwarding lcore's CPU (it only
  prints statistics), forwarding lcores 1..N on the N CPUs
  (``--lcores 0@a,1@a,2@b``, ``--nb-cores=N --rxq=N --txq=N``);
* with af_xdp ports, a queue pair per kernel RX queue of the ports (an
  AF_XDP socket reads one), spread over the lcores;
* l3fwd: lcores 0..N-1 all forward (the main lcore too), lcore *q* polls
  queue *q* of both ports (``--config (0,q,q),(1,q,q)``; more queues than
  lcores: queue *q* on lcore *q mod n*); l3fwd makes a TX queue per lcore
  itself.

Pure functions, no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence

from ndrpdr.dut import smt
from ndrpdr.dut.base import DutTestConfig
from ndrpdr.dut.cores import queue_placement


def forwarding_plan(
    node: str, config: DutTestConfig, cpu: int, listed: Sequence[int] | None
) -> smt.ThreadPlan:
    """The forwarding lcores of ``max(config.cores, 1)`` physical cores of ``listed`` (or of
    ``cpu``'s core); the main lcore on the first one's CPU (testpmd: beside it; l3fwd: it).

    UnsupportedCoresError (a skip) when ``listed`` has fewer cores.
    """
    layout = config.cpus.layout if config.cpus is not None else None
    if listed is not None:
        cpus, where = tuple(listed), "options.worker_cores"
    else:
        cpus, where = smt.whole_core(layout, cpu), "options.cpu"
    count = max(config.cores, 1)
    workers = smt.take_cores(node, count, cpus, where, layout, smt_used=config.smt)
    return smt.plan(workers[0].cpu, workers, layout, config.smt)


def forwarding_cpus(
    node: str, config: DutTestConfig, cpu: int, listed: Sequence[int] | None
) -> tuple[int, ...]:
    """The CPUs of the forwarding lcores, in lcore order (``forwarding_plan``)."""
    return forwarding_plan(node, config, cpu, listed).cpus


def testpmd_lcores(cpus: Sequence[int]) -> str:
    """testpmd's ``--lcores``: main lcore 0 on the first CPU, forwarding lcore i+1 on CPU i."""
    return ",".join([f"0@{cpus[0]}", *(f"{index + 1}@{cpu}" for index, cpu in enumerate(cpus))])


def testpmd_core_args(cpus: Sequence[int], queues: int | None = None) -> list[str]:
    """testpmd's forwarding cores and queue pairs per port (default one per lcore)."""
    pairs = len(cpus) if queues is None else queues
    return [f"--nb-cores={len(cpus)}", f"--rxq={pairs}", f"--txq={pairs}"]


def l3fwd_lcores(cpus: Sequence[int]) -> str:
    """l3fwd's ``--lcores``: lcore i on CPU i (lcore 0, the main lcore, forwards too)."""
    return ",".join(f"{index}@{cpu}" for index, cpu in enumerate(cpus))


def l3fwd_config(cpus: Sequence[int], queues: int | None = None, ports: int = 2) -> str:
    """l3fwd's ``--config``: (port, queue, lcore) with queue q of every port on lcore q mod n
    (``queues`` per port, default one per lcore)."""
    count = len(cpus) if queues is None else queues
    lcores = queue_placement(count, len(cpus))
    return ",".join(
        f"({port},{queue},{lcores[queue]})" for queue in range(count) for port in range(ports)
    )
