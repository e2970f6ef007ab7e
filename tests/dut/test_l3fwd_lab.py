"""l3fwd's lab set-up (pmd pci, NIC binding, hugepages, over SSH) against a recording access.

``LabHost`` (from lab_host_helpers) records every command and models the
sysfs files the driver touches, so the exact command sequence, the
binding and the hugepage handling are checked as the kernel would answer
them. No NIC is bound and nothing is built here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from lab_host_helpers import (
    BAD_LAB_OPTIONS,
    HUGE_2M,
    MOUNTS,
    NO_HUGE_MOUNTS,
    LabHost,
    check_kernel_ports_start,
    lab_dut_node,
    on_kernel_ports,
    refused_start,
)

from ndrpdr.access.base import CommandError, CommandResult
from ndrpdr.dut.base import DutError, DutPort, DutTestConfig
from ndrpdr.dut.dpdk.l3fwd import L3fwdDriver
from ndrpdr.dut.dpdk.lab import PCI_DEVICES
from ndrpdr.dut.registry import make_dut_driver
from ndrpdr.topology.model import Node

READY = "EAL: Detected 8 lcore(s)\nL3FWD: entering main loop on lcore 0\n"
BINARY = "/opt/dpdk/dpdk-l3fwd"
#: PCI1 (0000:18:00.1) > PCI2 (0000:18:00.0): DPDK makes port1 port id 1, port2 port id 0.
LOW, HIGH = "0000:18:00.0", "0000:18:00.1"


def ports(first: str, second: str) -> tuple[DutPort, DutPort]:
    """port1 at ``first``, port2 at ``second``; port1 routes 198.18.0.0/24, port2 198.18.1.0/24."""
    return (
        DutPort("port1", None, "b4:96:91:00:00:50", first, "b4:96:91:00:00:40",
                "192.168.10.1/24", "192.168.10.2", "198.18.0.0/24"),
        DutPort("port2", None, "b4:96:91:00:00:51", second, "b4:96:91:00:00:41",
                "192.168.20.1/24", "192.168.20.2", "198.18.1.0/24"),
    )  # fmt: skip


IP4 = DutTestConfig(mode="ip4base", ports=ports(LOW, HIGH))


def lab_node(first: str = LOW, second: str = HIGH, **options: Any) -> Node:
    return lab_dut_node("l3fwd", first, second, {"binary": BINARY, **options})


def host_for(*devices: str, **kwargs: Any) -> LabHost:
    drivers: dict[str, str | None] = dict.fromkeys(devices or (LOW, HIGH), "ice")
    return LabHost(drivers, log=READY, **kwargs)


def started(host: LabHost, config: DutTestConfig = IP4, **options: Any) -> L3fwdDriver:
    first, second = (p.pci_address or "" for p in config.ports)
    driver = L3fwdDriver(lab_node(first, second, **options), host)
    driver.configure(config)
    driver.start()
    return driver


def test_the_registry_makes_an_ssh_l3fwd_without_io() -> None:
    host = host_for()
    driver = make_dut_driver(lab_node(), host)
    assert isinstance(driver, L3fwdDriver)
    assert driver.uses_hugepages and not driver.uses_kernel_ports
    assert host.commands == []


def test_pci_start_runs_exactly_these_commands() -> None:
    host = host_for(nets={LOW: ["ens1f0"], HIGH: ["ens1f1"]}, hugepages=0)
    driver = started(host, hugepages=1024, memory_mb=2048, cpu=11)
    prefix = driver.file_prefix
    assert prefix is not None
    dev = PCI_DEVICES

    def write(path: str, value: str) -> list[str]:
        return ["sh", "-c", 'printf "%s\\n" "$1" > "$2"', "sh", value, path]

    expected: list[list[str]] = [
        # configure: both devices exist
        ["test", "-e", f"{dev}/{LOW}"],
        ["test", "-e", f"{dev}/{HIGH}"],
        # start: the CPU, hugepages, then the binding (in-use check first)
        ["nproc", "--all"],
        ["cat", HUGE_2M],
        write(HUGE_2M, "1024"),
        ["cat", HUGE_2M],
        ["cat", "/proc/mounts"],
    ]
    for address, name in ((LOW, "ens1f0"), (HIGH, "ens1f1")):
        expected += [
            ["readlink", f"{dev}/{address}/driver"],
            ["ls", f"{dev}/{address}/net"],
            ["ip", "-o", "route", "show", "dev", name],
        ]
        if address == LOW:
            expected.append(["modprobe", "vfio-pci"])  # once for both devices
        expected += [
            write(f"{dev}/{address}/driver_override", "vfio-pci"),
            write(f"{dev}/{address}/driver/unbind", address),
            write("/sys/bus/pci/drivers_probe", address),
            ["readlink", f"{dev}/{address}/driver"],
        ]
    expected.append(
        ["taskset", "-c", "3", "stdbuf", "-oL", "-eL", BINARY,
         "--lcores", "0@3", "-a", LOW, "-a", HIGH, "--file-prefix", prefix, "-m", "2048",
         "--", "-p", "0x3", "-P", "--lookup=lpm", "--parse-ptype", "--config=(0,0,0),(1,0,0)",
         "--eth-dest=0,b4:96:91:00:00:40", "--eth-dest=1,b4:96:91:00:00:41"]
    )  # fmt: skip
    assert host.commands == expected  # cpu 11 on an 8-CPU node is CPU 3
    assert host.drivers == {LOW: "vfio-pci", HIGH: "vfio-pci"}
    assert host.hugepages == 1024
    driver.health_check()

    host.commands.clear()
    driver.stop()
    assert host.started[0].running is False
    assert host.commands == [
        [
            "sh",
            "-c",
            "for d in $(awk '$3 == \"hugetlbfs\" {print $2}' /proc/mounts); do "
            'rm -f -- "$d/$1"map_*; done',
            "sh",
            prefix,
        ],
        ["rm", "-rf", "--", f"/var/run/dpdk/{prefix}"],
    ]  # fmt: skip  (the binding stays, hugetlbfs was mounted already: nothing else)
    assert host.drivers == {LOW: "vfio-pci", HIGH: "vfio-pci"}


def test_ports_out_of_pci_order_get_the_eth_dest_of_their_dpdk_port_id() -> None:
    # port1 at the higher address is DPDK port 1: it must route 198.18.1.0/24.
    swapped = ports(HIGH, LOW)
    config = DutTestConfig(
        "ip4base",
        (
            dataclasses.replace(swapped[0], routed_prefix="198.18.1.0/24"),
            dataclasses.replace(swapped[1], routed_prefix="198.18.0.0/24"),
        ),
    )
    host = host_for()
    started(host, config).stop()
    argv = host.app_argv()
    assert argv[argv.index("--lcores") : argv.index("--file-prefix")] == [
        "--lcores", "0@1", "-a", HIGH, "-a", LOW,
    ]  # fmt: skip
    assert [a for a in argv if a.startswith("--eth-dest")] == [
        "--eth-dest=0,b4:96:91:00:00:41",  # DPDK port 0 = port2 (0000:18:00.0)
        "--eth-dest=1,b4:96:91:00:00:40",
    ]


def test_a_route_that_does_not_match_the_pci_order_is_refused_before_any_io() -> None:
    host = host_for()
    driver = L3fwdDriver(lab_node(HIGH, LOW), host)
    with pytest.raises(DutError) as raised:
        driver.configure(DutTestConfig("ip4base", ports(HIGH, LOW)))
    message = str(raised.value)
    assert message.startswith(
        "DUT1 (l3fwd): configure: ports[0].routed_prefix 198.18.0.0/24 is outside l3fwd's "
        "built-in route 198.18.1.0/24 -> port 1 (port port1 0000:18:00.1 is DPDK port 1 in "
        "PCI bus order"
    ), message
    assert host.commands == []


def test_restore_driver_and_a_mounted_hugetlbfs_are_undone_at_the_stop() -> None:
    host = host_for(mounts=NO_HUGE_MOUNTS)
    driver = started(host, restore_driver=True)
    assert ["mount", "-t", "hugetlbfs", "-o", "pagesize=2048K", "nodev",
            "/dev/hugepages"] in host.commands  # fmt: skip
    host.writes.clear()
    driver.stop()
    assert host.drivers == {LOW: "ice", HIGH: "ice"}
    assert host.writes == [
        (f"{PCI_DEVICES}/{LOW}/driver_override", ""),
        (f"{PCI_DEVICES}/{LOW}/driver/unbind", LOW),
        ("/sys/bus/pci/drivers/ice/bind", LOW),
        (f"{PCI_DEVICES}/{HIGH}/driver_override", ""),
        (f"{PCI_DEVICES}/{HIGH}/driver/unbind", HIGH),
        ("/sys/bus/pci/drivers/ice/bind", HIGH),
    ]
    assert host.heads("umount") == [["umount", "/dev/hugepages"]]
    assert host.mounts != MOUNTS


def test_bind_driver_none_leaves_the_devices_alone() -> None:
    host = LabHost({LOW: "mlx5_core", HIGH: "mlx5_core"}, log=READY)
    started(host, bind_driver="none").stop()
    assert host.writes == [] and not host.heads("modprobe")


def test_a_port_with_routes_is_not_unbound_and_nothing_starts() -> None:
    host = host_for(nets={HIGH: ["eno1"]}, routes={"eno1": "10.0.0.0/24 proto kernel scope link\n"})
    message = refused_start(host, L3fwdDriver(lab_node(), host), IP4)
    assert message.startswith(f"DUT1 (l3fwd): bind {HIGH} (port port2) to vfio-pci: ")
    assert "interface eno1 has routes" in message and "10.0.0.0/24" in message


def test_a_failed_probe_names_the_iommu() -> None:
    host = host_for(probe_binds=False)
    driver = L3fwdDriver(lab_node(), host)
    refused_start(host, driver, IP4, r"DUT1 \(l3fwd\): bind 0000:18:00\.0 .*IOMMU")
    assert host.drivers == {LOW: "ice", HIGH: "ice"}


def test_hugepages_that_cannot_be_reserved() -> None:
    host = host_for(hugepages=100, max_hugepages=300)
    driver = L3fwdDriver(lab_node(hugepages=512), host)
    refused_start(host, driver, IP4, r"DUT1 \(l3fwd\): reserve hugepages: only 300 of 512")


def test_a_missing_pci_device_or_address_fails_configure() -> None:
    host = host_for(LOW)
    driver = L3fwdDriver(lab_node(), host)
    with pytest.raises(DutError, match=rf"DUT1 \(l3fwd\): configure: port port2: no PCI device "
                       rf"{HIGH} on the node"):  # fmt: skip
        driver.configure(IP4)
    nameless = DutTestConfig(
        "ip4base", (IP4.ports[0], dataclasses.replace(IP4.ports[1], pci_address=None))
    )
    with pytest.raises(DutError, match="port port2 has no pci_address; with pmd pci"):
        driver.configure(nameless)


def test_l2xc_is_refused() -> None:
    with pytest.raises(DutError, match=r"DUT1 \(l3fwd\): configure: l3fwd only routes"):
        L3fwdDriver(lab_node(), host_for()).configure(DutTestConfig("l2xc", IP4.ports))


@pytest.mark.parametrize(
    ("options", "message"),
    [
        *BAD_LAB_OPTIONS,
        ({"forward_mode": "io"}, r"options.forward_mode: unknown option; known: cpu, pmd"),
    ],
)
def test_bad_lab_options(options: dict[str, Any], message: str) -> None:
    with pytest.raises(DutError, match=rf"DUT1 \(l3fwd\): {message}"):
        L3fwdDriver(lab_node(**options), host_for())


def test_af_packet_on_a_lab_host_keeps_the_kernel_off_and_may_use_hugepages() -> None:
    host = LabHost({}, log=READY)
    node, named = on_kernel_ports(lab_node(pmd="af_packet", hugepages=512), IP4)
    driver = L3fwdDriver(node, host)
    driver.configure(named)
    driver.start()
    argv = check_kernel_ports_start(host, 512)
    assert "net_af_packet1,iface=ens2,framecnt=16384" in argv
    assert "--eth-dest=1,b4:96:91:00:00:41" in argv
    driver.stop()
    assert ["nft", "delete", "table", "netdev", "ndrpdr_dut_sink"] in host.commands


class BuildHost(LabHost):
    """A LabHost on which pkg-config finds DPDK 22.11.4 and a cached l3fwd build exists."""

    def run(self, argv: Sequence[str], *, timeout_s: float = 60.0, sudo: bool = False,
            check: bool = True, stdin: str | bytes | None = None,
            env: Mapping[str, str] | None = None) -> CommandResult:  # fmt: skip
        argv = list(argv)
        if argv[0] == "pkg-config" or argv[:2] == ["test", "-x"]:
            self.commands.append(argv)
            out = "22.11.4\n" if argv[1] == "--modversion" else ""
            return CommandResult("DUT1", tuple(argv), 0, out, "", 0.0)
        return super().run(argv, timeout_s=timeout_s, sudo=sudo, check=check, stdin=stdin,
                           env=env)  # fmt: skip


def test_without_binary_the_build_helper_runs_through_the_node_access() -> None:
    host = BuildHost({LOW: "vfio-pci", HIGH: "vfio-pci"}, log=READY)
    node = lab_node(cache_dir="/srv/ndrpdr")
    node = dataclasses.replace(node, options={k: v for k, v in node.options.items()
                                              if k != "binary"})  # fmt: skip
    driver = L3fwdDriver(node, host)
    driver.configure(IP4)
    driver.start()
    binary = "/srv/ndrpdr/l3fwd-22.11.4/l3fwd/build/l3fwd"
    assert driver.binary == binary
    assert host.commands[2:5] == [
        ["pkg-config", "--version"],
        ["pkg-config", "--modversion", "libdpdk"],
        ["test", "-x", binary],
    ]
    assert host.app_argv()[6] == binary
    driver.stop()


def test_a_failing_command_names_node_command_exit_code_and_output_tail() -> None:
    host = host_for()

    def failing_run(argv: Sequence[str], **kwargs: Any) -> CommandResult:
        if argv[0] == "modprobe":
            result = CommandResult("DUT1", tuple(argv), 1, "",
                                   "modprobe: FATAL: Module vfio-pci not found", 0.0)  # fmt: skip
            raise CommandError(result)
        return LabHost.run(host, argv, **kwargs)

    host.run = failing_run  # type: ignore[method-assign]
    message = refused_start(host, L3fwdDriver(lab_node(), host), IP4)
    assert message.startswith("DUT1 (l3fwd): load the vfio-pci module: "), message
    assert "command failed with exit code 1: modprobe vfio-pci" in message
    assert "Module vfio-pci not found" in message


def test_an_l3fwd_that_exits_is_reported_with_its_log_tail() -> None:
    host = host_for(hugepages=2048, exits_at_once=True)
    host.log = "EAL: Detected 8 lcore(s)\nEAL: Cannot use IOVA as 'PA'\nEAL: Error - exiting\n"
    driver = L3fwdDriver(lab_node(), host)
    driver.configure(IP4)
    with pytest.raises(DutError) as raised:
        driver.start()
    message = str(raised.value)
    assert message.startswith(f"DUT1 (l3fwd): start l3fwd: {BINARY} exited before forwarding")
    assert message.endswith("EAL: Cannot use IOVA as 'PA'\nEAL: Error - exiting")
    assert driver.pid is None
    assert host.commands[-1][:3] == ["rm", "-rf", "--"]
    assert host.commands[-1][3].startswith("/var/run/dpdk/ndrpdr-dut1-")
