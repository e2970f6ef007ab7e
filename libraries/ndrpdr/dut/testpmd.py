"""DPDK testpmd DUT: forwards between the two DUT ports, on this machine or on a lab host.

The ports are AF_PACKET or AF_XDP vdevs on kernel interfaces (the local
testbed's veths, or a lab host's NICs left to the kernel), or, with ``pmd:
pci``, the NICs themselves by PCI address, bound to a user-space I/O driver
(vfio-pci) and fed from hugepages. The node is reached through its
NodeAccess only (netns, local or SSH), so the same driver runs a lab DUT
over SSH.

testpmd does not route. Mode ``ip4base`` runs ``--forward-mode=mac`` (each
frame leaves the other port with its source MAC set to that port's and its
destination MAC set to the peer's ``--eth-peer``), ``l2xc`` runs
``--forward-mode=io`` (frames leave untouched). ``options.forward_mode``
overrides this.

Options (node ``options`` in the topology): ``cpu`` (default 1; every thread
is pinned to it), ``pmd`` (af_packet | af_xdp | pci), ``forward_mode`` (io |
mac), ``binary`` (default dpdk-testpmd), ``memory_mb`` (default 1024),
``stats_period_s`` (default 5: port statistics in the log),
``start_timeout_s`` (default 30), ``extra_args`` (appended to testpmd's
own arguments). Lab options: ``bind_driver`` (pmd pci: the driver each
port's PCI device is bound to before the start, default the node's CSIT
field ``uio_driver``, else vfio-pci; ``none`` leaves the binding alone, as
mlx5 NICs need), ``restore_driver`` (default false: the binding stays
after the stop, as in CSIT; true gives the device back to its kernel
driver), ``hugepages`` (reserve at least this many hugepages before the
start; any value > 0 also makes the af_packet / af_xdp app use hugepages)
and ``hugepage_size_kb`` (2048 or 1048576, default 2048). With pmd pci the
memory always comes from hugepages (those reserved, if ``hugepages`` is
not given) and a hugetlbfs is mounted if the host has none.
"""

from __future__ import annotations

import re

from ndrpdr.access.base import NodeAccess
from ndrpdr.dut.base import DutTestConfig
from ndrpdr.dut.dpdk_common import PMDS, DpdkAppDriver, eal_args, vdev_args
from ndrpdr.dut.dpdk_lab import (
    HUGEPAGE_SIZES_KB,
    NO_BINDING,
    Hugepages,
    PciBinding,
    check_driver_name,
    check_pci_address,
    dpdk_port_order,
)
from ndrpdr.testbed.model import Node

#: mbufs in the pool; the default count does not fit ``--no-huge -m 1024``.
TOTAL_MBUFS = 32768
#: Rx / Tx descriptors per queue.
DESCRIPTORS = 4096
#: The pmd value for NICs driven by DPDK itself (by PCI address).
PCI_PMD = "pci"
#: The driver a port's PCI device is bound to unless the options or the node say otherwise.
DEFAULT_BIND_DRIVER = "vfio-pci"
#: Options of the lab set-up.
LAB_OPTIONS = ("bind_driver", "restore_driver", "hugepages", "hugepage_size_kb")


class TestpmdDriver(DpdkAppDriver):
    """``dpdk-testpmd`` on the DUT node, one forwarding lcore, pinned to ``options.cpu``."""

    __test__ = False  # not a pytest test class despite the name
    driver_name = "testpmd"
    default_binary = "dpdk-testpmd"
    ready_pattern = re.compile(r"packet forwarding - ports=\d+")
    extra_option_keys = ("forward_mode", "stats_period_s", *LAB_OPTIONS)
    pmds = (*PMDS, PCI_PMD)

    def __init__(self, node: Node, access: NodeAccess) -> None:
        """Read and check the options; no I/O."""
        super().__init__(node, access)
        options = self._options
        self.forward_mode = options.choice("forward_mode", None, ("io", "mac"))
        self.stats_period_s = options.integer("stats_period_s", 5, minimum=1)
        csit_driver = node.extra.get("uio_driver")
        default_driver = csit_driver if isinstance(csit_driver, str) else DEFAULT_BIND_DRIVER
        self.bind_driver = options.string("bind_driver", default_driver)
        if self.bind_driver != NO_BINDING and not check_driver_name(self.bind_driver):
            raise self._steps.error(
                "options.bind_driver", f"{self.bind_driver!r} is not a kernel driver name"
            )
        self.restore_driver = options.boolean("restore_driver", False)
        self.hugepages = options.integer("hugepages", 0)
        self.hugepage_size_kb = options.integer("hugepage_size_kb", HUGEPAGE_SIZES_KB[0])
        if self.hugepage_size_kb not in HUGEPAGE_SIZES_KB:
            raise self._steps.error(
                "options.hugepage_size_kb",
                f"{self.hugepage_size_kb} is not one of {', '.join(map(str, HUGEPAGE_SIZES_KB))}",
            )
        if 0 < self.hugepages * self.hugepage_size_kb < self.memory_mb * 1024:
            raise self._steps.error(
                "options.hugepages",
                f"{self.hugepages} pages of {self.hugepage_size_kb} kB hold less than "
                f"memory_mb ({self.memory_mb} MiB): raise hugepages or lower memory_mb",
            )
        #: True when testpmd's memory comes from hugepages (pmd pci, or options.hugepages).
        self.uses_hugepages = self.pmd == PCI_PMD or self.hugepages > 0
        self._binding: PciBinding | None = None
        self._huge = Hugepages(self._steps, self.hugepages, self.hugepage_size_kb)

    @property
    def uses_kernel_ports(self) -> bool:
        """False with pmd pci: the NICs belong to testpmd, the kernel does not see them."""
        return self.pmd != PCI_PMD

    def mode_for(self, config: DutTestConfig) -> str:
        """testpmd's forward mode for ``config``: the option, else mac (ip4base) or io (l2xc)."""
        if self.forward_mode is not None:
            return self.forward_mode
        return "mac" if config.mode == "ip4base" else "io"

    # -- lab hooks -------------------------------------------------------------------
    def _port_devices(self, config: DutTestConfig) -> tuple[str, str]:
        if self.pmd != PCI_PMD:
            return super()._port_devices(config)
        first, second = (
            check_pci_address(self.node, self.driver_name, port.key, port.pci_address)
            for port in config.ports
        )
        if first == second:
            raise self._steps.error("configure", f"both ports are PCI device {first}")
        return first, second

    def _check_ports(self, config: DutTestConfig, devices: tuple[str, str]) -> None:
        if self.pmd != PCI_PMD:
            super()._check_ports(config, devices)
            return
        pairs = [(port.key, device) for port, device in zip(config.ports, devices, strict=True)]
        self._binding = PciBinding(
            self._steps, pairs, self.bind_driver, restore=self.restore_driver
        )
        self._binding.check()

    def _setup_node(self) -> None:
        if self.uses_hugepages:
            self._huge.apply()
        if self._binding is not None:
            self._binding.apply()

    def _restore_node(self, prefix: str | None, errors: list[str]) -> None:
        if self._binding is not None:
            self._binding.restore(errors)
        if self.uses_hugepages:
            if prefix is not None:
                self._huge.remove_files(prefix, errors)
            self._huge.restore(errors)

    # -- command line ----------------------------------------------------------------
    def _app_argv(self, config: DutTestConfig, names: tuple[str, str], prefix: str) -> list[str]:
        lcores = f"0@{self.cpu},1@{self.cpu}"
        if self.pmd == PCI_PMD:
            eal = eal_args(lcores, prefix, self.memory_mb, (), pci_addresses=names, hugepages=True)
            port_ids = dpdk_port_order(names)
        else:
            vdevs = vdev_args(self.pmd, names)
            eal = eal_args(lcores, prefix, self.memory_mb, vdevs, hugepages=self.uses_hugepages)
            port_ids = (0, 1)
        peers = [
            f"--eth-peer={port_id},{port.peer_mac}"
            for port_id, port in sorted(
                zip(port_ids, config.ports, strict=True), key=lambda pair: pair[0]
            )
        ]
        return [
            self.binary,
            *eal,
            "--",
            f"--forward-mode={self.mode_for(config)}",
            "--nb-cores=1",
            f"--stats-period={self.stats_period_s}",
            f"--rxd={DESCRIPTORS}",
            f"--txd={DESCRIPTORS}",
            f"--total-num-mbufs={TOTAL_MBUFS}",
            *peers,
            *self.extra_args,
        ]
