"""A recording lab host for the DPDK lab driver tests (testpmd, l3fwd): no NIC is touched.

``LabHost`` is a NodeAccess that records every command and models the few
sysfs files the lab set-up touches (which driver a PCI device is bound to,
its ``driver_override``, ``nr_hugepages``, /proc/mounts), so the binding
sequence is checked as the kernel would answer it. Also: the lab DUT node
both drivers' tests build, the bad lab options both refuse, and the
af_packet variant of a lab node with the checks its start must pass, and
``refused_start``: a start that fails before anything is started.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from ndrpdr.access.base import CommandError, CommandResult, NodeAccessError
from ndrpdr.dut.base import DutError, DutTestConfig
from ndrpdr.dut.dpdk.app import DpdkAppDriver
from ndrpdr.topology.model import Interface, Node, SshAccess

#: testpmd's ready line (the default log of a started process).
READY = "Press enter to exit\nio packet forwarding - ports=2 - cores=1\n"
HUGE_2M = "/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"
MOUNTS = "sysfs /sys sysfs rw 0 0\nhugetlbfs /dev/hugepages hugetlbfs rw,pagesize=2M 0 0\n"
NO_HUGE_MOUNTS = "sysfs /sys sysfs rw 0 0\n"

#: (options, message) pairs every lab driver refuses, the message after "DUT1 (driver): ".
BAD_LAB_OPTIONS: list[tuple[dict[str, Any], str]] = [
    ({"hugepages": 100, "memory_mb": 1024}, r"options.hugepages: 100 pages of 2048 kB hold"),
    ({"hugepage_size_kb": 4096}, r"options.hugepage_size_kb: 4096 is not one of 2048"),
    ({"bind_driver": "../x"}, r"options.bind_driver: '../x' is not a kernel driver name"),
    ({"restore_driver": "yes"}, r"options.restore_driver: 'yes' is not true or false"),
    ({"pmd": "vfio"}, r"options.pmd: 'vfio' is not one of af_packet, af_xdp, pci"),
]


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
    #: A started process has exited at once / its node is unreachable right after the start.
    exits_at_once: bool = False
    lost_after_start: bool = False
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
        process.running = not self.exits_at_once
        process.unreachable = self.lost_after_start
        self.started.append(process)
        return process

    def put_file(self, data: bytes, path: str, *, mode: int = 0o644, sudo: bool = False) -> None:
        raise AssertionError("not used")

    def get_file(self, path: str, *, sudo: bool = False) -> bytes:
        raise AssertionError("not used")

    def close(self) -> None:
        pass

    def app_argv(self) -> list[str]:
        """The app command line started last (``taskset -c CPU stdbuf ... APP ...``)."""
        return next(c for c in reversed(self.commands) if c[0] == "taskset")

    def heads(self, name: str) -> list[list[str]]:
        """Commands starting with ``name``."""
        return [c for c in self.commands if c[0] == name]


def lab_dut_node(
    driver: str,
    first: str,
    second: str,
    options: Mapping[str, Any],
    extra: Mapping[str, Any] | None = None,
) -> Node:
    """DUT1 over SSH with ``pmd: pci`` (then ``options``); port1 at ``first`` (in upper case)."""
    ifaces = {
        "port1": Interface("port1", pci_address=first.upper(), link="link1"),
        "port2": Interface("port2", pci_address=second, link="link2"),
    }
    access = SshAccess(host="10.0.0.2", username="testuser", key_file="/keys/lab")
    return Node(
        "DUT1", "DUT", driver, access, ifaces, options={"pmd": "pci", **options},
        extra=dict(extra or {}),
    )  # fmt: skip


def on_kernel_ports(node: Node, config: DutTestConfig) -> tuple[Node, DutTestConfig]:
    """``node`` and ``config`` with the ports named ens1 and ens2 and no PCI addresses."""
    node = dataclasses.replace(
        node, interfaces={f"port{i}": Interface(f"port{i}", f"ens{i}") for i in (1, 2)}
    )
    named = DutTestConfig(config.mode, tuple(  # type: ignore[arg-type]
        dataclasses.replace(p, name=f"ens{i}", pci_address=None)
        for i, p in enumerate(config.ports, 1)
    ))  # fmt: skip
    return node, named


def check_kernel_ports_start(host: LabHost, hugepages: int) -> list[str]:
    """The app's argv, checked: vdevs, not PCI, hugepages reserved, kernel forwarding off."""
    argv = host.app_argv()
    assert "--no-huge" not in argv and "--no-pci" in argv
    assert host.hugepages == hugepages
    assert ["sysctl", "-qw", "net.ipv4.ip_forward=0"] in host.commands
    return argv


def refused_start(
    host: LabHost, driver: DpdkAppDriver, config: DutTestConfig, match: str | None = None
) -> str:
    """Configure ``driver``; its start must raise a DutError (matching ``match``) and start
    nothing. Returns the error message."""
    driver.configure(config)
    with pytest.raises(DutError, match=match) as raised:
        driver.start()
    assert host.started == [] and driver.pid is None
    return str(raised.value)
