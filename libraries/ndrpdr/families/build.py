"""The parts family modules are made of: CSIT's traffic patterns in our addresses, set-ups, costs.

CSIT's profiles send from 10.10.10.0/24 to 20.20.20.0/24 (IPv4) and from
2001:1::/64 to 2001:2::/64 (IPv6). Our DUT set-ups route RFC 2544's and
RFC 5180's benchmarking ranges instead (``ndrpdr.profiles.addressing``:
``DIRECTION_PREFIXES`` and ``DIRECTION_PREFIXES6``), so a family sends
CSIT's headers, fields, counts and variation with the same host numbers in
those prefixes: CSIT's 10.10.10.2 is our 198.18.0.2, its 20.20.20.2 our
198.18.1.2, its 2001:1::2 our 2001:2::2 and its 2001:2::2 our
2001:2:0:1::2. Scale families, whose destinations do not fit a /24, use
CSIT's own destination ranges (their routes are host routes to them).
The VPP set-ups' base is ``ndrpdr.families.vppsetup``.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping

from ndrpdr.dut.base import OTHER_DRIVERS, FamilySetup, ForwardingMode, VppSetup
from ndrpdr.families.model import CsitDifference, FamilyDefinitionError
from ndrpdr.profiles import ANY_HOST_INTERNAL, Headers, PacketCost, Vary
from ndrpdr.profiles.addressing import DIRECTION_PREFIXES, DIRECTION_PREFIXES6

#: CSIT's direction prefixes (its profiles' 10.10.10.0/24 and 20.20.20.0/24, 2001:1::/64 and
#: 2001:2::/64), which our DIRECTION_PREFIXES and DIRECTION_PREFIXES6 stand for host for host.
CSIT_PREFIXES: tuple[str, str] = ("10.10.10.0/24", "20.20.20.0/24")
CSIT_PREFIXES6: tuple[str, str] = ("2001:1::/64", "2001:2::/64")
_RENUMBERED_WHY = (
    "our DUT set-ups route RFC 2544's and RFC 5180's benchmarking ranges, so CSIT's "
    "addresses are sent in them, host for host (ndrpdr.families.build)"
)
#: A family sending CSIT's addresses in our prefixes (``src_range_traffic``) declares this.
CSIT_RENUMBERED: tuple[CsitDifference, ...] = tuple(
    CsitDifference(f"{layer}.{end}", _RENUMBERED_WHY, renumber=(theirs, ours))
    for layer, csit, own in (
        ("ip", CSIT_PREFIXES, DIRECTION_PREFIXES),
        ("ipv6", CSIT_PREFIXES6, DIRECTION_PREFIXES6),
    )
    for end in ("src", "dst")
    for theirs, ours in zip(csit, own, strict=True)
)

#: VPP v26.06's statistics segment for large tables [MiB]: every route, tunnel or interface
#: has counters there, and the default segment runs out (VPP aborts) near 1M routes or
#: 8000 tunnels on this machine.
LARGE_STATSEG_MB = 256


def large_tables_startup(heap_mb: int) -> str:
    """startup.conf sections for a family with large tables: a ``heap_mb`` main heap [MiB].

    VPP takes the last value of a repeated section's setting, so these follow
    the driver's own ``memory`` and ``statseg`` sections.
    """
    return f"statseg {{ size {LARGE_STATSEG_MB}M }}\nmemory {{ main-heap-size {heap_mb}M }}\n"


#: A million routes or more need a larger heap and statistics segment (2M host routes took
#: 605 MiB of VPP v26.06's heap here; its default statistics segment aborts near 1M).
LARGE_FIB_ROUTES = 1_000_000
LARGE_FIB_HEAP_MB = 2048


def nat_heap_size_mult(sessions: int) -> int:
    """FD.io CSIT's ``heap_size_mult`` of a NAT44 suite with ``sessions`` sessions: 7 for
    16M (``s16515072``), 2 for 4M (``s4128768``), else 1."""
    return 7 if sessions >= 16_000_000 else 2 if sessions >= 4_000_000 else 1


def fib_startup(routes: int) -> str:
    """startup.conf sections for a FIB of ``routes`` routes ("" below LARGE_FIB_ROUTES)."""
    return large_tables_startup(LARGE_FIB_HEAP_MB) if routes >= LARGE_FIB_ROUTES else ""


def check_mode(family: str, mode: str, modes: tuple[str, ...]) -> None:
    """FamilyDefinitionError naming ``family`` when its set-up's ``mode`` is not in ``modes``."""
    if mode not in modes:
        raise FamilyDefinitionError(
            f"family {family}: mode {mode!r} is not one of {', '.join(modes)}"
        )


def check_scale(family: str, hosts: int, ports: int) -> None:
    """FamilyDefinitionError naming ``family`` unless ``hosts`` is a power of two and ``ports``
    at least one (the scales CSIT's stateful suites have)."""
    if hosts < 1 or hosts & (hosts - 1) or ports < 1:
        raise FamilyDefinitionError(
            f"family {family}: {hosts} hosts of {ports} ports; give a power "
            "of two hosts and at least one port"
        )


def l2_pair_commands(forwarding: str, pairs: tuple[tuple[str, str], ...]) -> list[str] | None:
    """vppctl lines joining each pair of interfaces: cross-connected both ways (``l2xc``) or
    bridged in domain 1, 2, ... (``l2bd``); None for another forwarding."""
    if forwarding == "l2xc":
        return [
            f"set interface l2 xconnect {a} {b}" for one, other in pairs
            for a, b in ((one, other), (other, one))
        ]  # fmt: skip
    if forwarding == "l2bd":
        return [
            f"set interface l2 bridge {name} {domain}"
            for domain, pair in enumerate(pairs, start=1) for name in pair
        ]  # fmt: skip
    return None


def host(prefix: str, number: int) -> str:
    """Address ``number`` of ``prefix`` ("198.18.1.0/24", 2 -> "198.18.1.2")."""
    network = ipaddress.ip_network(prefix)
    return str(network.network_address + number)


def direction_hosts(ip_version: int, direction: int, number: int) -> tuple[str, str]:
    """(source, destination) host ``number`` of ``direction``'s two prefixes."""
    prefixes = DIRECTION_PREFIXES if ip_version == 4 else DIRECTION_PREFIXES6
    return host(prefixes[direction], number), host(prefixes[1 - direction], number)


def src_range_traffic(
    ip_version: int,
    first: int,
    count: int,
    *,
    l4: str | int = ANY_HOST_INTERNAL,
    vlan: int | None = None,
) -> tuple[Headers, Headers]:
    """Both directions of CSIT's ``ip4src253``-like profiles.

    Each direction sends from ``count`` source hosts starting at host
    ``first`` of its own prefix (``inc``) to host ``first`` of the other
    prefix.
    """  # fmt: skip
    out = []
    for direction in (0, 1):
        src, dst = direction_hosts(ip_version, direction, first)
        out.append(
            Headers(
                ip_version=4 if ip_version == 4 else 6,
                src=src,
                dst=dst,
                l4=l4,  # type: ignore[arg-type]
                vlan=vlan,
                vary=(Vary("ip.src", count),),
            )
        )
    return out[0], out[1]


def vpp_only(why: str) -> dict[str, str]:
    """The ``reasons`` of a family that only VPP's set-up runs, besides the drivers that run
    every family (the sim) and those given a mode in ``setup``: ``why`` for any other driver
    (``OTHER_DRIVERS``), ``{driver}`` standing for its name."""
    return {OTHER_DRIVERS: why}


def setup(
    modes: Mapping[str, ForwardingMode] | None = None,
    vpp: VppSetup | None = None,
    reasons: Mapping[str, str] | None = None,
) -> FamilySetup:
    """A family's set-ups (a driver that runs every family, the sim, needs no mode here).

    The ``Family`` they are given to names them with its id (``Family.setup``).
    """
    if isinstance(modes, str):  # a lab's file written when setup() took the id first
        raise FamilyDefinitionError(
            f"setup({modes!r}, ...): give no family id, the Family hands its own down"
        )
    return FamilySetup(modes=dict(modes or {}), vpp=vpp, reasons=dict(reasons or {}))


def cost(cycles: float, basis: str, **more: float) -> PacketCost:
    """A PacketCost of ``cycles`` per 64 B packet, ``basis`` saying where the figure comes from."""
    return PacketCost(cycles=cycles, basis=basis, **more)


#: ``ethip4-ip4base``'s cycles per 64 B packet on the sim (``kinds/ip4``: CSIT's NDR near 18 Mpps).
IP4BASE_CYCLES = 145.0


def relative_cost(cycles: float, what: str, *, per_dut: bool = False) -> PacketCost:
    """A PacketCost of ``cycles`` whose basis says ``what`` it is and its speed relative to
    ``ethip4-ip4base`` ("<what>: 0.30x ethip4-ip4base", "... per DUT")."""
    where = " per DUT" if per_dut else ""
    return cost(cycles, f"{what}: {IP4BASE_CYCLES / cycles:.2f}x ethip4-ip4base{where}")
