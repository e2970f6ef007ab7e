"""testpmd's lab set-up (pmd pci, NIC binding, hugepages) against a recording access.

``LabHost`` is a NodeAccess that records every command and models the few
sysfs files the driver touches (which driver a PCI device is bound to, its
``driver_override``, ``nr_hugepages``, /proc/mounts), so the binding
sequence is checked as the kernel would answer it. No NIC is bound here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from ndrpdr.access.base import CommandError, CommandResult, NodeAccessError
from ndrpdr.dut.base import DutError, DutPort, DutTestConfig
from ndrpdr.dut.dpdk_lab import PCI_DEVICES, dpdk_port_order
from ndrpdr.dut.registry import make_dut_driver
from ndrpdr.dut.testpmd import TestpmdDriver
from ndrpdr.testbed.model import Interface, Node, SshAccess

READY = "Press enter to exit\nio packet forwarding - ports=2 - cores=1\n"
HUGE_2M = "/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"
MOUNTS = "sysfs /sys sysfs rw 0 0\nhugetlbfs /dev/hugepages hugetlbfs rw,pagesize=2M 0 0\n"
NO_HUGE_MOUNTS = "sysfs /sys sysfs rw 0 0\n"
#: Port 1 has the higher PCI address: DPDK makes it port id 1, port 2 port id 0.
PCI1, PCI2 = "0000:18:00.1", "0000:18:00.0"
PORTS = (
    DutPort("port1", None, "b4:96:91:00:00:50", PCI1, "b4:96:91:00:00:40",
            "192.168.10.1/24", "192.168.10.2", "198.18.0.0/24"),
    DutPort("port2", None, "b4:96:91:00:00:51", PCI2, "b4:96:91:00:00:41",
            "192.168.20.1/24", "192.168.20.2", "198.18.1.0/24"),
)  # fmt: skip
L2 = DutTestConfig(mode="l2xc", ports=PORTS)


class Process:
    """A started process; ``unreachable`` makes every call fail as over a lost SSH link."""

    def __init__(self, pid: int, log: str) -> None:
        self.pid = pid
        self.log = log
        self.running = True
        self.unreachable = False

    def _check(self) -> None:
        if self.unreachable:
            raise NodeAccessError("DUT1: SSH connection to root@10.0.0.2:22 lost")

    def is_running(self) -> bool:
        self._check()
        return self.running

    def stop(self, timeout_s: float = 10.0) -> int | None:
        self._check()
        self.running = False
        return 0

    def output(self) -> str:
        self._check()
        return self.log


@dataclasses.dataclass
class LabHost:
    """A recording NodeAccess modelling a lab host's PCI drivers, hugepages and mounts."""

    drivers: dict[str, str | None]
    nets: dict[str, list[str]] = dataclasses.field(default_factory=dict)
    routes: dict[str, str] = dataclasses.field(default_factory=dict)
    hugepages: int = 0
    max_hugepages: int = 1 << 20
    mounts: str = MOUNTS
    probe_binds: bool = True
    log: str = READY
    commands: list[list[str]] = dataclasses.field(default_factory=list)
    writes: list[tuple[str, str]] = dataclasses.field(default_factory=list)
    started: list[Process] = dataclasses.field(default_factory=list)
    override: dict[str, str | None] = dataclasses.field(default_factory=dict)
    kernel_driver: dict[str, str | None] = dataclasses.field(default_factory=dict)

    def __post_init__(self) -> None:
        self.kernel_driver = dict(self.drivers)

    @property
    def node(self) -> str:
        return "DUT1"

    def run(self, argv: Sequence[str], *, timeout_s: float = 60.0, sudo: bool = False,
            check: bool = True, stdin: str | bytes | None = None,
            env: Mapping[str, str] | None = None) -> CommandResult:  # fmt: skip
        assert sudo, f"not as root: {argv}"
        argv = list(argv)
        self.commands.append(argv)
        code, out = self._answer(argv)
        result = CommandResult("DUT1", tuple(argv), code, out, "" if code == 0 else "failed", 0.0)
        if code and check:
            raise CommandError(result)
        return result

    def _answer(self, argv: list[str]) -> tuple[int, str]:
        head = argv[0]
        if head == "nproc":
            return 0, "8\n"
        if head == "test":
            address = argv[2].rsplit("/", 1)[-1]
            return (0 if address in self.drivers else 1), ""
        if head == "readlink":
            driver = self.drivers.get(argv[1].split("/")[-2])
            return (0, f"../../../bus/pci/drivers/{driver}\n") if driver else (1, "")
        if head == "ls":
            names = self.nets.get(argv[1].split("/")[-2])
            return (0, "\n".join(names) + "\n") if names else (2, "")
        if argv[:4] == ["ip", "-o", "route", "show"]:
            return 0, self.routes.get(argv[-1], "")
        if head == "cat" and argv[1] == HUGE_2M:
            return 0, f"{self.hugepages}\n"
        if head == "cat" and argv[1] == "/proc/mounts":
            return 0, self.mounts
        if head == "mount":
            self.mounts += "nodev /dev/hugepages hugetlbfs rw 0 0\n"
        if argv[:2] == ["sh", "-c"] and argv[2].startswith("printf") and len(argv) == 6:
            self._write(argv[5], argv[4])  # sh -c 'printf ... > "$2"' sh VALUE PATH
        return 0, ""

    def _write(self, path: str, value: str) -> None:
        """Apply a sysfs write as the kernel would."""
        self.writes.append((path, value))
        parts = path.split("/")
        if path.endswith("/driver_override"):
            self.override[parts[-2]] = value or None
        elif path.endswith("/driver/unbind"):
            assert parts[-3] == value and self.drivers[value] is not None
            self.drivers[value] = None
        elif path == "/sys/bus/pci/drivers_probe":
            if self.drivers[value] is None:
                wanted = self.override.get(value) or self.kernel_driver[value]
                self.drivers[value] = wanted if self.probe_binds else None
        elif path.endswith("/unbind"):
            assert self.drivers[value] == parts[-2]
            self.drivers[value] = None
        elif path.endswith("/bind"):
            assert self.drivers[value] is None
            self.drivers[value] = parts[-2]
        elif path == HUGE_2M:
            self.hugepages = max(self.hugepages, min(int(value), self.max_hugepages))

    def start(self, argv: Sequence[str], *, sudo: bool = False,
              env: Mapping[str, str] | None = None) -> Process:  # fmt: skip
        assert sudo
        self.commands.append(list(argv))
        process = Process(4000 + len(self.started), self.log)
        self.started.append(process)
        return process

    def put_file(self, data: bytes, path: str, *, mode: int = 0o644, sudo: bool = False) -> None:
        raise AssertionError("not used")

    def get_file(self, path: str, *, sudo: bool = False) -> bytes:
        raise AssertionError("not used")

    def close(self) -> None:
        pass

    def app_argv(self) -> list[str]:
        """The testpmd command line started last."""
        return next(c for c in reversed(self.commands) if "dpdk-testpmd" in c)

    def heads(self, name: str) -> list[list[str]]:
        """Commands starting with ``name``."""
        return [c for c in self.commands if c[0] == name]


def lab_node(extra: Mapping[str, Any] | None = None, **options: Any) -> Node:
    ifaces = {
        "port1": Interface("port1", pci_address=PCI1.upper(), link="link1"),
        "port2": Interface("port2", pci_address=PCI2, link="link2"),
    }
    access = SshAccess(host="10.0.0.2", username="testuser", key_file="/keys/lab")
    return Node(
        "DUT1", "DUT", "testpmd", access, ifaces, options={"pmd": "pci", **options},
        extra=dict(extra or {}),
    )  # fmt: skip


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
    assert argv[:6] == ["taskset", "-c", "3", "stdbuf", "-oL", "-eL"]
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
    driver = TestpmdDriver(lab_node(), host)
    driver.configure(L2)
    with pytest.raises(DutError) as raised:
        driver.start()
    message = str(raised.value)
    assert message.startswith(f"DUT1 (testpmd): bind {PCI2} (port port2) to vfio-pci: ")
    assert "interface eno1 has routes" in message and "10.0.0.0/24" in message
    assert host.drivers[PCI2] == "ice"
    assert host.started == []
    assert host.drivers[PCI1] == "vfio-pci"  # bound before port 2 was refused: stays bound


def test_a_failed_probe_names_the_iommu_gives_the_device_back_and_starts_nothing() -> None:
    host = LabHost({PCI1: "ice", PCI2: "ice"}, probe_binds=False)
    driver = TestpmdDriver(lab_node(), host)  # restore_driver false: a failed bind is undone
    driver.configure(L2)
    with pytest.raises(DutError, match=r"bound to no driver after the probe; see dmesg .*IOMMU"):
        driver.start()
    assert host.started == []
    assert driver.pid is None
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
    driver.configure(L2)
    with pytest.raises(DutError, match=r"reserve hugepages: only 300 of 512 hugepages of 2048 kB"):
        driver.start()
    assert host.started == []


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
    node = dataclasses.replace(
        lab_node(pmd="af_packet", hugepages=512),
        interfaces={f"port{i}": Interface(f"port{i}", f"ens{i}") for i in (1, 2)},
    )
    named = DutTestConfig("l2xc", tuple(  # type: ignore[arg-type]
        dataclasses.replace(p, name=f"ens{i}") for i, p in enumerate(PORTS, 1)
    ))  # fmt: skip
    driver = TestpmdDriver(node, host)
    driver.configure(named)
    driver.start()
    argv = host.app_argv()
    assert "--no-huge" not in argv and "--no-pci" in argv
    assert "net_af_packet0,iface=ens1,framecnt=16384" in argv
    assert host.hugepages == 512
    assert ["sysctl", "-qw", "net.ipv4.ip_forward=0"] in host.commands
    assert not host.heads("modprobe")
    driver.stop()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"hugepages": 100, "memory_mb": 1024}, r"options.hugepages: 100 pages of 2048 kB hold"),
        ({"hugepage_size_kb": 4096}, r"options.hugepage_size_kb: 4096 is not one of 2048"),
        ({"bind_driver": "../x"}, r"options.bind_driver: '../x' is not a kernel driver name"),
        ({"restore_driver": "yes"}, r"options.restore_driver: 'yes' is not true or false"),
        ({"pmd": "vfio"}, r"options.pmd: 'vfio' is not one of af_packet, af_xdp, pci"),
    ],
)
def test_bad_lab_options(options: dict[str, Any], message: str) -> None:
    with pytest.raises(DutError, match=rf"DUT1 \(testpmd\): {message}"):
        TestpmdDriver(lab_node(**options), LabHost({}))


def test_an_unreachable_node_is_a_dut_error_and_telemetry_still_answers() -> None:
    host = LabHost({PCI1: "vfio-pci", PCI2: "vfio-pci"})
    driver = started_driver(host)
    process = host.started[0]
    process.unreachable = True
    with pytest.raises(DutError, match=r"DUT1 \(testpmd\): health check: cannot tell whether pid"):
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
    host = LabHost({PCI1: "vfio-pci", PCI2: "vfio-pci"}, log="EAL: starting\n")
    driver = TestpmdDriver(lab_node(start_timeout_s=5), host)
    driver.configure(L2)
    real_start = host.start

    def start_then_drop(argv: Sequence[str], **kwargs: Any) -> Process:
        process = real_start(argv, **kwargs)
        process.unreachable = True
        return process

    host.start = start_then_drop  # type: ignore[method-assign]
    with pytest.raises(DutError, match=r"DUT1 \(testpmd\): start testpmd: cannot read the log"):
        driver.start()
    assert driver.pid is None
