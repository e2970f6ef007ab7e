"""Choosing the management /30s of a run's hosts from link-local space (pure: no I/O).

Each host gets a /30 from 169.254.0.0/16: the root end of its management
veth takes the first address (.1 of the /30), the host end the second
(.2). Never chosen:

* 169.254.0.0/24 and 169.254.255.0/24 (RFC 3927 reserves them);
* 169.254.169.0/24: cloud metadata (169.254.169.254) and its neighbours
  (e.g. 169.254.169.123, a cloud NTP server) would be shadowed;
* any /30 that overlaps an address of the root namespace, or a route (any
  table) or address network narrower than /16.

Routes of /16 and broader (a default route, a zeroconf 169.254.0.0/16)
do not block: a /30 route is more specific, so it takes only its four
addresses from them, and treating them as used would leave nothing free.
"""

from __future__ import annotations

import ipaddress
import random
from collections.abc import Iterable
from ipaddress import IPv4Address, IPv4Interface, IPv4Network
from typing import Any

from ndrpdr.labbox.errors import LabboxError

#: The link-local range the management networks come from.
LINK_LOCAL = IPv4Network("169.254.0.0/16")

#: Parts of LINK_LOCAL never used (see the module docstring).
RESERVED = (
    IPv4Network("169.254.0.0/24"),
    IPv4Network("169.254.169.0/24"),
    IPv4Network("169.254.255.0/24"),
)

#: Prefix length of one host's management network.
MGMT_PREFIXLEN = 30

#: Routes and address networks this broad (prefix length <= this) do not block a /30.
BROAD_PREFIXLEN = 16

_BLOCK = 1 << (32 - MGMT_PREFIXLEN)  # addresses per management network


def root_address(network: IPv4Network) -> IPv4Address:
    """The root end's address in ``network`` (its first host address, .1 of a /30)."""
    return network.network_address + 1


def host_address(network: IPv4Network) -> IPv4Address:
    """The host end's address in ``network`` (its second host address, .2 of a /30)."""
    return network.network_address + 2


def blocking_networks(
    addresses: Iterable[IPv4Interface], routes: Iterable[IPv4Network]
) -> list[IPv4Network]:
    """The networks a management /30 may not overlap, given the root namespace's state.

    Every address counts (as a /32); its network and each route only when
    narrower than /``BROAD_PREFIXLEN``.
    """
    blocking = []
    for address in addresses:
        blocking.append(IPv4Network(address.ip))
        if address.network.prefixlen > BROAD_PREFIXLEN:
            blocking.append(address.network)
    blocking.extend(r for r in routes if r.prefixlen > BROAD_PREFIXLEN)
    return blocking


def _free_indices(blocking: Iterable[IPv4Network]) -> list[int]:
    """Numbers i of the free management networks (169.254.0.0 + 4 i) in LINK_LOCAL."""
    base = int(LINK_LOCAL.network_address)
    top = int(LINK_LOCAL.broadcast_address)
    blocked = bytearray(LINK_LOCAL.num_addresses // _BLOCK)
    for network in (*RESERVED, *blocking):
        if not network.overlaps(LINK_LOCAL):
            continue
        first = (max(int(network.network_address), base) - base) // _BLOCK
        last = (min(int(network.broadcast_address), top) - base) // _BLOCK
        blocked[first : last + 1] = b"\1" * (last + 1 - first)
    return [i for i, taken in enumerate(blocked) if not taken]


def _network(index: int) -> IPv4Network:
    return IPv4Network((int(LINK_LOCAL.network_address) + index * _BLOCK, MGMT_PREFIXLEN))


def free_networks(blocking: Iterable[IPv4Network]) -> list[IPv4Network]:
    """All management /30s of LINK_LOCAL that are neither reserved nor overlap ``blocking``."""
    return [_network(i) for i in _free_indices(blocking)]


def choose_networks(
    count: int, blocking: Iterable[IPv4Network], rng: random.Random | None = None
) -> list[IPv4Network]:
    """``count`` distinct free management /30s, picked at random (``rng``, default: system).

    Random picks keep runs on other machines or in other tools that share
    a view of link-local space from lining up on the same first free /30.
    """
    free = _free_indices(blocking)
    if count > len(free):
        raise LabboxError(
            f"only {len(free)} free /{MGMT_PREFIXLEN} networks in {LINK_LOCAL} for "
            f"{count} labbox hosts"
        )
    return [_network(i) for i in (rng or random.SystemRandom()).sample(free, count)]


def parse_ip_addresses(data: Any) -> list[IPv4Interface]:
    """IPv4 addresses (with prefix) from ``ip -j addr show`` output (parsed JSON)."""
    found = []
    for link in data or []:
        for info in link.get("addr_info", []):
            if info.get("family") == "inet" and "local" in info:
                found.append(IPv4Interface(f"{info['local']}/{info.get('prefixlen', 32)}"))
    return found


def parse_ip_routes(data: Any) -> list[IPv4Network]:
    """IPv4 route destinations from ``ip -j route show table all`` output (parsed JSON).

    ``default`` is 0.0.0.0/0 and a bare address a /32; anything else that
    is not an IPv4 prefix is skipped.
    """
    found = []
    for route in data or []:
        dst = route.get("dst")
        if dst == "default":
            found.append(IPv4Network("0.0.0.0/0"))
            continue
        try:
            network = ipaddress.ip_network(str(dst), strict=False)
        except ValueError:
            continue
        if isinstance(network, IPv4Network):
            found.append(network)
    return found
