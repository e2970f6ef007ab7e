"""CSIT's thread rule on fake SMT nodes: which CPU VPP's main thread, its workers and DPDK's
forwarding lcores get for a test's ``Nc``, the RX queues and the ``2T1C`` / ``MTHREAD`` tags.

The expected CPU lists are written out from a reading of FD.io CSIT's
``CpuUtils.get_affinity_vswitch`` (``cpu_list_per_node_str`` with
``CPU_CNT_SYSTEM`` = ``CPU_CNT_MAIN`` = 1): on a NUMA node whose CPUs are
``first threads + second threads`` (CSIT cuts the list in halves), the main
thread is the second CPU of the first half; the workers of ``Nc`` are the
first-half CPUs ``[2, 2 + N)`` followed by the second-half CPUs at the same
places; ``rxq_count_int`` is the worker count; the tags are
``<dp_count_int>T<cpu_count_int>C`` and ``MTHREAD`` when ``dp_count_int``
> 1. CSIT hard-codes 2 threads a core (``NR_OF_THREADS``), so the 4-thread
and side-by-side cases give CSIT's rule on the node's true siblings (what
CSIT's halves cannot find there), said case by case.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from example_topologies import filled
from ndrpdr.dut.cores import UnsupportedCoresError
from ndrpdr.dut.plan import plan_dut
from ndrpdr.dut.smt import (
    CpuLayout,
    CpuLayoutError,
    NodeCpus,
    csit_cpus,
    parse_lscpu,
    take_cores,
)
from ndrpdr.dut.vpp.config import parse_options, rx_queues
from ndrpdr.dut.vpp.layout import thread_plan
from ndrpdr.dut.vpp.startup import startup_conf
from ndrpdr.topology.loader import load_topology

ROOT = Path(__file__).resolve().parents[2]
CSIT = load_topology(filled("csit-2n-example.yaml"))


def lscpu(rows: list[tuple[int, int, int, int]]) -> str:
    """``lscpu -p=CPU,CORE,SOCKET,NODE``'s output for ``rows`` (with its comment header)."""
    head = "# The following is the parsable format\n# CPU,Core,Socket,Node\n"
    return head + "".join(f"{c},{core},{s},{n}\n" for c, core, s, n in sorted(rows))


def two_sockets_two_threads() -> CpuLayout:
    """2 sockets (NUMA 0 and 1) x 4 cores x 2 threads, Intel's numbering: NUMA 0 has CPUs
    0-3 and their siblings 8-11, NUMA 1 has 4-7 and 12-15."""
    rows = []
    for cpu in range(16):
        core = cpu % 8
        socket = core // 4
        rows.append((cpu, core, socket, socket))
    return parse_lscpu(lscpu(rows), "fake 2x4x2")


def four_threads_apart() -> CpuLayout:
    """1 socket x 4 cores x 4 threads, siblings 4 apart: core k is CPUs k, k+4, k+8, k+12."""
    return parse_lscpu(lscpu([(cpu, cpu % 4, 0, 0) for cpu in range(16)]), "fake 1x4x4")


def four_threads_side_by_side() -> CpuLayout:
    """2 NUMA nodes x 4 cores x 4 threads, siblings side by side (POWER): core k is CPUs
    4k..4k+3; NUMA 0 has cores 0-3 (CPUs 0-15), NUMA 1 cores 4-7 (CPUs 16-31)."""
    return parse_lscpu(lscpu([(c, c // 4, c // 16, c // 16) for c in range(32)]), "fake 2x4x4")


def no_smt() -> CpuLayout:
    """1 socket x 4 cores, one thread each (like this machine, bigger)."""
    return parse_lscpu(lscpu([(cpu, cpu, 0, 0) for cpu in range(4)]), "fake 1x4x1")


def csit_workers(layout: CpuLayout, numa: int, cores: int, smt: bool = True) -> list[int]:
    _main, free = csit_cpus(layout, numa)
    return [w.cpu for w in take_cores("DUT1", cores, free, "x", layout, smt_used=smt)]


def test_lscpu_is_read_with_its_siblings_and_threads_per_core() -> None:
    layout = two_sockets_two_threads()
    assert layout.smt and layout.threads_per_core == 2
    assert layout.siblings(2) == (2, 10) and layout.siblings(13) == (5, 13)
    assert layout.physical_cores(1) == [(4, 12), (5, 13), (6, 14), (7, 15)]
    assert four_threads_apart().siblings(6) == (2, 6, 10, 14)
    assert four_threads_side_by_side().threads_per_core == 4
    assert not no_smt().smt and no_smt().threads_per_core == 1
    assert parse_lscpu("0,0,0,\n1,1,0,\n").numa_of(1) == 0  # no NUMA: lscpu leaves NODE empty


@pytest.mark.parametrize("text", ["", "# only comments\n", "0,0,0\n", "a,0,0,0\n"])
def test_unreadable_lscpu_output_names_its_source(text: str) -> None:
    with pytest.raises(CpuLayoutError, match=r"^DUT1: lscpu"):
        parse_lscpu(text, "DUT1: lscpu")


@pytest.mark.parametrize(
    ("numa", "cores", "smt", "main", "workers", "tag"),
    [
        # CSIT: NUMA 0 list [0,1,2,3 | 8,9,10,11]: main 1, 1c "2,10", 2c "2,3,10,11".
        (0, 1, True, 1, [2, 10], "2T1C"),
        (0, 2, True, 1, [2, 3, 10, 11], "4T2C"),
        # NUMA 1 list [4,5,6,7 | 12,13,14,15]: main 5, 1c "6,14", 2c "6,7,14,15".
        (1, 1, True, 5, [6, 14], "2T1C"),
        (1, 2, True, 5, [6, 7, 14, 15], "4T2C"),
        # ${smt_used} False: the first half only.
        (0, 1, False, 1, [2], "1T1C"),
        (1, 2, False, 5, [6, 7], "2T2C"),
        (0, 0, True, 1, [], "0T0C"),
    ],
)
def test_two_threads_a_core_on_two_numa_nodes_as_csit(
    numa: int, cores: int, smt: bool, main: int, workers: list[int], tag: str
) -> None:
    layout = two_sockets_two_threads()
    assert csit_cpus(layout, numa)[0] == main
    assert csit_workers(layout, numa, cores, smt) == workers
    config = dataclasses.replace(
        plan_dut(CSIT, "ip4base", cores=cores), cpus=NodeCpus(layout, numa), smt=smt
    )
    plan = thread_plan(CSIT.duts[0], config)
    assert (plan.main, list(plan.cpus), plan.tag) == (main, workers, tag)
    assert plan.thread_tag == ("MTHREAD" if len(workers) > 1 else "STHREAD")


@pytest.mark.parametrize(
    ("layout", "numa", "cores", "main", "workers", "tag"),
    [
        # Siblings 4 apart: CSIT's rule (main on core 1, workers from core 2, first threads
        # then seconds...) on the true siblings; CSIT's halves would give 2,10 for 1c.
        (four_threads_apart, 0, 1, 1, [2, 6, 10, 14], "4T1C"),
        (four_threads_apart, 0, 2, 1, [2, 3, 6, 7, 10, 11, 14, 15], "8T2C"),
        # Side by side (core k = 4k..4k+3): main 4 (core 1), 1c is core 2 = 8-11; CSIT's
        # halves would take 2 and 10, no siblings at all.
        (four_threads_side_by_side, 0, 1, 4, [8, 9, 10, 11], "4T1C"),
        (four_threads_side_by_side, 0, 2, 4, [8, 12, 9, 13, 10, 14, 11, 15], "8T2C"),
        (four_threads_side_by_side, 1, 1, 20, [24, 25, 26, 27], "4T1C"),
        # No SMT: CSIT's main 1 and workers 2.. (what the driver did before, unchanged).
        (no_smt, 0, 2, 1, [2, 3], "2T2C"),
    ],
)
def test_four_threads_a_core_and_no_smt(
    layout: Any, numa: int, cores: int, main: int, workers: list[int], tag: str
) -> None:
    config = dataclasses.replace(
        plan_dut(CSIT, "ip4base", cores=cores), cpus=NodeCpus(layout(), numa)
    )
    plan = thread_plan(CSIT.duts[0], config)
    assert (plan.main, list(plan.cpus), plan.tag, plan.thread_tag) == (
        main,
        workers,
        tag,
        "MTHREAD",
    )
    assert {w.core for w in plan.workers} == {layout().siblings(c)[0] for c in workers}


def test_more_cores_than_the_numa_node_has_is_a_skip_naming_them() -> None:
    """CSIT raises for skip + count > the NUMA node's cores (4 here: system, main, 2 left)."""
    config = dataclasses.replace(
        plan_dut(CSIT, "ip4base", cores=3), cpus=NodeCpus(two_sockets_two_threads(), 0)
    )
    with pytest.raises(UnsupportedCoresError, match=r"needs 3 physical cores.*has 2") as info:
        thread_plan(CSIT.duts[0], config)
    assert "[2,10] [3,11]" in str(info.value)


def test_startup_conf_and_rx_queues_follow_the_smt_workers() -> None:
    """startup.conf's cpu section and num-rx-queues: CSIT's 2T1C on NUMA 1 (main 5, workers
    6 and 14, 2 RX queues a port: rxq_count_int = dp_count_int), and 1T1C with smt off."""
    dut = CSIT.duts[0]
    options = parse_options(dut)
    base = plan_dut(CSIT, "ip4base", cores=1)
    smt_on = dataclasses.replace(base, cpus=NodeCpus(two_sockets_two_threads(), 1))
    text = startup_conf(dut, smt_on, options)
    assert "  main-core 5\n  corelist-workers 6,14\n" in text
    assert "num-rx-queues 2" in text
    assert rx_queues(options, thread_plan(dut, smt_on).cpus) == 2
    smt_off = dataclasses.replace(smt_on, smt=False)
    text = startup_conf(dut, smt_off, options)
    assert "  main-core 5\n  corelist-workers 6\n" in text and "num-rx-queues 1" in text


def test_listed_worker_cores_are_grouped_by_physical_core() -> None:
    """A topology's worker_cores are used as listed: 1c takes the first listed CPU's core and
    its listed siblings only; smt off takes the first listed CPU of each core."""
    layout = two_sockets_two_threads()
    dut = dataclasses.replace(CSIT.duts[0], options={"worker_cores": [3, 11, 2, 10]})
    config = dataclasses.replace(plan_dut(CSIT, "ip4base", cores=1), cpus=NodeCpus(layout))
    assert thread_plan(dut, config).cpus == (3, 11)
    assert thread_plan(dut, dataclasses.replace(config, cores=2)).cpus == (3, 2, 11, 10)
    assert thread_plan(dut, dataclasses.replace(config, smt=False, cores=2)).cpus == (3, 2)
    lone = dataclasses.replace(CSIT.duts[0], options={"worker_cores": [3, 2]})
    assert thread_plan(lone, config).tag == "1T1C"  # 3's sibling 11 is not listed


def test_without_a_known_layout_nothing_changes() -> None:
    """No CPUs read (lscpu failed, or a unit test): main 1, workers after it, 1 thread a core."""
    plan = thread_plan(CSIT.duts[0], plan_dut(CSIT, "ip4base", cores=2))
    assert (plan.main, plan.cpus, plan.tag, plan.threads_per_core) == (1, (2, 3), "2T2C", 1)
