"""testpmd's lab set-up (pmd pci, NIC binding, hugepages) against a recording access.

``LabHost`` (lab_host_helpers) is a NodeAccess that records every command
and models the few sysfs files the driver touches (which driver a PCI
device is bound to, its ``driver_override``, ``nr_hugepages``,
/proc/mounts), so the binding sequence is checked as the kernel would
answer it. No NIC is bound here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import pytest
from lab_host_helpers import (
    BAD_LAB_OPTIONS,
    HUGE_2M,
    NO_HUGE_MOUNTS,
    LabHost,
    check_kernel_ports_start,
    lab_dut_node,
    on_kernel_ports,
    refused_start,
)

from ndrpdr.dut.base import DutError, DutPort, DutTestConfig
from ndrpdr.dut.dpdk.lab import PCI_DEVICES, dpdk_port_order
from ndrpdr.dut.dpdk.testpmd import TestpmdDriver
from ndrpdr.dut.registry import make_dut_driver
from ndrpdr.topology.model import Node

#: Port 1 has the higher PCI address: DPDK makes it port id 1, port 2 port id 0.
PCI1, PCI2 = "0000:18:00.1", "0000:18:00.0"
PORTS = (
    DutPort("port1", None, "b4:96:91:00:00:50", PCI1, "b4:96:91:00:00:40",
            "192.168.10.1/24", "192.168.10.2", "198.18.0.0/24"),
    DutPort("port2", None, "b4:96:91:00:00:51", PCI2, "b4:96:91:00:00:41",
            "192.168.20.1/24", "192.168.20.2", "198.18.1.0/24"),
)  # fmt: skip
L2 = DutTestConfig(mode="l2xc", ports=PORTS)


def lab_node(extra: Mapping[str, Any] | None = None, **options: Any) -> Node:
    return lab_dut_node("testpmd", PCI1, PCI2, options, extra)


def started_driver(host: LabHost, **options: Any) -> TestpmdDriver:
    driver = TestpmdDriver(lab_node(**options), host)
    driver.configure(L2)
    driver.start()
    return driver


def test_port_ids_follow_the_pci_bus_order() -> None:
    assert dpdk_port_order([PCI1, PCI2]) == (1, 0)
    assert dpdk_port_order(["0000:17:00.0", "0000:b1:00.0"]) == (0, 1)


def test_the_registry_makes_an_ssh_testpmd_without_io() -> None:
    host = LabHost({PCI1: "ice", PCI2: "ice"})
    assert isinstance(make_dut_driver(lab_node(), host), TestpmdDriver)
    assert host.commands == []


def test_pci_start_binds_to_vfio_reserves_hugepages_and_allows_the_devices() -> None:
    host = LabHost({PCI1: "ice", PCI2: "ice"}, nets={PCI1: ["ens1f1"], PCI2: ["ens1f0"]})
    driver = started_driver(host, hugepages=1024, memory_mb=2048, cpu=3)
    assert host.drivers == {PCI1: "vfio-pci", PCI2: "vfio-pci"}
    assert host.hugepages == 1024
    assert host.heads("modprobe") == [["modprobe", "vfio-pci"]]  # once for both devices
    assert host.writes == [
        (HUGE_2M, "1024"),
        (f"{PCI_DEVICES}/{PCI1}/driver_override", "vfio-pci"),
        (f"{PCI_DEVICES}/{PCI1}/driver/unbind", PCI1),
        ("/sys/bus/pci/drivers_probe", PCI1),
        (f"{PCI_DEVICES}/{PCI2}/driver_override", "vfio-pci"),
        (f"{PCI_DEVICES}/{PCI2}/driver/unbind", PCI2),
        ("/sys/bus/pci/drivers_probe", PCI2),
    ]
    assert ["ip", "-o", "route", "show", "dev", "ens1f1"] in host.commands  # in-use check
    argv = host.app_argv()
    assert argv[:7] == ["taskset", "-c", "3", "stdbuf", "-oL", "-eL", "dpdk-testpmd"]
    eal = argv[7 : argv.index("--")]
    assert eal == ["--lcores", "0@3,1@3", "-a", PCI1, "-a", PCI2,
                   "--file-prefix", driver.file_prefix, "-m", "2048"]  # fmt: skip
    # port2 (0000:18:00.0) is DPDK port 0: its frames go to the TG port it faces.
    assert [a for a in argv if a.startswith("--eth-peer")] == [
        "--eth-peer=0,b4:96:91:00:00:41",
        "--eth-peer=1,b4:96:91:00:00:40",
    ]
    # No kernel interface to keep the kernel off: no nft, no sysctl, no ip link.
    assert not host.heads("nft") and not host.heads("sysctl")
    assert not [c for c in host.commands if c[:2] == ["ip", "link"]]
    driver.health_check()
    host.commands.clear()
    host.writes.clear()
    prefix = driver.file_prefix
    driver.stop()
    assert host.started[0].running is False
    assert host.writes == []  # the binding stays (restore_driver false), as in CSIT
    assert host.drivers == {PCI1: "vfio-pci", PCI2: "vfio-pci"}
    assert any(c[:2] == ["sh", "-c"] and c[-1] == prefix for c in host.commands)  # huge files
    assert ["rm", "-rf", "--", f"/var/run/dpdk/{prefix}"] in host.commands
    assert not host.heads("umount")  # hugetlbfs was mounted already


def test_a_second_start_finds_the_devices_bound() -> None:
    host = LabHost({PCI1: "ice", PCI2: "ice"})
    driver = started_driver(host)
    driver.stop()
    host.writes.clear()
    host.commands.clear()
    driver.start()
    assert host.writes == [] and not host.heads("modprobe")
    assert len(host.heads("readlink")) == 2
    driver.stop()


def test_restore_driver_gives_each_device_back_to_its_kernel_driver() -> None:
    host = LabHost({PCI1: "ice", PCI2: None})  # port 2 was unbound
    driver = started_driver(host, restore_driver=True)
    assert (f"{PCI_DEVICES}/{PCI2}/driver/unbind", PCI2) not in host.writes
    host.writes.clear()
    driver.stop()
    assert host.drivers == {PCI1: "ice", PCI2: None}
    assert host.override == {PCI1: None, PCI2: None}
    assert host.writes == [
        (f"{PCI_DEVICES}/{PCI1}/driver_override", ""),
        (f"{PCI_DEVICES}/{PCI1}/driver/unbind", PCI1),
        ("/sys/bus/pci/drivers/ice/bind", PCI1),
        (f"{PCI_DEVICES}/{PCI2}/driver_override", ""),
        (f"{PCI_DEVICES}/{PCI2}/driver/unbind", PCI2),
    ]
    host.writes.clear()
    driver.stop()  # idempotent: nothing more to give back
    assert host.writes == []


def test_a_configure_while_running_still_gives_the_devices_back_at_the_stop() -> None:
    host = LabHost({PCI1: "ice", PCI2: "ice"})
    driver = started_driver(host, restore_driver=True)
    first = driver.pid
    driver.configure(DutTestConfig("ip4base", PORTS))  # restarts testpmd on the same devices
    assert driver.pid is not None and driver.pid != first
    assert host.drivers == {PCI1: "vfio-pci", PCI2: "vfio-pci"}
    driver.stop()
    assert host.drivers == {PCI1: "ice", PCI2: "ice"}
    assert host.override == {PCI1: None, PCI2: None}


def test_devices_bound_already_are_left_alone() -> None:
    host = LabHost({PCI1: "vfio-pci", PCI2: "vfio-pci"})
    driver = started_driver(host, restore_driver=True)
    driver.stop()
    assert host.writes == [] and not host.heads("modprobe")


def test_bind_driver_none_and_the_csit_uio_driver() -> None:
    host = LabHost({PCI1: "mlx5_core", PCI2: "mlx5_core"})
    started_driver(host, bind_driver="none").stop()
    assert host.writes == [] and host.drivers == {PCI1: "mlx5_core", PCI2: "mlx5_core"}
    host = LabHost({PCI1: "ice", PCI2: "ice"})
    driver = TestpmdDriver(lab_node(extra={"uio_driver": "uio_pci_generic"}), host)
    assert driver.bind_driver == "uio_pci_generic"
    driver.configure(L2)
    driver.start()
    assert host.heads("modprobe") == [["modprobe", "uio_pci_generic"]]
    assert host.drivers == {PCI1: "uio_pci_generic", PCI2: "uio_pci_generic"}
    driver.stop()


def test_a_port_with_routes_is_not_unbound() -> None:
    host = LabHost(
        {PCI1: "ice", PCI2: "ice"},
        nets={PCI2: ["eno1"]},
        routes={"eno1": "10.0.0.0/24 proto kernel scope link src 10.0.0.2\n"},
    )
    message = refused_start(host, TestpmdDriver(lab_node(), host), L2)
    assert message.startswith(f"DUT1 (testpmd): bind {PCI2} (port port2) to vfio-pci: ")
    assert "interface eno1 has routes" in message and "10.0.0.0/24" in message
    assert host.drivers[PCI2] == "ice"
    assert host.drivers[PCI1] == "vfio-pci"  # bound before port 2 was refused: stays bound


def test_a_failed_probe_names_the_iommu_gives_the_device_back_and_starts_nothing() -> None:
    host = LabHost({PCI1: "ice", PCI2: "ice"}, probe_binds=False)
    driver = TestpmdDriver(lab_node(), host)  # restore_driver false: a failed bind is undone
    refused_start(host, driver, L2, r"bound to no driver after the probe; see dmesg .*IOMMU")
    assert host.drivers == {PCI1: "ice", PCI2: "ice"}
    assert host.override == {PCI1: None}
    assert host.writes[-2:] == [
        (f"{PCI_DEVICES}/{PCI1}/driver_override", ""),
        ("/sys/bus/pci/drivers/ice/bind", PCI1),
    ]


def test_configure_checks_pci_addresses() -> None:
    host = LabHost({PCI1: "ice"})  # no 0000:18:00.0 on this host
    driver = TestpmdDriver(lab_node(), host)
    with pytest.raises(DutError, match=rf"port port2: no PCI device {PCI2} on the node"):
        driver.configure(L2)
    nameless = DutTestConfig("l2xc", (PORTS[0], dataclasses.replace(PORTS[1], pci_address=None)))
    host.commands.clear()
    with pytest.raises(DutError, match="port port2 has no pci_address; with pmd pci"):
        driver.configure(nameless)
    bad = DutTestConfig("l2xc", (PORTS[0], dataclasses.replace(PORTS[1], pci_address="18:00.0")))
    with pytest.raises(DutError, match=r"'18:00\.0' is not a PCI address"):
        driver.configure(bad)
    same = DutTestConfig("l2xc", (PORTS[0], dataclasses.replace(PORTS[1], pci_address=PCI1)))
    with pytest.raises(DutError, match=f"both ports are PCI device {PCI1}"):
        driver.configure(same)
    assert host.commands == []


def test_hugepages_that_cannot_be_reserved() -> None:
    host = LabHost({PCI1: "ice", PCI2: "ice"}, hugepages=100, max_hugepages=300)
    driver = TestpmdDriver(lab_node(hugepages=512), host)
    refused_start(host, driver, L2, r"reserve hugepages: only 300 of 512 hugepages of 2048 kB")


def test_enough_hugepages_are_never_lowered() -> None:
    host = LabHost({PCI1: "ice", PCI2: "ice"}, hugepages=4096)
    started_driver(host, hugepages=1024).stop()
    assert (HUGE_2M, "1024") not in host.writes
    assert host.hugepages == 4096


def test_hugetlbfs_is_mounted_when_missing_and_unmounted_after() -> None:
    host = LabHost({PCI1: "vfio-pci", PCI2: "vfio-pci"}, mounts=NO_HUGE_MOUNTS)
    driver = started_driver(host)
    assert ["mkdir", "-p", "/dev/hugepages"] in host.commands
    assert ["mount", "-t", "hugetlbfs", "-o", "pagesize=2048K", "nodev",
            "/dev/hugepages"] in host.commands  # fmt: skip
    driver.stop()
    assert host.heads("umount") == [["umount", "/dev/hugepages"]]


def test_af_packet_with_hugepages_keeps_the_kernel_off_the_ports() -> None:
    host = LabHost({})
    node, named = on_kernel_ports(lab_node(pmd="af_packet", hugepages=512), L2)
    driver = TestpmdDriver(node, host)
    driver.configure(named)
    driver.start()
    argv = check_kernel_ports_start(host, 512)
    assert argv[6] == "dpdk-testpmd"
    assert "net_af_packet0,iface=ens1,framecnt=16384" in argv
    assert not host.heads("modprobe")
    driver.stop()


@pytest.mark.parametrize(("options", "message"), BAD_LAB_OPTIONS)
def test_bad_lab_options(options: dict[str, Any], message: str) -> None:
    with pytest.raises(DutError, match=rf"DUT1 \(testpmd\): {message}"):
        TestpmdDriver(lab_node(**options), LabHost({}))


def test_an_unreachable_node_is_a_dut_error_and_telemetry_still_answers() -> None:
    host = LabHost({PCI1: "vfio-pci", PCI2: "vfio-pci"})
    driver = started_driver(host)
    process = host.started[0]
    process.unreachable = True
    unreachable = r"DUT1 \(testpmd\): health check: cannot tell whether dpdk-testpmd \(pid \d+\)"
    with pytest.raises(DutError, match=unreachable):
        driver.health_check()
    telemetry = driver.telemetry()
    assert "unknown (node unreachable)" in telemetry["state"]
    assert "connection to root@10.0.0.2:22 lost" in telemetry["log"]
    with pytest.raises(DutError, match=r"DUT1 \(testpmd\): stop: stop pid 4000: .*lost"):
        driver.stop()
    assert driver.pid is None
    assert "log unavailable" in driver.telemetry()["log"]
    driver.stop()  # nothing left to stop


def test_start_fails_with_a_dut_error_when_the_log_cannot_be_read() -> None:
    host = LabHost(
        {PCI1: "vfio-pci", PCI2: "vfio-pci"}, log="EAL: starting\n", lost_after_start=True
    )
    driver = TestpmdDriver(lab_node(start_timeout_s=5), host)
    driver.configure(L2)
    with pytest.raises(DutError, match=r"DUT1 \(testpmd\): start testpmd: cannot read the log"):
        driver.start()
    assert driver.pid is None
