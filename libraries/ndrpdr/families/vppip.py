"""VPP set-ups of the IP routing families: vppctl lines for one DUT, pure functions.

Every DUT of the chain gets the addresses of its two links from the plan
(``ndrpdr.dut.plan``: IPv4 192.168.x.0/24, IPv6 2001:db8:x::/64), a static
neighbour for the next hop on each link (a TG port or the other DUT, its
MAC from the topology), and routes via the egress port's next hop:

* base families route each direction's prefix (``routed_prefix`` /
  ``routed_prefix6`` of the port it leaves by), as CSIT's "circular
  topology" keywords do with their /24s and /64s;
* scale families add one host route (/32, /128) per destination the
  traffic uses (the ``ip.dst`` range of each direction's ``Headers``), as
  CSIT's ``IPTopology`` does. They are programmed with ``ip route add
  count <n> <first>/<len>``: VPP adds n host routes from ``first`` on in one
  CLI call (20k in about 0.03 s, 2M in about 6 s on this machine, where a
  ``vppctl exec`` script of 2M ``ip route add`` lines takes 10 s and the
  binary API, one ``ip_route_add_del`` per route, minutes).

IPv6: an address enables IPv6 on the interface; router advertisements are
suppressed (``ip6 nd <if> ra-suppress``), as CSIT does, so that the DUT
sends the TG nothing but the forwarded frames.

VPP also sends one MLDv2 report from each port within a second of
enabling IPv6 on it (its ip6-mld-process polls once a second; no CLI turns
it off): IPv6 set-ups ask the driver to wait ``MLD_SETTLE_S`` before
traffic, so that a TG counting frames on its ports does not count it.

Routes outlive the interface they leave by: deleting an af_packet
interface (a VPP kept for the next test) leaves its routes, with a path
through its interface index, which VPP gives the next interface it makes
(often the other port): the next test's routes would then have two paths,
one through the wrong port, and lose about half the frames. So every set-up
here deletes its routes in its ``undo`` lines, before the interfaces go.

Direction *d* enters ``ports[d]`` and leaves ``ports[1 - d]``.
"""

from __future__ import annotations

import dataclasses
import ipaddress
from collections.abc import Sequence

from ndrpdr.dut.base import DutError, DutPort, DutTestConfig
from ndrpdr.dut.vpp import config as vpp_config
from ndrpdr.families.model import FamilyDefinitionError
from ndrpdr.profiles import Headers

#: How long after an IPv6 set-up VPP may still send its MLDv2 reports [s].
MLD_SETTLE_S = 2.0


def ip4_base(config: DutTestConfig, names: tuple[str, str]) -> list[str]:
    """IPv4 routing of the two direction /24s (``vpp_config.cli_commands`` in ip4base mode)."""
    return vpp_config.cli_commands(dataclasses.replace(config, mode="ip4base"), names)


def ip4_base_undo(config: DutTestConfig, names: tuple[str, str]) -> list[str]:
    """The two prefix routes deleted (see the module docstring)."""
    return [
        f"ip route del {port.routed_prefix} via {port.peer_ip4} {name}"
        for name, port in zip(names, config.ports, strict=True)
    ]


def ip4_links(config: DutTestConfig, names: Sequence[str]) -> list[str]:
    """Ports up, an IPv4 address on each, a static neighbour for each link's next hop."""
    commands = vpp_config.up_commands(config, names)
    pairs = list(zip(names, config.ports, strict=True))
    commands += [f"set interface ip address {name} {port.ip4_address}" for name, port in pairs]
    commands += [
        f"set ip neighbor {name} {port.peer_ip4} {port.peer_mac.lower()} static"
        for name, port in pairs
    ]
    return commands


def ip6_links(config: DutTestConfig, names: Sequence[str]) -> list[str]:
    """Ports up, an IPv6 address on each (no RAs), a static neighbour for each next hop."""
    commands = vpp_config.up_commands(config, names)
    pairs = list(zip(names, config.ports, strict=True))
    for name, port in pairs:
        commands += [
            f"set interface ip address {name} {_ip6(port, 'ip6_address')}",
            f"ip6 nd {name} ra-suppress",
        ]
    commands += [
        f"set ip neighbor {name} {_ip6(port, 'peer_ip6')} {port.peer_mac.lower()} static"
        for name, port in pairs
    ]
    return commands


def ip6_base_undo(config: DutTestConfig, names: tuple[str, str]) -> list[str]:
    """The two IPv6 prefix routes deleted (see the module docstring)."""
    return [
        f"ip route del {_ip6(port, 'routed_prefix6')} via {_ip6(port, 'peer_ip6')} {name}"
        for name, port in zip(names, config.ports, strict=True)
    ]


def ip6_base(config: DutTestConfig, names: tuple[str, str]) -> list[str]:
    """IPv6 routing of the two direction /64s via each link's next hop."""
    commands = ip6_links(config, names)
    commands += [
        f"ip route add {_ip6(port, 'routed_prefix6')} via {_ip6(port, 'peer_ip6')} {name}"
        for name, port in zip(names, config.ports, strict=True)
    ]
    return commands


@dataclasses.dataclass(frozen=True)
class HostRoutes:
    """The host routes of a scale family: one per destination of each direction's traffic.

    ``directions``: the family's two ``Headers``; direction *d*'s
    destinations (``dst`` and the ``ip.dst`` range that varies from it)
    leave the DUT by ``ports[1 - d]``.
    """

    family: str
    directions: tuple[Headers, Headers]

    def __post_init__(self) -> None:
        """FamilyDefinitionError when a direction's destinations are not one stepped range."""
        for direction in (0, 1):
            self.destinations(direction)

    @property
    def ip_version(self) -> int:
        """4 or 6 (both directions have the same)."""
        return self.directions[0].ip_version

    @property
    def count(self) -> int:
        """Host routes on each DUT, both directions together."""
        return sum(self.destinations(d)[1] for d in (0, 1))

    def destinations(self, direction: int) -> tuple[str, int]:
        """(first destination, how many) of ``direction``: consecutive addresses from ``dst``."""
        headers = self.directions[direction]
        varied = [v for v in headers.vary if v.field == "ip.dst"]
        if not varied:
            return headers.dst, 1
        vary = varied[0]
        if vary.step != 1:
            raise FamilyDefinitionError(
                f"family {self.family}: direction {direction}: ip.dst steps by {vary.step}; "
                "host routes are added for consecutive addresses only (step 1)"
            )
        return headers.dst, vary.count

    def add(self, config: DutTestConfig, names: Sequence[str]) -> list[str]:
        """``ip route add count`` lines: each direction's hosts via its egress port's next hop."""
        return [self._line("add", config, names, d) for d in (0, 1)]

    def delete(self, config: DutTestConfig, names: Sequence[str]) -> list[str]:
        """The ``ip route del count`` lines that remove what ``add`` added."""
        return [self._line("del", config, names, d) for d in (0, 1)]

    def _line(self, verb: str, config: DutTestConfig, names: Sequence[str], direction: int) -> str:
        first, count = self.destinations(direction)
        egress = 1 - direction
        port = config.ports[egress]
        via = port.peer_ip4 if self.ip_version == 4 else _ip6(port, "peer_ip6")
        length = ipaddress.ip_address(first).max_prefixlen
        return f"ip route {verb} count {count} {first}/{length} via {via} {names[egress]}"


@dataclasses.dataclass(frozen=True)
class ScaleRouting:
    """A scale family's VPP set-up: the base routing of its IP version, plus its host routes."""

    routes: HostRoutes

    def commands(self, config: DutTestConfig, names: tuple[str, str]) -> list[str]:
        """Links, the direction prefixes, then the host routes."""
        base = ip4_base(config, names) if self.routes.ip_version == 4 else ip6_base(config, names)
        return base + self.routes.add(config, names)

    def undo(self, config: DutTestConfig, names: tuple[str, str]) -> list[str]:
        """The host routes go, then the prefix routes."""
        return self.routes.delete(config, names) + base_undo(self.routes.ip_version, config, names)


def base_undo(ip_version: int, config: DutTestConfig, names: tuple[str, str]) -> list[str]:
    """``ip4_base_undo`` or ``ip6_base_undo``."""
    return (ip4_base_undo if ip_version == 4 else ip6_base_undo)(config, names)


def _ip6(port: DutPort, field: str) -> str:
    """The port's IPv6 field (DutError naming the port and the field when it has none)."""
    value = getattr(port, field)
    if value is None:
        raise DutError(
            f"port {port.key}: no {field} (the plan gives IPv6 addresses; a hand-made "
            "DutTestConfig must too)"
        )
    return str(value)
