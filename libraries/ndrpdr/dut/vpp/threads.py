"""Which CPU VPP's main thread and each worker get for one test: CSIT's rule, SMT siblings too.

dpdk ports (a lab host's NICs), no ``worker_cores`` listed: with the
node's CPUs known (``DutTestConfig.cpus``, read from the node) CSIT's
placement (``ndrpdr.dut.smt.csit_cpus``) on the NUMA node of the ports:
the main thread on the first thread of the second physical core (or on
``main_core``), the test's N physical cores after it, each with all its
hardware threads as workers unless ``DutTestConfig.smt`` is false; not
known: ``main_core`` (default 1) and the N CPUs after it.

Listed ``worker_cores`` (the topology's, or this machine's placement) are
used as listed, grouped by physical core (``ndrpdr.dut.smt.take_cores``).
Ports on Linux interfaces with none listed: the core of ``cpu`` (``cpu``
and, with SMT, its siblings but the main thread's CPU).

Pure functions, no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ndrpdr.dut import cores, smt
from ndrpdr.dut.base import DutError, DutTestConfig
from ndrpdr.topology.model import Node

if TYPE_CHECKING:  # config imports this module
    from ndrpdr.dut.vpp.config import VppOptions


def _csit_default(options: VppOptions, config: DutTestConfig) -> bool:
    return options.port_kind == "dpdk" and options.worker_cores is None and config.cpus is not None


def vpp_threads(node: Node, config: DutTestConfig, options: VppOptions) -> smt.ThreadPlan:
    """The main thread's CPU and the workers of ``config.cores`` physical cores.

    UnsupportedCoresError (a skip) when the node has too few; DutError for
    negative cores.
    """
    if config.cores < 0:
        raise DutError(f"{node.key} (vpp): configure: cores {config.cores} is negative")
    name, known = f"{node.key} (vpp)", config.cpus
    layout = known.layout if known is not None else None
    listed = options.worker_cores
    if _csit_default(options, config):
        assert known is not None and layout is not None
        main, free = smt.csit_cpus(layout, known.numa, options.main_core)
        where = f"{layout.source}, NUMA node {layout.numa_of(main)} after the main core {main}"
        workers = smt.take_cores(name, config.cores, free, where, layout, smt_used=config.smt)
        return smt.plan(main, workers, layout, config.smt)
    if listed is None and options.port_kind == "dpdk":
        main = options.dpdk_main_core
        free = tuple(range(main + 1, main + 1 + config.cores))
        workers = smt.take_cores(name, config.cores, free, "options.main_core", None)
        return smt.plan(main, workers, None, config.smt)
    if listed is not None:
        where, cpus = "options.worker_cores", tuple(listed)
    else:
        where, cpus = "options.cpu", smt.whole_core(layout, options.cpu, options.main_core)
    workers = smt.take_cores(name, config.cores, cpus, where, layout, smt_used=config.smt)
    chosen = [worker.cpu for worker in workers]
    return smt.plan(main_cpu(options, chosen, config), workers, layout, config.smt)


def main_cpu(options: VppOptions, workers: Sequence[int], config: DutTestConfig | None) -> int:
    """The CPU of VPP's main thread with ``workers``.

    dpdk ports: CSIT's (``vpp_threads``) when the node's CPUs are known and
    no ``worker_cores`` listed, else ``main_core`` (default 1). Ports on
    Linux interfaces: with no workers ``cpu`` (the main thread forwards),
    else ``main_core`` or the lowest CPU no worker uses.
    """
    if config is not None and _csit_default(options, config):
        assert config.cpus is not None
        return smt.csit_cpus(config.cpus.layout, config.cpus.numa, options.main_core)[0]
    if options.port_kind == "dpdk":
        return options.dpdk_main_core
    if not workers:
        return options.cpu
    return cores.main_cpu(workers, options.main_core)
