"""testpmd's and l3fwd's lcores and queues per test cores, on a recording lab host.

The command lines are what the drivers start (``LabHost`` records them);
the real apps take them in test_dut_testpmd.py / test_dut_l3fwd.py.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from lab_host_helpers import READY, LabHost, lab_dut_node, on_kernel_ports

from ndrpdr.dut.base import DutPort, DutTestConfig, UnsupportedFamilyError
from ndrpdr.dut.cores import UnsupportedCoresError
from ndrpdr.dut.dpdk import lcores as dpdk_lcores
from ndrpdr.dut.dpdk.l3fwd import DESCRIPTION as L3FWD
from ndrpdr.dut.dpdk.l3fwd import L3fwdDriver
from ndrpdr.dut.dpdk.testpmd import DESCRIPTION as TESTPMD
from ndrpdr.dut.dpdk.testpmd import TestpmdDriver
from ndrpdr.dut.smt import NodeCpus, parse_lscpu

PCI1, PCI2 = "0000:18:00.0", "0000:18:00.1"
DESCRIPTIONS = {"testpmd": TESTPMD, "l3fwd": L3FWD}
L3FWD_READY = "L3FWD: entering main loop on lcore 0\n"
PORTS = (
    DutPort("port1", None, "b4:96:91:00:00:50", PCI1, "b4:96:91:00:00:40",
            "192.168.10.1/24", "192.168.10.2", "198.18.0.0/24"),
    DutPort("port2", None, "b4:96:91:00:00:51", PCI2, "b4:96:91:00:00:41",
            "192.168.20.1/24", "192.168.20.2", "198.18.1.0/24"),
)  # fmt: skip


def started(
    kind: str, cores: int, kernel: bool = False, cpus: NodeCpus | None = None, **options: Any
) -> list[str]:
    """The argv the driver starts for ``cores`` (pmd pci, or af_packet vdevs with ``kernel``;
    ``cpus``: the node's CPUs as read from it, None: not known)."""
    node = lab_dut_node(kind, PCI1, PCI2, {"cpu": 3, **options})
    config = DutTestConfig("ip4base", PORTS, cores=cores, cpus=cpus)
    log = READY if kind == "testpmd" else L3FWD_READY
    if kernel:
        node, config = on_kernel_ports(node, config)
        node = dataclasses.replace(node, options={**node.options, "pmd": "af_packet"})
        config = dataclasses.replace(config, cores=cores)
        host = LabHost({}, log=log)
    else:
        host = LabHost(
            {PCI1: "ice", PCI2: "ice"}, nets={PCI1: ["ens1f0"], PCI2: ["ens1f1"]}, log=log
        )
    driver_class = TestpmdDriver if kind == "testpmd" else L3fwdDriver
    driver = driver_class(node, host)
    driver.configure(config)
    driver.start()
    argv = host.app_argv()
    driver.stop()
    return argv


def test_the_lcore_strings() -> None:
    assert dpdk_lcores.testpmd_lcores([3]) == "0@3,1@3"  # main lcore shares the forwarding CPU
    assert dpdk_lcores.testpmd_lcores([3, 5]) == "0@3,1@3,2@5"
    assert dpdk_lcores.l3fwd_lcores([3, 5]) == "0@3,1@5"
    assert dpdk_lcores.l3fwd_config([3]) == "(0,0,0),(1,0,0)"
    assert dpdk_lcores.l3fwd_config([3, 5]) == "(0,0,0),(1,0,0),(0,1,1),(1,1,1)"


@pytest.mark.parametrize(("cores", "lcores", "cpus"), [(0, "0@3,1@3", "3"), (1, "0@3,1@3", "3"),
                                                       (2, "0@3,1@3,2@4", "3-4")])  # fmt: skip
def test_testpmd_gets_a_forwarding_lcore_and_a_queue_pair_per_core(
    cores: int, lcores: str, cpus: str
) -> None:
    argv = started("testpmd", cores, worker_cores=[3, 4])
    assert argv[:3] == ["taskset", "-c", cpus]
    assert argv[argv.index("--lcores") + 1] == lcores
    count = max(cores, 1)
    assert f"--nb-cores={count}" in argv and f"--rxq={count}" in argv and f"--txq={count}" in argv


def test_l3fwd_polls_queue_q_of_each_port_on_lcore_q() -> None:
    argv = started("l3fwd", 2, worker_cores=[3, 6], binary="/opt/l3fwd")
    assert argv[:3] == ["taskset", "-c", "3,6"]
    assert argv[argv.index("--lcores") + 1] == "0@3,1@6"
    assert "--config=(0,0,0),(1,0,0),(0,1,1),(1,1,1)" in argv


def test_vdev_ports_get_as_many_queue_pairs() -> None:
    argv = started("testpmd", 2, kernel=True, worker_cores=[3, 4])
    vdevs = [argv[i + 1] for i, arg in enumerate(argv) if arg == "--vdev"]
    assert vdevs and all(v.endswith(",qpairs=2") for v in vdevs), vdevs
    one = started("testpmd", 1, kernel=True)
    assert not [a for a in one if "qpairs" in a]


@pytest.mark.parametrize("kind", ["testpmd", "l3fwd"])
def test_more_cores_than_cpus_is_a_skip_before_anything_runs(kind: str) -> None:
    node = lab_dut_node(kind, PCI1, PCI2, {"cpu": 3, "binary": "/opt/app"})
    host = LabHost({PCI1: "ice", PCI2: "ice"})
    driver_class = TestpmdDriver if kind == "testpmd" else L3fwdDriver
    with pytest.raises(UnsupportedCoresError) as caught:
        driver_class(node, host).configure(DutTestConfig("ip4base", PORTS, cores=2))
    assert str(caught.value) == (
        f"DUT1 ({kind}) needs 2 CPUs for 2 workers (and one more for its main thread), "
        "and has 1 for workers (options.cpu: [3])"
    )
    assert isinstance(caught.value, UnsupportedFamilyError) and host.commands == []


#: 1 socket x 4 cores x 2 threads, Intel's numbering: CPU k and k+4 are one core's threads.
SMT = NodeCpus(parse_lscpu("".join(f"{c},{c % 4},0,0\n" for c in range(8)), "fake 1x4x2"))


def test_testpmd_on_smt_forwards_on_both_threads_of_the_core() -> None:
    """1c on a 2-thread node: the core of ``cpu`` 3 with its sibling 7, two forwarding lcores
    and two queue pairs a port (CSIT's rxq_count_int); 2c takes the listed cores whole."""
    argv = started("testpmd", 1, cpus=SMT)
    assert argv[:3] == ["taskset", "-c", "3,7"]
    assert argv[argv.index("--lcores") + 1] == "0@3,1@3,2@7"
    assert "--nb-cores=2" in argv and "--rxq=2" in argv and "--txq=2" in argv
    argv = started("testpmd", 2, cpus=SMT, worker_cores=[2, 6, 3, 7])
    assert argv[argv.index("--lcores") + 1] == "0@2,1@2,2@3,3@6,4@7"
    assert "--nb-cores=4" in argv and "--rxq=4" in argv


def test_l3fwd_on_smt_polls_a_queue_of_each_port_on_each_sibling() -> None:
    argv = started("l3fwd", 1, cpus=SMT, binary="/opt/l3fwd")
    assert argv[argv.index("--lcores") + 1] == "0@3,1@7"
    assert "--config=(0,0,0),(1,0,0),(0,1,1),(1,1,1)" in argv


@pytest.mark.parametrize("kind", ["testpmd", "l3fwd"])
def test_smt_off_keeps_one_lcore_a_core(kind: str) -> None:
    node = lab_dut_node(kind, PCI1, PCI2, {"cpu": 3, "binary": "/opt/app"})
    config = DutTestConfig("ip4base", PORTS, cores=1, cpus=SMT, smt=False)
    plan = DESCRIPTIONS[kind].threads(node, config)
    assert (plan.cpus, plan.tag, plan.thread_tag) == ((3,), "1T1C", "STHREAD")
    plan = DESCRIPTIONS[kind].threads(node, dataclasses.replace(config, smt=True))
    assert (plan.cpus, plan.tag, plan.thread_tag) == ((3, 7), "2T1C", "MTHREAD")
