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

Options: ``TestpmdOptions`` (``ndrpdr drivers`` lists them). With pmd pci
the memory always comes from hugepages (those reserved, if ``hugepages``
is not given) and a hugetlbfs is mounted if the host has none.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Literal

from ndrpdr.access.base import NodeAccess
from ndrpdr.drivers import DriverDescription, option
from ndrpdr.dut.base import DutTestConfig
from ndrpdr.dut.dpdk.app import DpdkAppDriver, app_threads, read_dpdk_node
from ndrpdr.dut.dpdk.lcores import testpmd_core_args, testpmd_lcores
from ndrpdr.dut.dpdk.options import DpdkAppOptions
from ndrpdr.dut.dpdk.setup import dpdk_version, port_driver
from ndrpdr.topology.model import Node

#: mbufs in the pool; the default count does not fit ``--no-huge -m 1024``.
TOTAL_MBUFS = 32768
#: Rx / Tx descriptors per queue.
DESCRIPTORS = 4096


@dataclasses.dataclass(frozen=True)
class TestpmdOptions(DpdkAppOptions):
    """The testpmd driver's options (the DPDK ones, and these)."""

    forward_mode: Literal["io", "mac"] | None = option(
        None, "testpmd's forwarding mode (default: mac for ip4base, io for l2xc)"
    )
    stats_period_s: int = option(5, "seconds between port statistics in the log", minimum=1)


class TestpmdDriver(DpdkAppDriver):
    """``dpdk-testpmd`` on the DUT node: a forwarding lcore per core of the test, each pinned
    to its CPU of ``worker_cores`` (default ``options.cpu``)."""

    driver_name = "testpmd"
    default_binary = "dpdk-testpmd"
    system_tool = "dpdk-testpmd"
    ready_pattern = re.compile(r"packet forwarding - ports=\d+")
    options: TestpmdOptions

    def __init__(self, node: Node, access: NodeAccess) -> None:
        """Read and check the options (the DPDK ones in ``DpdkSetup``); no I/O."""
        steps, options, dpdk = read_dpdk_node(node, access, self.driver_name, TestpmdOptions)
        super().__init__(steps, options, dpdk)
        self.forward_mode = self.options.forward_mode
        self.stats_period_s = self.options.stats_period_s

    def mode_for(self, config: DutTestConfig) -> str:
        """testpmd's forward mode for ``config``: the option, else mac (ip4base) or io (l2xc)."""
        if self.forward_mode is not None:
            return self.forward_mode
        return "mac" if config.mode == "ip4base" else "io"

    # -- command line ----------------------------------------------------------------
    def _app_argv(self, config: DutTestConfig, devices: tuple[str, str]) -> list[str]:
        peers = self._peer_macs("eth-peer", config, devices)
        cpus = self.lcore_cpus
        return [
            self.binary,
            *self.dpdk.eal_args(testpmd_lcores(cpus), devices, self.queues),
            "--",
            f"--forward-mode={self.mode_for(config)}",
            *testpmd_core_args(cpus, self.queues),
            f"--stats-period={self.stats_period_s}",
            f"--rxd={DESCRIPTORS}",
            f"--txd={DESCRIPTORS}",
            f"--total-num-mbufs={TOTAL_MBUFS}",
            *peers,
            *self.extra_args,
        ]


DESCRIPTION = DriverDescription(
    name="testpmd",
    role="DUT",
    summary="DPDK testpmd forwarding between the two ports (mac or io mode)",
    options=TestpmdOptions,
    factory=TestpmdDriver,
    access=("netns", "ssh", "labbox"),
    port_driver=port_driver,
    version=dpdk_version,
    threads=app_threads("testpmd", TestpmdOptions),
)
