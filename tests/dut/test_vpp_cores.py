"""VPP's cores per test: startup.conf's cpu section, RX queues and their placement, the skip.

Pure rendering against topologies/local-vpp.yaml (af_packet, af_xdp) and
csit-2n-example.yaml (dpdk); the real VPP takes these in test_vpp_real.py.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from example_topologies import filled
from ndrpdr.dut.base import DutError, UnsupportedFamilyError
from ndrpdr.dut.cores import UnsupportedCoresError, main_cpu, queue_placement
from ndrpdr.dut.plan import plan_dut
from ndrpdr.dut.smt import take_cores
from ndrpdr.dut.vpp import queues as vpp_queues
from ndrpdr.dut.vpp.afpacket import VppRunPaths, create_commands
from ndrpdr.dut.vpp.afpacket import startup_conf as linux_startup_conf
from ndrpdr.dut.vpp.config import parse_options
from ndrpdr.dut.vpp.startup import startup_conf
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.model import Node

ROOT = Path(__file__).resolve().parents[2]
LOCAL = load_topology(ROOT / "topologies" / "local-vpp.yaml")
CSIT = load_topology(filled("csit-2n-example.yaml"))


def node(topology: Any = LOCAL, **options: Any) -> Node:
    dut = topology.duts[0]
    return dataclasses.replace(dut, options={**dut.options, **options})


def cpu_section(text: str) -> list[str]:
    lines = text.splitlines()
    start = lines.index("cpu {")
    return [line.strip() for line in lines[start + 1 : lines.index("}", start)]]


@pytest.mark.parametrize(
    ("options", "cores", "section"),
    [
        ({}, 0, ["main-core 1"]),  # no workers: the main thread forwards on cpu
        ({}, 1, ["main-core 0", "corelist-workers 1"]),  # main moves off the worker's CPU
        ({"cpu": 0}, 1, ["main-core 1", "corelist-workers 0"]),
        ({"worker_cores": [1, 2, 3]}, 2, ["main-core 0", "corelist-workers 1-2"]),
        ({"worker_cores": [3, 1]}, 2, ["main-core 0", "corelist-workers 1,3"]),
        ({"worker_cores": [2, 3], "main_core": 1}, 2, ["main-core 1", "corelist-workers 2-3"]),
    ],
)
def test_af_packet_cpu_section_per_cores(
    options: dict[str, Any], cores: int, section: list[str]
) -> None:
    dut = node(**options)
    config = plan_dut(LOCAL, "ip4base", cores=cores)
    text = linux_startup_conf(dut, config, parse_options(dut), VppRunPaths("/tmp/x"))
    assert cpu_section(text) == section
    assert f"# {cores} worker(s)" in text


def test_more_cores_than_worker_cpus_is_a_skip_naming_the_cpus() -> None:
    dut = node()
    config = plan_dut(LOCAL, "ip4base", cores=2)
    with pytest.raises(UnsupportedCoresError) as caught:
        linux_startup_conf(dut, config, parse_options(dut), VppRunPaths("/tmp/x"))
    assert str(caught.value) == (
        "DUT1 (vpp) needs 2 CPUs for 2 workers (and one more for its main thread), "
        "and has 1 for workers (options.cpu: [1])"
    )
    assert isinstance(caught.value, UnsupportedFamilyError)  # the keywords skip it


@pytest.mark.parametrize(("cores", "workers"), [(1, "2"), (2, "2-3"), (4, "2-5")])
def test_dpdk_ports_get_one_rx_queue_per_worker(cores: int, workers: str) -> None:
    dut = node(CSIT)
    text = startup_conf(dut, plan_dut(CSIT, "ip4base", cores=cores), parse_options(dut))
    assert cpu_section(text) == ["main-core 1", f"corelist-workers {workers}"]
    # once, in dev default, which every port of the section takes
    assert f"  dev default {{\n    num-rx-queues {cores}\n  }}\n" in text
    assert text.count("num-rx-queues") == 1


def test_af_packet_ports_get_queues_pinned_to_the_workers() -> None:
    config = plan_dut(LOCAL, "ip4base", cores=2)
    commands = create_commands(config, "polling", "af_packet", workers=2, rx_queues=2)
    assert commands[0] == (
        "create host-interface name dut-if1 hw-addr 02:00:00:00:01:02 "
        "num-rx-queues 2 num-tx-queues 2"
    )
    placement = [c for c in commands if "rx-placement" in c]
    assert placement == [
        "set interface rx-placement host-dut-if1 queue 0 worker 0",
        "set interface rx-placement host-dut-if1 queue 1 worker 1",
        "set interface rx-placement host-dut-if2 queue 0 worker 0",
        "set interface rx-placement host-dut-if2 queue 1 worker 1",
    ]
    # rx-mode before placement: each queue is set up before a worker takes it
    assert max(commands.index(c) for c in commands if "rx-mode" in c) < commands.index(placement[0])


def test_af_xdp_ports_ask_for_one_socket_per_queue() -> None:
    config = plan_dut(LOCAL, "ip4base", cores=1)
    commands = create_commands(config, "polling", "af_xdp", workers=1, rx_queues=3)
    assert (
        commands[0] == "create interface af_xdp host-if dut-if1 num-rx-queues 3 name host-dut-if1"
    )
    assert "set interface rx-placement host-dut-if2 queue 2 worker 0" in commands


def test_no_workers_no_placement() -> None:
    config = plan_dut(LOCAL, "ip4base", cores=0)
    commands = create_commands(config)
    assert not [c for c in commands if "rx-placement" in c]
    assert "num-rx-queues 1 num-tx-queues 1" in commands[0]


def test_memif_queue_words_for_other_families() -> None:
    assert vpp_queues.memif_queue_words(2, 2) == "rx-queues 2 tx-queues 2"
    assert vpp_queues.memif_queue_words(1, 0) == "rx-queues 1 tx-queues 1"
    assert vpp_queues.rx_placement_commands("memif1/1", 2, 1) == [
        "set interface rx-placement memif1/1 queue 0 worker 0",
        "set interface rx-placement memif1/1 queue 1 worker 0",
    ]


def test_helpers() -> None:
    assert [w.cpu for w in take_cores("DUT1", 2, [5, 3, 7], "x")] == [5, 3]
    assert take_cores("DUT1", 0, [], "x") == ()
    with pytest.raises(ValueError, match="cores -1 is negative"):
        take_cores("DUT1", -1, [1], "x")
    assert main_cpu([1]) == 0 and main_cpu([0, 1, 3]) == 2 and main_cpu([0], 5) == 5
    assert main_cpu([5], 5) == 0  # a worker's CPU is never the main thread's
    assert queue_placement(5, 2) == [0, 1, 0, 1, 0] and queue_placement(2, 0) == [0, 0]


def test_main_core_on_the_forwarding_cpu_is_refused() -> None:
    with pytest.raises(DutError, match=r"options.main_core: 1 is the CPU of the first worker"):
        parse_options(node(main_core=1))
