"""DPDK l3fwd DUT: LPM IPv4 routing between the two DUT ports, locally or on a lab host.

The ports are AF_PACKET or AF_XDP vdevs on kernel interfaces (the local
testbed's veths, or a lab host's NICs left to the kernel), or, with ``pmd:
pci``, the NICs themselves by PCI address (``-a``), bound to a user-space
I/O driver (vfio-pci) and fed from hugepages, as the testpmd driver does
(``ndrpdr.dut.dpdk.setup``). The node is reached through its NodeAccess only
(netns, local or SSH), so the same driver runs a lab DUT over SSH.

l3fwd's built-in LPM table routes 198.18.<i>.0/24 to DPDK port *i*, which
is the project's addressing (``ndrpdr.profiles.DIRECTION_PREFIXES``). DPDK
port *i* is vdev *i* (``config.ports[i]``) or, with pmd pci, the *i*-th
PCI device in bus order; ``configure`` checks that each port's
``routed_prefix`` lies inside the built-in route of its DPDK port. Frames
leave with the destination MAC of ``--eth-dest`` (the port's peer, the TG
port it faces). l3fwd only routes, so mode ``l2xc`` is refused.

Unless ``options.binary`` names a built l3fwd (e.g. an installed
``dpdk-l3fwd``), the binary is built once per DPDK version from Debian's
packages on the node itself, through its NodeAccess (see
``ndrpdr.dut.dpdk.l3fwd_build``): over SSH the lab host then needs dpdk-doc,
libdpdk-dev, pkg-config, make and gcc.

Options: ``L3fwdOptions`` (``ndrpdr drivers`` lists them).
"""

from __future__ import annotations

import dataclasses
import functools
import ipaddress
import re

from ndrpdr.access.base import NodeAccess
from ndrpdr.drivers import DriverDescription, option
from ndrpdr.dut.base import DutTestConfig
from ndrpdr.dut.dpdk.app import DpdkAppDriver, app_threads, read_dpdk_node
from ndrpdr.dut.dpdk.l3fwd_build import CACHE_DIR, ensure_l3fwd
from ndrpdr.dut.dpdk.lcores import l3fwd_config, l3fwd_lcores
from ndrpdr.dut.dpdk.options import DpdkAppOptions
from ndrpdr.dut.dpdk.setup import dpdk_version, port_driver
from ndrpdr.topology.model import Node

#: l3fwd's port mask: DPDK ports 0 and 1 (the only two devices it is given).
PORT_MASK = "0x3"


@dataclasses.dataclass(frozen=True)
class L3fwdOptions(DpdkAppOptions):
    """The l3fwd driver's options (the DPDK ones, and this)."""

    cache_dir: str = option(
        CACHE_DIR,
        "where l3fwd is built and kept when binary is not given (built on the node from "
        "Debian's dpdk-doc)",
    )


def builtin_route(port_index: int) -> ipaddress.IPv4Network:
    """The prefix l3fwd's built-in LPM table sends to DPDK port ``port_index``."""
    return ipaddress.IPv4Network(f"198.18.{port_index}.0/24")


class L3fwdDriver(DpdkAppDriver):
    """DPDK's l3fwd example (LPM lookup): an lcore per core of the test, each pinned to its
    CPU of ``worker_cores`` (default ``options.cpu``)."""

    driver_name = "l3fwd"
    default_binary = "l3fwd"
    ready_pattern = re.compile(r"entering main loop on lcore")
    options: L3fwdOptions

    def __init__(self, node: Node, access: NodeAccess) -> None:
        """Read and check the options; no I/O (l3fwd is built at the first start if needed)."""
        steps, options, dpdk = read_dpdk_node(node, access, self.driver_name, L3fwdOptions)
        self.cache_dir = options.cache_dir
        build = (
            functools.partial(ensure_l3fwd, steps, cache_dir=self.cache_dir)
            if options.binary is None
            else None
        )
        super().__init__(steps, options, dpdk, build=build)

    def configure(self, config: DutTestConfig) -> None:
        """As every DPDK app, once l3fwd can route ``config`` (ip4base, the built-in routes)."""
        devices = self.dpdk.ports.devices(config)
        self._check_routes(config, self.dpdk.ports.port_ids(devices))
        super().configure(config)

    def _check_routes(self, config: DutTestConfig, port_ids: tuple[int, ...]) -> None:
        """DutError unless mode ip4base and each port's prefix is in its DPDK port's route."""
        if config.mode != "ip4base":
            raise self._steps.error(
                "configure",
                f"l3fwd only routes IPv4 (mode ip4base); mode {config.mode} is not "
                "possible (use the testpmd, ovs or linux driver)",
            )
        for index, (port, port_id) in enumerate(zip(config.ports, port_ids, strict=True)):
            try:
                prefix = ipaddress.IPv4Network(port.routed_prefix)
            except ValueError as exc:
                raise self._steps.error(
                    "configure", f"ports[{index}].routed_prefix {port.routed_prefix!r}: {exc}"
                ) from exc
            route = builtin_route(port_id)
            if not prefix.subnet_of(route):
                order = (
                    f" (port {port.key} {port.pci_address} is DPDK port {port_id} in PCI bus "
                    "order: give the ports in PCI order or swap their links)"
                    if port_id != index
                    else ""
                )
                raise self._steps.error(
                    "configure",
                    f"ports[{index}].routed_prefix {prefix} is outside l3fwd's built-in route "
                    f"{route} -> port {port_id}{order}",
                )

    def _app_argv(self, config: DutTestConfig, devices: tuple[str, str]) -> list[str]:
        dests = self._peer_macs("eth-dest", config, devices)
        cpus = self.lcore_cpus
        return [
            self.binary,
            *self.dpdk.eal_args(l3fwd_lcores(cpus), devices, self.queues),
            "--",
            "-p", PORT_MASK,
            "-P",
            "--lookup=lpm",
            "--parse-ptype",
            f"--config={l3fwd_config(cpus, self.queues)}",
            *dests,
            *self.extra_args,
        ]  # fmt: skip


DESCRIPTION = DriverDescription(
    name="l3fwd",
    role="DUT",
    summary="DPDK's l3fwd example: LPM IPv4 routing between the two ports (ip4base only)",
    options=L3fwdOptions,
    factory=L3fwdDriver,
    access=("netns", "ssh", "labbox"),
    port_driver=port_driver,
    version=dpdk_version,
    threads=app_threads("l3fwd", L3fwdOptions),
)
