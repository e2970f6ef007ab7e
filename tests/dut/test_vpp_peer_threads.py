"""The memif families' second VPP as FD.io CSIT's container: its CPUs, startup.conf and queues.

Pure rendering (no VPP): fake nodes whose CPUs are a made-up ``lscpu``
list (with and without SMT), the dpdk ports of csit-2n-example.yaml
(CSIT's placement) and the af_packet ports of local-vpp.yaml (listed
``worker_cores``, as this machine's placement writes them). What CSIT
does (``CpuUtils.get_affinity_nf`` with the DUT's core count): the
container's main thread on the physical core after the DUT's workers,
its workers on as many cores after that, every SMT thread of each.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from example_topologies import filled
from ndrpdr.dut.base import DutTestConfig, UnsupportedFamilyError
from ndrpdr.dut.cores import UnsupportedCoresError
from ndrpdr.dut.plan import plan_dut
from ndrpdr.dut.smt import CpuLayout, NodeCpus, parse_lscpu
from ndrpdr.dut.vpp.config import parse_options
from ndrpdr.dut.vpp.family import fill_queues, peer_commands
from ndrpdr.dut.vpp.memory import CSIT_PEER_BUFFERS, StartupSizing, size_peer, size_startup
from ndrpdr.dut.vpp.peer import PeerPlan, peer_telemetry, startup_conf
from ndrpdr.dut.vpp.peerthreads import peer_threads
from ndrpdr.dut.vpp.threads import vpp_threads
from ndrpdr.families import get_family
from ndrpdr.results.record import cpus_section
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.model import Node

ROOT = Path(__file__).resolve().parents[2]
LOCAL = load_topology(ROOT / "topologies" / "local-vpp.yaml")
CSIT = load_topology(filled("csit-2n-example.yaml"))
FAMILY = "eth-l2xcbase-eth-2memif-1dcr"


def layout(cores: int, threads: int) -> CpuLayout:
    """One NUMA node of ``cores`` physical cores; with 2 threads the siblings are N apart."""
    rows = [f"{c + t * cores},{c},0,0" for t in range(threads) for c in range(cores)]
    return parse_lscpu("\n".join(rows), f"fake 1x{cores}x{threads}")


def node(topology: Any, **options: Any) -> Node:
    dut = topology.duts[0]
    return dataclasses.replace(dut, options={**dut.options, **options})


def config(topology: Any, cores: int, cpus: CpuLayout | None = None) -> DutTestConfig:
    planned = plan_dut(topology, "ip4base", cores=cores)
    known = None if cpus is None else NodeCpus(cpus, 0)
    return dataclasses.replace(planned, family=get_family(FAMILY).setup, cpus=known)


def section(text: str, name: str) -> list[str]:
    lines = text.splitlines()
    start = lines.index(f"{name} {{")
    return [line.strip() for line in lines[start + 1 : lines.index("}", start)]]


@pytest.mark.parametrize(
    ("cores", "threads", "dut_main", "dut_workers", "main", "workers"),
    [
        # CSIT on 8 cores without SMT: system core 0, DUT main 1, DUT workers, then the peer
        (1, 1, 1, (2,), 3, (4,)),
        (2, 1, 1, (2, 3), 4, (5, 6)),
        # with SMT (siblings 8 apart): each core gives both threads, the main's sibling idles
        (1, 2, 1, (2, 10), 3, (4, 12)),
        (2, 2, 1, (2, 3, 10, 11), 4, (5, 6, 13, 14)),
    ],
)
def test_csit_placement_puts_the_peer_on_the_cores_after_the_duts_workers(
    cores: int,
    threads: int,
    dut_main: int,
    dut_workers: tuple[int, ...],
    main: int,
    workers: tuple[int, ...],
) -> None:
    dut = node(CSIT)
    cfg = config(CSIT, cores, layout(8, threads))
    options = parse_options(dut)
    own = vpp_threads(dut, cfg, options)
    assert (own.main, own.cpus) == (dut_main, dut_workers)
    peer = peer_threads(dut, cfg, options)
    assert (peer.main, peer.cpus) == (main, workers)
    assert peer.threads == own.threads  # as many workers as the DUT's
    assert peer.tag == own.tag


def test_listed_worker_cores_give_the_peer_the_cores_the_dut_leaves() -> None:
    dut = node(LOCAL, worker_cores=[1, 2, 3, 4, 5])
    options = parse_options(dut)
    one = peer_threads(dut, config(LOCAL, 1), options)
    assert (one.main, one.cpus) == (2, (3,))  # DUT: main 0, worker 1
    two = peer_threads(dut, config(LOCAL, 2), options)
    assert (two.main, two.cpus) == (3, (4, 5))  # DUT: workers 1, 2
    smt_cpus = layout(4, 2)  # cores [0,4] [1,5] [2,6] [3,7]
    listed = node(LOCAL, worker_cores=[1, 5, 2, 6, 3, 7])
    peer = peer_threads(listed, config(LOCAL, 1, smt_cpus), parse_options(listed))
    assert (peer.main, peer.cpus) == (2, (3, 7))  # the main's core is whole, 6 idles


def test_the_peer_never_shares_a_cpu_with_the_dut() -> None:
    for cores, threads in ((1, 1), (2, 1), (1, 2), (2, 2), (4, 2)):
        dut = node(CSIT)
        cfg = config(CSIT, cores, layout(16, threads))
        own = vpp_threads(dut, cfg, parse_options(dut))
        peer = peer_threads(dut, cfg, parse_options(dut))
        assert peer.main is not None and own.main is not None
        assert not {own.main, *own.cpus} & {peer.main, *peer.cpus}, (cores, threads)


def test_a_node_without_cpus_for_the_peer_skips_naming_them() -> None:
    # this machine's placement on 2 CPUs: TG on 0, the DUT's worker on 1, main on 0
    dut = node(LOCAL, worker_cores=[1])
    with pytest.raises(UnsupportedCoresError) as caught:
        peer_threads(dut, config(LOCAL, 1), parse_options(dut))
    message = str(caught.value)
    assert isinstance(caught.value, UnsupportedFamilyError)  # the keywords skip it
    assert message.startswith("DUT1 (vpp): the second VPP of a memif family")
    assert "needs 2 physical core(s) of its own" in message
    assert "options.worker_cores leaves 0" in message
    assert "main cpu 0; workers cpu 1" in message  # the DUT's CPUs are named


def test_csit_placement_on_a_small_numa_node_skips() -> None:
    dut = node(CSIT)  # 1c: system, DUT main, DUT worker, peer main, peer worker: 5 cores
    with pytest.raises(UnsupportedCoresError, match="leaves 1 beside the DUT's"):
        peer_threads(dut, config(CSIT, 1, layout(4, 2)), parse_options(dut))
    assert peer_threads(dut, config(CSIT, 1, layout(5, 2)), parse_options(dut)).main == 3


def test_linux_ports_without_listed_cpus_skip_and_say_what_to_list() -> None:
    dut = node(LOCAL)
    with pytest.raises(UnsupportedCoresError, match=r"list them in options\.worker_cores"):
        peer_threads(dut, config(LOCAL, 1), parse_options(dut))


def sizing() -> StartupSizing:
    return size_startup(None, lab_nics=True, smt=True)


@pytest.mark.parametrize(("cores", "threads"), [(1, 1), (2, 1), (1, 2), (2, 2)])
def test_the_peer_startup_conf_is_csits_container(cores: int, threads: int) -> None:
    dut = node(CSIT)
    cfg = config(CSIT, cores, layout(12, threads))
    plan = PeerPlan(
        peer_threads(dut, cfg, parse_options(dut)), cores * threads, size_peer(sizing())
    )
    text = startup_conf("/tmp/peer-1", "peer-1", plan)
    workers = plan.threads.cpus
    assert len(workers) == cores * threads
    assert section(text, "cpu")[0] == f"main-core {plan.threads.main}"
    assert section(text, "cpu")[1].startswith("corelist-workers ")
    assert "poll-sleep-usec" not in text  # it polls, as CSIT's
    assert section(text, "memory") == [
        "main-heap-size 2G",
        "main-heap-page-size 2M",
        "default-hugepage-size 2M",
    ]
    assert section(text, "statseg") == [
        "socket-name /tmp/peer-1/stats.sock",
        "size 2G",
        "page-size 2M",
        "per-node-counters on",
    ]
    assert section(text, "buffers") == [f"buffers-per-numa {CSIT_PEER_BUFFERS}"]
    assert section(text, "plugins") == [
        "plugin default { disable }",
        "plugin memif_plugin.so { enable }",
        "plugin perfmon_plugin.so { enable }",
    ]
    assert "ip6 {" not in text
    for line in ("runtime-dir /tmp/peer-1", "cli-listen /tmp/peer-1/cli.sock"):
        assert line in text


def test_the_peer_memory_scales_with_the_duts() -> None:
    from ndrpdr.dut.vpp.memory import NodeMemory

    small = size_startup(NodeMemory(2048, 0, 2048), lab_nics=False, smt=False)
    assert small.scaled
    peer = size_peer(small)
    assert peer.page_kb == 4 and peer.main_heap_mb < 2048 and peer.statseg_mb < 2048
    assert peer.buffers < CSIT_PEER_BUFFERS
    assert all("as the DUT's statseg size" in line for line in peer.scaled)
    text = startup_conf(
        "/tmp/p",
        "p",
        PeerPlan(vpp_threads(node(LOCAL), config(LOCAL, 1), parse_options(node(LOCAL))), 1, peer),
    )
    assert "page-size 4k" in section(text, "buffers")[-1]


@pytest.mark.parametrize("family", [FAMILY, "ethip4-ip4base-eth-2memif-1dcr"])
@pytest.mark.parametrize("queues", [1, 2, 4])
def test_memif_queues_are_the_same_on_both_sides(family: str, queues: int) -> None:
    cfg = dataclasses.replace(config(LOCAL, 1), family=get_family(family).setup)
    vpp = get_family(family).setup.vpp
    assert vpp is not None
    dut_lines = [fill_queues(line, queues) for line in vpp.commands(cfg, ("a", "b"))]
    peer_lines = [fill_queues(line, queues) for line in peer_commands(cfg)]
    for lines, role in ((dut_lines, "master"), (peer_lines, "slave")):
        made = [line for line in lines if line.startswith("create interface memif ")]
        assert len(made) == 2
        for line in made:
            assert f" {role} " in line
            assert f" rx-queues {queues} tx-queues {queues} " in line


def test_the_record_carries_the_peers_thread_plan() -> None:
    dut = node(CSIT)
    cfg = config(CSIT, 2, layout(12, 2))
    plan = PeerPlan(peer_threads(dut, cfg, parse_options(dut)), 4, size_peer(sizing()))
    texts = peer_telemetry(None, plan)
    assert texts["peer_cpu_layout"].startswith("second VPP 4T2C: main cpu 4; workers cpu 5")
    assert texts["peer_cpu_layout"].endswith("4 memif queue(s) each way")
    section_ = cpus_section({"DUT1": texts})
    assert section_ is not None
    entry = section_["duts"][0]
    assert entry["peer_thread_plan"] == json.loads(texts["cpu_peer_threads"])
    assert entry["peer_thread_plan"]["main_cpu"] == 4
    assert [w["cpu"] for w in entry["peer_thread_plan"]["workers"]] == [5, 6, 17, 18]
    assert peer_telemetry(None, None) == {}
