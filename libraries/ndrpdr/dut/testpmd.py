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
from ndrpdr.dut.dpdk_lab import LAB_OPTIONS, LabDpdkAppDriver
from ndrpdr.testbed.model import Node

#: mbufs in the pool; the default count does not fit ``--no-huge -m 1024``.
TOTAL_MBUFS = 32768
#: Rx / Tx descriptors per queue.
DESCRIPTORS = 4096


class TestpmdDriver(LabDpdkAppDriver):
    """``dpdk-testpmd`` on the DUT node, one forwarding lcore, pinned to ``options.cpu``."""

    __test__ = False  # not a pytest test class despite the name
    driver_name = "testpmd"
    default_binary = "dpdk-testpmd"
    ready_pattern = re.compile(r"packet forwarding - ports=\d+")
    extra_option_keys = ("forward_mode", "stats_period_s", *LAB_OPTIONS)

    def __init__(self, node: Node, access: NodeAccess) -> None:
        """Read and check the options (the lab ones in ``LabDpdkAppDriver``); no I/O."""
        super().__init__(node, access)
        options = self._options
        self.forward_mode = options.choice("forward_mode", None, ("io", "mac"))
        self.stats_period_s = options.integer("stats_period_s", 5, minimum=1)

    def mode_for(self, config: DutTestConfig) -> str:
        """testpmd's forward mode for ``config``: the option, else mac (ip4base) or io (l2xc)."""
        if self.forward_mode is not None:
            return self.forward_mode
        return "mac" if config.mode == "ip4base" else "io"

    # -- command line ----------------------------------------------------------------
    def _app_argv(self, config: DutTestConfig, names: tuple[str, str], prefix: str) -> list[str]:
        peers = [
            f"--eth-peer={port_id},{port.peer_mac}"
            for port_id, port in sorted(
                zip(self.port_ids(config), config.ports, strict=True), key=lambda pair: pair[0]
            )
        ]
        return [
            self.binary,
            *self.lab_eal_args(f"0@{self.cpu},1@{self.cpu}", names, prefix),
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
