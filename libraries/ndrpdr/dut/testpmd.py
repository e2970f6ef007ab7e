"""DPDK testpmd DUT: forwards between two AF_PACKET or AF_XDP vdevs on the DUT ports.

testpmd does not route. Mode ``ip4base`` runs ``--forward-mode=mac`` (each
frame leaves the other port with its source MAC set to that port's and its
destination MAC set to the peer's ``--eth-peer``), ``l2xc`` runs
``--forward-mode=io`` (frames leave untouched). ``options.forward_mode``
overrides this.

Options (node ``options`` in the topology): ``cpu`` (default 1; every thread
is pinned to it), ``pmd`` (af_packet | af_xdp), ``forward_mode`` (io | mac),
``binary`` (default dpdk-testpmd), ``memory_mb`` (default 1024, no
hugepages), ``stats_period_s`` (default 5: port statistics in the log),
``start_timeout_s`` (default 30), ``extra_args`` (appended to testpmd's
own arguments).
"""

from __future__ import annotations

import re

from ndrpdr.access.base import NodeAccess
from ndrpdr.dut.base import DutTestConfig
from ndrpdr.dut.dpdk_common import DpdkAppDriver, eal_args, vdev_args
from ndrpdr.testbed.model import Node

#: mbufs in the pool; the default count does not fit ``--no-huge -m 1024``.
TOTAL_MBUFS = 32768
#: Rx / Tx descriptors per queue.
DESCRIPTORS = 4096


class TestpmdDriver(DpdkAppDriver):
    """``dpdk-testpmd`` in the DUT namespace, one forwarding lcore, pinned to ``options.cpu``."""

    __test__ = False  # not a pytest test class despite the name
    driver_name = "testpmd"
    default_binary = "dpdk-testpmd"
    ready_pattern = re.compile(r"packet forwarding - ports=\d+")
    extra_option_keys = ("forward_mode", "stats_period_s")

    def __init__(self, node: Node, access: NodeAccess) -> None:
        """Read and check the options; no I/O."""
        super().__init__(node, access)
        self.forward_mode = self._options.choice("forward_mode", None, ("io", "mac"))
        self.stats_period_s = self._options.integer("stats_period_s", 5, minimum=1)

    def mode_for(self, config: DutTestConfig) -> str:
        """testpmd's forward mode for ``config``: the option, else mac (ip4base) or io (l2xc)."""
        if self.forward_mode is not None:
            return self.forward_mode
        return "mac" if config.mode == "ip4base" else "io"

    def _app_argv(self, config: DutTestConfig, names: tuple[str, str], prefix: str) -> list[str]:
        lcores = f"0@{self.cpu},1@{self.cpu}"
        peers = [f"--eth-peer={i},{port.peer_mac}" for i, port in enumerate(config.ports)]
        return [
            self.binary,
            *eal_args(lcores, prefix, self.memory_mb, vdev_args(self.pmd, names)),
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
