"""IPv4 addresses and UDP ports of the test traffic, in RFC 2544's range 198.18.0.0/15.

Direction 0 leaves TG port 1, crosses the DUT and comes back on TG port 2;
direction 1 is the reverse. Traffic to ``DIRECTION_PREFIXES[i]`` leaves the
DUT on its port facing TG port *i + 1* (DUT drivers route by this; DPDK
l3fwd's built-in LPM table holds exactly these two /24s). So direction *d*
is sent from ``DIRECTION_PREFIXES[d]`` to ``DIRECTION_PREFIXES[1 - d]``:

- direction 0: source 198.18.0.x, destination 198.18.1.1;
- direction 1: source 198.18.1.x, destination 198.18.0.1.

Flow *i* (0-based) of a direction has source host ``1 + i % 254`` in its /24
(so .1 to .254, never the network or broadcast address) and UDP source port
``1024 + i``; the destination address and the UDP destination port (1024)
are the same for every flow. Every flow thus has its own UDP source port,
and with 254 flows or more every source address is in use, which gives
RSS hashing on either field something to spread.
"""

from __future__ import annotations

import dataclasses
import ipaddress

from ndrpdr.profiles.errors import ProfileError

#: RFC 2544's benchmarking range.
BENCHMARK_RANGE = "198.18.0.0/15"

#: Traffic to prefix *i* leaves the DUT on its port *i + 1* (the one facing TG port *i + 1*).
DIRECTION_PREFIXES: tuple[str, str] = ("198.18.0.0/24", "198.18.1.0/24")
#: The same for IPv6, in RFC 5180's benchmarking range 2001:2::/48.
DIRECTION_PREFIXES6: tuple[str, str] = ("2001:2::/64", "2001:2:0:1::/64")

#: Host part of every destination address.
DESTINATION_HOST = 1
#: Number of source hosts cycled through (.1 .. .254).
SOURCE_HOSTS = 254
#: UDP source port of flow 0; flow *i* uses ``SOURCE_PORT_BASE + i``.
SOURCE_PORT_BASE = 1024
#: UDP destination port of every flow.
DESTINATION_PORT = 1024
#: The most flows per direction (one UDP source port each).
MAX_FLOWS = 65536 - SOURCE_PORT_BASE


@dataclasses.dataclass(frozen=True)
class Flow:
    """One flow of one direction: its 5-tuple (the protocol is always UDP)."""

    direction: int
    index: int
    src_ip: str
    dst_ip: str
    src_port: int
    dst_port: int


#: Network address of each direction prefix as an int.
_NETWORKS = tuple(int(ipaddress.IPv4Network(p).network_address) for p in DIRECTION_PREFIXES)


def check_direction(direction: int) -> int:
    """``direction`` if it is 0 or 1, else ProfileError."""
    if isinstance(direction, bool) or direction not in (0, 1):
        raise ProfileError(f"direction {direction!r} is not valid: give 0 or 1")
    return direction


def check_flow_count(flows: int) -> int:
    """``flows`` if it is an int in 1..MAX_FLOWS, else ProfileError."""
    if isinstance(flows, bool) or not isinstance(flows, int) or not 1 <= flows <= MAX_FLOWS:
        raise ProfileError(f"flow count {flows!r} is not valid: give an integer 1..{MAX_FLOWS}")
    return flows


def flow(direction: int, index: int) -> Flow:
    """Flow ``index`` (0-based, < MAX_FLOWS) of ``direction`` (0 or 1)."""
    check_direction(direction)
    if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < MAX_FLOWS:
        raise ProfileError(f"flow index {index!r} is not valid: give an integer 0..{MAX_FLOWS - 1}")
    src = _NETWORKS[direction] + 1 + index % SOURCE_HOSTS
    dst = _NETWORKS[1 - direction] + DESTINATION_HOST
    return Flow(
        direction=direction,
        index=index,
        src_ip=str(ipaddress.IPv4Address(src)),
        dst_ip=str(ipaddress.IPv4Address(dst)),
        src_port=SOURCE_PORT_BASE + index,
        dst_port=DESTINATION_PORT,
    )


def flows(direction: int, count: int) -> list[Flow]:
    """The first ``count`` flows of ``direction``."""
    check_flow_count(count)
    return [flow(direction, index) for index in range(count)]
