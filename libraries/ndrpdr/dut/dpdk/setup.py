"""The DPDK side of a DPDK application DUT: its ports, its memory, its runtime files.

``DpdkSetup`` is the component a DPDK application driver (testpmd, l3fwd:
``ndrpdr.dut.dpdk.app``) is given: all that is DPDK rather than the
application. By ``options.pmd`` its ports are

* ``VdevPorts`` (``af_packet``, ``af_xdp``): AF_PACKET / AF_XDP vdevs on
  the ports' kernel interfaces, named by interface and checked with ``ip
  link``; while the app runs, the kernel is kept from forwarding on them
  (``KernelHandsOff``);
* ``PciPorts`` (``pci``, a lab host): the NICs themselves by PCI address
  (``-a``), bound to ``bind_driver`` (vfio-pci...) before each start
  (``PciBinding``); DPDK numbers them in PCI bus order.

The memory comes from hugepages with pmd pci or when ``options.hugepages``
is given (``Hugepages``: reserved, hugetlbfs mounted, the app's hugepage
files removed after it), else ``--no-huge``. Each start gets a new
``--file-prefix``, whose runtime directory goes at the stop. ``apply``
does all this before the app starts, ``restore`` undoes it after the app
stopped (or failed to start).
"""

from __future__ import annotations

import re
from typing import Protocol

from ndrpdr.access.base import NodeAccess
from ndrpdr.dut.base import DutTestConfig
from ndrpdr.dut.cores import UnsupportedCoresError
from ndrpdr.dut.dpdk.eal import DPDK_RUNTIME_ROOT, eal_args, new_file_prefix, vdev_args
from ndrpdr.dut.dpdk.lab import (
    Hugepages,
    PciBinding,
    check_driver_name,
    check_pci_address,
    dpdk_port_order,
)
from ndrpdr.dut.dpdk.options import DpdkAppOptions
from ndrpdr.dut.handsoff import KernelHandsOff
from ndrpdr.dut.netqueues import rx_queue_count
from ndrpdr.dut.nodesteps import NodeSteps
from ndrpdr.dut.ports import check_ports_exist, port_names
from ndrpdr.systemtools import first_line
from ndrpdr.topology.model import Node

#: The pmd value for NICs driven by DPDK itself (by PCI address).
PCI_PMD = "pci"
#: The driver a port's PCI device is bound to unless the options or the node say otherwise.
DEFAULT_BIND_DRIVER = "vfio-pci"
#: The version text a DPDK build carries, as grep -E and Python both read it.
DPDK_VERSION_TEXT = re.compile(r"DPDK [0-9]+\.[0-9]+(\.[0-9]+)?")


def bind_driver_of(node: Node, chosen: str | None) -> str | None:
    """The driver pmd pci binds ``node``'s ports to: ``chosen`` (options.bind_driver), else
    the node's CSIT ``uio_driver``, else vfio-pci; None when ``uio_driver`` is no driver name.
    """
    if chosen is not None:
        return chosen
    csit_driver = node.extra.get("uio_driver")
    if csit_driver is None:
        return DEFAULT_BIND_DRIVER
    return csit_driver if isinstance(csit_driver, str) and check_driver_name(csit_driver) else None


def port_driver(node: Node) -> str:
    """How a DPDK app on ``node`` reaches its ports: its pmd, or the PCI bind driver."""
    pmd = node.options.get("pmd", DpdkAppOptions.pmd)
    if pmd != PCI_PMD:
        return str(pmd)
    return bind_driver_of(node, node.options.get("bind_driver")) or DEFAULT_BIND_DRIVER


def dpdk_version(node: Node, access: NodeAccess) -> str | None:
    """The DPDK version of the app on ``node`` (the version probe): the ``DPDK x.y.z`` text a
    build of its own (``options.binary``) carries, else Debian's ``dpdk`` package's."""
    binary = node.options.get("binary")
    if binary:
        pattern = DPDK_VERSION_TEXT.pattern
        found = first_line(access, ["grep", "-a", "-o", "-m", "1", "-E", pattern, str(binary)])
        match = DPDK_VERSION_TEXT.search(found or "")
        return None if match is None else match.group(0)
    package = first_line(access, ["dpkg-query", "-W", "-f", "${Version}", "dpdk"])
    return None if package is None else f"DPDK {package}"


class DpdkPorts(Protocol):
    """How a DPDK application reaches the two DUT ports ("devices": what names them to DPDK)."""

    @property
    def uses_kernel_ports(self) -> bool:
        """True when the app reads kernel interfaces (the kernel is kept off them)."""
        ...

    def devices(self, config: DutTestConfig) -> tuple[str, str]:
        """How the app names the two ports of ``config``, checked (DutError; no I/O)."""
        ...

    def check(self, config: DutTestConfig, devices: tuple[str, str]) -> None:
        """DutError unless the ports exist on the node; they are then the ones ``take`` takes."""
        ...

    def port_ids(self, devices: tuple[str, str]) -> tuple[int, ...]:
        """The DPDK port id of each of ``devices``."""
        ...

    def queues(self, devices: tuple[str, str], lcores: int) -> int:
        """Queue pairs per port for ``lcores`` forwarding lcores (UnsupportedCoresError when
        the ports cannot have them)."""
        ...

    def eal_args(
        self,
        lcores: str,
        prefix: str,
        memory_mb: int,
        devices: tuple[str, str],
        *,
        huge: bool,
        queues: int = 1,
    ) -> list[str]:
        """The EAL arguments that give the app ``devices`` (``huge``: memory from hugepages;
        ``queues``: queue pairs per port where the devices take them in the EAL arguments)."""
        ...

    def take(self) -> None:
        """Hand the checked ports to the app (before it starts)."""
        ...

    def give_back(self, errors: list[str]) -> None:
        """Undo ``take`` (after the app stopped); failures go to ``errors``."""
        ...


class VdevPorts:
    """AF_PACKET / AF_XDP vdevs on the ports' kernel interfaces, the kernel kept off them."""

    uses_kernel_ports = True

    def __init__(self, steps: NodeSteps, pmd: str) -> None:
        """``pmd``: af_packet or af_xdp."""
        self._steps = steps
        self._pmd = pmd
        self._names: tuple[str, str] | None = None
        self._kernel: KernelHandsOff | None = None

    def devices(self, config: DutTestConfig) -> tuple[str, str]:
        """The ports' interface names, checked."""
        return port_names(self._steps.node, self._steps.driver, config)

    def check(self, config: DutTestConfig, devices: tuple[str, str]) -> None:
        """DutError unless both interfaces exist (``ip link show``)."""
        check_ports_exist(self._steps, config.ports)
        self._names = devices

    def port_ids(self, devices: tuple[str, str]) -> tuple[int, ...]:
        """vdev *i* is DPDK port *i*."""
        return tuple(range(len(devices)))

    def queues(self, devices: tuple[str, str], lcores: int) -> int:
        """af_packet: one queue pair per lcore (sockets in a fanout group); af_xdp: one per
        kernel RX queue of the interfaces (a socket reads one), at least one per lcore."""
        if self._pmd != "af_xdp":
            return lcores
        counts = {name: rx_queue_count(self._steps, "configure: count RX queues", name)
                  for name in devices}  # fmt: skip
        if len(set(counts.values())) != 1:
            raise self._steps.error(
                "configure",
                f"the ports have different RX queue counts {counts}: give them as many",
            )
        count = counts[devices[0]]
        if count < lcores:
            raise UnsupportedCoresError(
                f"{self._steps.node} ({self._steps.driver}) needs {lcores} RX queues per port "
                f"for {lcores} lcores and {devices[0]} has {count} (an AF_XDP socket reads one "
                "kernel queue)"
            )
        return count

    def eal_args(
        self,
        lcores: str,
        prefix: str,
        memory_mb: int,
        devices: tuple[str, str],
        *,
        huge: bool,
        queues: int = 1,
    ) -> list[str]:
        """One ``--vdev`` per interface with ``queues`` queue pairs, no PCI device."""
        vdevs = vdev_args(self._pmd, devices, queues)
        return eal_args(lcores, prefix, memory_mb, vdevs, hugepages=huge)

    def take(self) -> None:
        """Keep the kernel from forwarding on the interfaces (``KernelHandsOff``)."""
        assert self._names is not None
        self._kernel = KernelHandsOff(self._steps, self._names, xdp=self._pmd == "af_xdp")
        self._kernel.apply()

    def give_back(self, errors: list[str]) -> None:
        """Undo the kernel hands-off (and what the stopped app left on the links)."""
        kernel, self._kernel = self._kernel, None
        if kernel is not None:
            kernel.restore(errors)


class PciPorts:
    """The NICs themselves by PCI address, bound to a user-space I/O driver before the start."""

    uses_kernel_ports = False

    def __init__(self, steps: NodeSteps, bind_driver: str, *, restore: bool) -> None:
        """``bind_driver``: vfio-pci..., or none; ``restore``: give the devices back at the stop."""
        self._steps = steps
        self._bind_driver = bind_driver
        self._restore = restore
        self._binding: PciBinding | None = None
        self._bound: PciBinding | None = None

    def devices(self, config: DutTestConfig) -> tuple[str, str]:
        """The two ports' PCI addresses in sysfs form, checked."""
        steps = self._steps
        first, second = (
            check_pci_address(steps.node, steps.driver, port.key, port.pci_address)
            for port in config.ports
        )
        if first == second:
            raise steps.error("configure", f"both ports are PCI device {first}")
        return first, second

    def check(self, config: DutTestConfig, devices: tuple[str, str]) -> None:
        """DutError unless both PCI devices exist on the node."""
        pairs = [(port.key, device) for port, device in zip(config.ports, devices, strict=True)]
        binding = PciBinding(self._steps, pairs, self._bind_driver, restore=self._restore)
        binding.check()
        self._binding = binding

    def port_ids(self, devices: tuple[str, str]) -> tuple[int, ...]:
        """DPDK probes the allowed devices in PCI bus order."""
        return dpdk_port_order(devices)

    def queues(self, devices: tuple[str, str], lcores: int) -> int:
        """One queue pair per lcore (the NIC's RSS spreads the flows over them)."""
        return lcores

    def eal_args(
        self,
        lcores: str,
        prefix: str,
        memory_mb: int,
        devices: tuple[str, str],
        *,
        huge: bool,
        queues: int = 1,
    ) -> list[str]:
        """``-a`` per PCI device (the memory always from hugepages; the app sets the queues)."""
        return eal_args(lcores, prefix, memory_mb, (), pci_addresses=devices, hugepages=True)

    def take(self) -> None:
        """Bind the devices to the bind driver (a device already bound is left)."""
        assert self._binding is not None
        self._bound = self._binding
        self._bound.apply()

    def give_back(self, errors: list[str]) -> None:
        """Give the devices back to their drivers (if ``restore``)."""
        bound, self._bound = self._bound, None
        if bound is not None:
            bound.restore(errors)


class DpdkSetup:
    """Ports, memory and runtime files of one DPDK application on one node."""

    def __init__(self, node: Node, options: DpdkAppOptions, steps: NodeSteps) -> None:
        """Read the DPDK options (DutError for a CSIT ``uio_driver`` that is no driver); no I/O."""
        bind_driver = bind_driver_of(node, options.bind_driver)
        if bind_driver is None:
            raise steps.error(
                "uio_driver",
                f"{node.extra.get('uio_driver')!r} is not a kernel driver name (e.g. vfio-pci)",
            )
        self._steps = steps
        #: The driver pmd pci binds the ports' PCI devices to.
        self.bind_driver = bind_driver
        self.memory_mb = options.memory_mb
        #: True when the app's memory comes from hugepages (pmd pci, or options.hugepages).
        self.uses_hugepages = options.pmd == PCI_PMD or options.hugepages > 0
        self.ports: DpdkPorts = (
            PciPorts(steps, bind_driver, restore=options.restore_driver)
            if options.pmd == PCI_PMD
            else VdevPorts(steps, options.pmd)
        )
        self._huge = Hugepages(steps, options.hugepages, options.hugepage_size_kb)
        #: The ``--file-prefix`` of the app being started or running (None: stopped).
        self.file_prefix: str | None = None
        self._applied = False

    def apply(self) -> None:
        """Before a start: hugepages, the checked ports to the app, a new file prefix.

        ``restore`` undoes it, also after a failure half-way.
        """
        self._applied = True
        if self.uses_hugepages:
            self._huge.apply()
        self.ports.take()
        prefix = new_file_prefix(self._steps.node)
        self.file_prefix = prefix
        self._steps.track_path(f"{DPDK_RUNTIME_ROOT}/{prefix}")  # a crashed local run's too

    def eal_args(self, lcores: str, devices: tuple[str, str], queues: int = 1) -> list[str]:
        """The EAL arguments of the app being started: ``lcores``, ``devices`` (with
        ``queues`` queue pairs each, for vdevs), memory, prefix."""
        assert self.file_prefix is not None
        return self.ports.eal_args(
            lcores,
            self.file_prefix,
            self.memory_mb,
            devices,
            huge=self.uses_hugepages,
            queues=queues,
        )

    def restore(self, errors: list[str]) -> None:
        """After the app stopped: undo ``apply``, remove its runtime dir; failures to ``errors``."""
        prefix, self.file_prefix = self.file_prefix, None
        if self._applied:
            self._applied = False
            self.ports.give_back(errors)
            if self.uses_hugepages:
                if prefix is not None:
                    self._huge.remove_files(prefix, errors)
                self._huge.restore(errors)
        if prefix is not None:
            runtime_dir = f"{DPDK_RUNTIME_ROOT}/{prefix}"
            self._steps.undo(
                errors, "remove the DPDK runtime dir", ["rm", "-rf", "--", runtime_dir]
            )
