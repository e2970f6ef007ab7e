"""IPv6 routing families: ``ethip6-ip6base`` and the FIB scale families.

``ethip6-ip6base`` (CSIT's ``trex-stl-ethip6-ip6src253``): Ethernet/IPv6,
no L4 header; each direction sends from 253 sources (host ::2 to ::fe of
its /64, ``inc``) to host ::2 of the other /64 (``DIRECTION_PREFIXES6``).

``ethip6-ip6scale<N>[-rnd]`` (CSIT's ``trex-stl-ethip6-ip6dst<N/2>-2p`` and
``-ip6dst-rnd``): N host routes, half per direction; each direction sends
from one source to N/2 destinations in order or at random (seeded,
repeatable): direction 0 from 2100::1 to 2200:: on, direction 1 from
2200::1 to 2100:: on, as CSIT's profiles (CSIT's own ranges: /128 host
routes; the low 64 bits vary).

Costs (sim), relative to ``ethip4-ip4base`` (general knowledge of CSIT's
published reports, unverified): ip6base 0.8-0.9 (longer headers, a
128-bit lookup), 2M random routes 0.4-0.5. The figures sit in those
ranges.
"""

from __future__ import annotations

from ndrpdr.families import vppip
from ndrpdr.families.build import (
    CSIT_RENUMBERED,
    cost,
    fib_startup,
    setup,
    src_range_traffic,
    vpp_only,
)
from ndrpdr.families.model import CsitDifference, Family
from ndrpdr.families.vppsetup import VppCommands
from ndrpdr.profiles import Headers, Op, PacketCost, Profile, Vary

IP6BASE_COST = cost(172.0, "CSIT 64B-1c ethip6-ip6base NDR near 15 Mpps on 2.6 GHz cores")
_NO_NEXT_HEADER = 59  # CSIT's IPv6 profiles carry nothing after the IPv6 header
_NOT_BASIC = "the {driver} driver forwards IPv4 or L2 only; {family} routes IPv6 (VPP only)"


def _reasons(family: str) -> dict[str, str]:
    return vpp_only(_NOT_BASIC.format(driver="{driver}", family=family))


def _scale_headers(per_direction: int, op: Op) -> tuple[Headers, Headers]:
    def one(src: str, dst: str) -> Headers:
        return Headers(6, src, dst, _NO_NEXT_HEADER, vary=(Vary("ip.dst", per_direction, op),))

    return one("2100::1", "2200::"), one("2200::1", "2100::")


def _family(family: str, tags: tuple[str, ...], text: str, headers: tuple[Headers, Headers],
            packet_cost: PacketCost, vpp: VppCommands, csit_profile: str,
            csit_differences: tuple[CsitDifference, ...] = ()) -> Family:  # fmt: skip
    return Family(
        id=family,
        tags=tags,
        duts=(1, 2),
        profile=Profile(
            name=family,
            description=text,
            layer="L3",
            directions=headers,
            cost=packet_cost,
        ),
        setup=setup(vpp=vpp, reasons=_reasons(family)),
        csit_profile=csit_profile,
        csit_differences=csit_differences,
    )


def _scale(routes: int, label: str, op: Op, cycles: float) -> Family:
    family = f"ethip6-ip6scale{label}" + ("-rnd" if op == "random" else "")
    order = "random" if op == "random" else "in order"
    headers = _scale_headers(routes // 2, op)
    routing = vppip.ScaleRouting(vppip.HostRoutes(family, headers))
    return _family(
        family,
        (
            "ETH",
            "IP6FWD",
            *(("IP6_RND",) if op == "random" else ()),
            "SCALE",
            f"FIB_{label.upper()}",
        ),
        f"Ethernet/IPv6, {routes} host routes, {routes // 2} destinations per direction "
        f"({order}), DUT routes IPv6",
        headers,
        cost(cycles, f"ethip6-ip6base's 172 cycles plus FIB misses of {routes} routes ({order})"),
        VppCommands(
            (),
            routing.commands,
            routing.undo,
            settle_s=vppip.MLD_SETTLE_S,
            startup=fib_startup(routes),
        ),
        f"trex-stl-ethip6-ip6dst{'-rnd' if op == 'random' else ''}{routes // 2}-2p",
    )


#: Where this kind's families come in the list of every family (``registry``).
ORDER = 30

FAMILIES = [
    _family(
        "ethip6-ip6base",
        ("ETH", "IP6FWD", "BASE", "IP6BASE"),
        "Ethernet/IPv6, 253 flows per direction, DUT routes IPv6",
        src_range_traffic(6, 2, 253, l4=_NO_NEXT_HEADER),
        IP6BASE_COST,
        VppCommands((), vppip.ip6_base, vppip.ip6_base_undo, settle_s=vppip.MLD_SETTLE_S),
        "trex-stl-ethip6-ip6src253",
        CSIT_RENUMBERED,
    ),
    _scale(20_000, "20k", "inc", 195.0),
    _scale(20_000, "20k", "random", 210.0),
    _scale(2_000_000, "2m", "random", 340.0),
]
