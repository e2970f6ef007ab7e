"""Which CPUs the second VPP of a memif family gets: FD.io CSIT's container, on CPUs of its own.

CSIT pins its container (``Construct container on all DUTs`` with
``auto_scale`` and ``pinning``, ``CpuUtils.get_affinity_nf``) on the NUMA
node of the DUT's ports, after the system's physical core, the DUT VPP's
main core and its ``N`` worker cores: the next physical core gives the
container's main thread its first thread (the sibling stays idle), the
``N`` cores after it give its workers, every hardware thread of each when
the test uses SMT. So the container has as many workers as the DUT, and a
test of ``N`` cores needs ``2N + 3`` physical cores on that NUMA node.

Here, by the same rule as the DUT's threads (``ndrpdr.dut.vpp.threads``):

- dpdk ports, node CPUs known, no ``worker_cores`` listed: CSIT's, the
  physical cores after the DUT's workers' cores;
- dpdk ports, CPUs unknown, none listed: the CPUs after the DUT's last
  worker (main, then ``N`` workers), as the DUT's own fallback counts;
- ``worker_cores`` listed (the topology's, or this machine's placement):
  the listed CPUs of the physical cores neither the DUT's workers nor its
  main thread are on, in list order: the first core for the main thread,
  the next ``N`` for the workers;
- ports on Linux interfaces with none listed: no CPU is known to be free,
  so the test is skipped and the message says to list them.

A node without enough raises UnsupportedCoresError (the test is skipped,
never run with the two VPPs sharing CPUs), the message naming the CPUs.

Pure functions, no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence

from ndrpdr.dut import smt
from ndrpdr.dut.base import DutTestConfig
from ndrpdr.dut.cores import UnsupportedCoresError
from ndrpdr.dut.vpp.config import VppOptions
from ndrpdr.dut.vpp.threads import vpp_threads
from ndrpdr.topology.model import Node

WHAT = "the second VPP of a memif family (CSIT's container)"


def peer_threads(
    node: Node, config: DutTestConfig, options: VppOptions, what: str = WHAT
) -> smt.ThreadPlan:
    """The second VPP's main thread and its workers, as many as the DUT's (see the module);
    ``what`` names it in messages (a vhost family's guest takes the same CPUs as CSIT's VM).

    UnsupportedCoresError (a skip) naming the CPUs when the node has too few.
    """
    dut = vpp_threads(node, config, options)
    known = config.cpus
    layout = known.layout if known is not None else None
    name = f"{node.key} (vpp)"
    if options.port_kind == "dpdk" and options.worker_cores is None:
        if known is None or layout is None:  # the DUT's fallback: consecutive CPUs
            first = max((*dut.cpus, options.dpdk_main_core)) + 1
            workers = smt.take_cores(
                name, config.cores, tuple(range(first + 1, first + 1 + config.cores)),
                "options.main_core", None,
            )  # fmt: skip
            return smt.plan(first, workers, None, config.smt)
        _, free = smt.csit_cpus(layout, known.numa, options.main_core)
        pool = list(free)
        where = f"{layout.source}, NUMA node {known.numa}"
    elif options.worker_cores is not None:
        pool, where = list(options.worker_cores), "options.worker_cores"
    else:
        raise UnsupportedCoresError(
            f"{name}: {what} needs a CPU for its main thread and {config.cores} physical "
            f"core(s) for its workers, none of them the DUT's ({dut.text}); with ports on "
            "Linux interfaces no CPU is known to be free: list them in "
            "options.worker_cores after the DUT's"
        )
    busy = {*dut.cpus, *(() if dut.main is None else (dut.main,))}
    spare = {
        core: g
        for core, g in smt.group_by_core(pool, layout).items()
        if not busy & set(_whole(g, layout))
    }
    groups = list(spare.values())
    needed = 1 + config.cores
    if len(groups) < needed:
        left = smt.cores_text(spare)
        raise UnsupportedCoresError(
            f"{name}: {what} needs {needed} physical core(s) of its own, one for its main "
            f"thread and {config.cores} for its workers (as many as the DUT's), and {where} "
            f"leaves {len(groups)} beside the DUT's ({dut.text}): {left}"
        )
    workers = smt.take_cores(
        name, config.cores, [cpu for g in groups[1:] for cpu in g], where, layout,
        smt_used=config.smt,
    )  # fmt: skip
    return smt.plan(groups[0][0], workers, layout, config.smt)


def _whole(group: Sequence[int], layout: smt.CpuLayout | None) -> tuple[int, ...]:
    """Every CPU of the physical core of ``group`` (its own CPUs without a layout)."""
    return tuple(group) if layout is None else layout.siblings(group[0])
