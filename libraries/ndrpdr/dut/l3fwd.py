"""DPDK l3fwd DUT: LPM IPv4 routing between two AF_PACKET or AF_XDP vdevs.

l3fwd's built-in LPM table routes 198.18.<i>.0/24 to port *i* (vdev *i* is
``config.ports[i]``), which is the project's addressing
(``ndrpdr.profiles.DIRECTION_PREFIXES``); ``configure`` checks that each
port's ``routed_prefix`` lies inside its built-in route. Frames leave with
the destination MAC of ``--eth-dest`` (the port's peer). l3fwd only
routes, so mode ``l2xc`` is refused.

Unless ``options.binary`` names a built l3fwd, the binary is built once per
DPDK version from Debian's packages (see ``ndrpdr.dut.l3fwd_build``).

Options: ``cpu`` (default 1), ``pmd`` (af_packet | af_xdp), ``binary``,
``memory_mb`` (default 1024, no hugepages), ``start_timeout_s`` (default
30), ``cache_dir`` (default /var/cache/ndrpdr), ``extra_args`` (appended to
l3fwd's own arguments).
"""

from __future__ import annotations

import ipaddress
import re

from ndrpdr.access.base import NodeAccess
from ndrpdr.dut.base import DutTestConfig
from ndrpdr.dut.dpdk_common import DpdkAppDriver, eal_args, vdev_args
from ndrpdr.dut.l3fwd_build import CACHE_DIR, ensure_l3fwd
from ndrpdr.testbed.model import Node


def builtin_route(port_index: int) -> ipaddress.IPv4Network:
    """The prefix l3fwd's built-in LPM table sends to port ``port_index``."""
    return ipaddress.IPv4Network(f"198.18.{port_index}.0/24")


class L3fwdDriver(DpdkAppDriver):
    """DPDK's l3fwd example (LPM lookup) on one lcore pinned to ``options.cpu``."""

    driver_name = "l3fwd"
    default_binary = "l3fwd"
    ready_pattern = re.compile(r"entering main loop on lcore")
    extra_option_keys = ("cache_dir",)

    def __init__(self, node: Node, access: NodeAccess) -> None:
        """Read and check the options; no I/O."""
        super().__init__(node, access)
        self._build = "binary" not in node.options
        self.cache_dir = self._options.string("cache_dir", CACHE_DIR)

    def _check_config(self, config: DutTestConfig) -> None:
        if config.mode != "ip4base":
            raise self._steps.error(
                "configure",
                f"l3fwd only routes IPv4 (mode ip4base); mode {config.mode} is not "
                "possible (use the testpmd, ovs or linux driver)",
            )
        for index, port in enumerate(config.ports):
            try:
                prefix = ipaddress.IPv4Network(port.routed_prefix)
            except ValueError as exc:
                raise self._steps.error(
                    "configure", f"ports[{index}].routed_prefix {port.routed_prefix!r}: {exc}"
                ) from exc
            route = builtin_route(index)
            if not prefix.subnet_of(route):
                raise self._steps.error(
                    "configure",
                    f"ports[{index}].routed_prefix {prefix} is outside l3fwd's built-in route "
                    f"{route} -> port {index}",
                )

    def _prepare(self) -> None:
        if self._build:
            self.binary = ensure_l3fwd(self._steps, cache_dir=self.cache_dir)
            self._build = False

    def _app_argv(self, config: DutTestConfig, names: tuple[str, str], prefix: str) -> list[str]:
        dests = [f"--eth-dest={i},{port.peer_mac}" for i, port in enumerate(config.ports)]
        return [
            self.binary,
            *eal_args(f"0@{self.cpu}", prefix, self.memory_mb, vdev_args(self.pmd, names)),
            "--",
            "-p", "0x3",
            "-P",
            "--lookup=lpm",
            "--parse-ptype",
            "--config=(0,0,0),(1,0,0)",
            *dests,
            *self.extra_args,
        ]  # fmt: skip
