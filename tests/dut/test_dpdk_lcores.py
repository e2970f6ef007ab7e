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
from ndrpdr.dut.dpdk.l3fwd import L3fwdDriver
from ndrpdr.dut.dpdk.testpmd import TestpmdDriver

PCI1, PCI2 = "0000:18:00.0", "0000:18:00.1"
L3FWD_READY = "L3FWD: entering main loop on lcore 0\n"
PORTS = (
    DutPort("port1", None, "b4:96:91:00:00:50", PCI1, "b4:96:91:00:00:40",
            "192.168.10.1/24", "192.168.10.2", "198.18.0.0/24"),
    DutPort("port2", None, "b4:96:91:00:00:51", PCI2, "b4:96:91:00:00:41",
            "192.168.20.1/24", "192.168.20.2", "198.18.1.0/24"),
)  # fmt: skip


def started(kind: str, cores: int, kernel: bool = False, **options: Any) -> list[str]:
    """The argv the driver starts for ``cores`` (pmd pci, or af_packet vdevs with ``kernel``)."""
    node = lab_dut_node(kind, PCI1, PCI2, {"cpu": 3, **options})
    config = DutTestConfig("ip4base", PORTS, cores=cores)
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
