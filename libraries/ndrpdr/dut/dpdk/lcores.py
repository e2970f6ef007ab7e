"""The lcores of a DPDK application DUT (testpmd, l3fwd): which CPU each runs on, its queues.

A test's ``cores`` are forwarding lcores, one per CPU of ``worker_cores``
(default: the app's ``cpu`` alone), and one RX and one TX queue per
forwarding lcore on each port, so every lcore polls a queue of each port
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

from ndrpdr.dut.cores import queue_placement, worker_cpus


def forwarding_cpus(
    node: str, cores: int, cpu: int, listed: Sequence[int] | None
) -> tuple[int, ...]:
    """The CPUs of the forwarding lcores: the first ``max(cores, 1)`` of ``listed`` (or ``cpu``).

    UnsupportedCoresError (a skip) when ``listed`` has fewer.
    """
    cpus = tuple(listed) if listed is not None else (cpu,)
    where = "options.worker_cores" if listed is not None else "options.cpu"
    return worker_cpus(node, max(cores, 1), cpus, where)


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
