"""IPv4 routing families: ``ethip4-ip4base`` and the FIB scale families.

``ethip4-ip4base`` (CSIT's ``trex-stl-ethip4-ip4src253``): Ethernet/IPv4
with IP protocol 61 and no L4 header; each direction sends from 253 source
addresses (host .2 to .254 of its prefix, ``inc``) to host .2 of the other
prefix. The DUT routes each direction's /24 to the TG port it faces.

``ethip4-ip4scale<N>[-rnd]`` (CSIT's ``trex-stl-ethip4-ip4dst<N/2>-2p`` and
``-ip4dst-rnd<N/2>-2p``): N host routes in the DUT's FIB, half per
direction; each direction sends from one source to N/2 destinations, in
order or at random (``-rnd``): direction 0 from 10.0.0.1 to 20.0.0.0 on,
direction 1 from 20.0.0.1 to 10.0.0.0 on, as CSIT's profiles.

``ethip4-ip4scale60k-rnd`` is CSIT's 3-node suite of that name, whose
"60k" counts a 6-port TG's 6 x 10k routes; the suite itself runs on 2 TG
ports (``nic_pfs`` 2, ``rts_per_flow`` 10000) with
``trex-stl-ethip4-ip4dst-rnd10000-2p``: 10000 random destinations per
direction (20.0.0.0 - 20.0.39.15 and 10.0.0.0 - 10.0.39.15) and 2 x 10k
host routes on each DUT. Ours sends and routes the same.

Random destinations are drawn uniformly from that range by a seeded,
repeatable generator (seed 1 for direction 0, 2 for direction 1, as
CSIT's TRex ``STLVmFlowVarRepeatableRandom``; ours is not TRex's sequence:
the same range, another order). CSIT pads its frames with unseeded random
letters; ours with the frame signature and zeros.

Costs (sim): CSIT's repository publishes no per-family rates; from its
published reports (general knowledge, unverified) a recent Xeon core
forwards 64B ``ethip4-ip4base`` at 15-25 Mpps (145 cycles a packet at
2.6 GHz: 18 Mpps), the 20k FIB at 0.8-0.9 of that in order and 0.75-0.85
at random, 2M random routes at 0.45-0.6 (cache and TLB misses of a large
mtrie). The figures sit in those ranges.
"""

from __future__ import annotations

from ndrpdr.dut.base import ForwardingMode
from ndrpdr.families import vppip
from ndrpdr.families.build import (
    CSIT_RENUMBERED,
    IP4BASE_CYCLES,
    cost,
    fib_startup,
    setup,
    src_range_traffic,
    vpp_only,
)
from ndrpdr.families.model import Family
from ndrpdr.families.vppsetup import VppCommands
from ndrpdr.profiles import ANY_HOST_INTERNAL, Headers, Op, Profile, Vary

IP4BASE_COST = cost(IP4BASE_CYCLES, "CSIT 64B-1c ethip4-ip4base NDR near 18 Mpps on 2.6 GHz cores")

_BASE = "ethip4-ip4base"
_BASIC_DRIVERS: dict[str, ForwardingMode] = {
    "linux": "ip4base",
    "testpmd": "ip4base",
    "l3fwd": "ip4base",
    "ovs": "ip4base",
}
_SCALE_REASON = (
    "{family} needs {routes} host routes in the DUT's FIB; the {driver} driver routes only the "
    "two test /24s"
)


def _scale_headers(routes_per_direction: int, op: Op) -> tuple[Headers, Headers]:
    def one(src: str, dst: str) -> Headers:
        vary = (Vary("ip.dst", routes_per_direction, op),)
        return Headers(4, src, dst, ANY_HOST_INTERNAL, vary=vary)

    return one("10.0.0.1", "20.0.0.0"), one("20.0.0.1", "10.0.0.0")


def _scale(
    routes: int,
    label: str,
    op: Op,
    cycles: float,
    duts: tuple[int, ...] = (1, 2),
) -> Family:
    """``routes``: host routes on each DUT (half per direction); ``label``: CSIT's id's."""
    family = f"ethip4-ip4scale{label}" + ("-rnd" if op == "random" else "")
    directions = _scale_headers(routes // 2, op)
    routing = vppip.ScaleRouting(vppip.HostRoutes(family, directions))
    reason = vpp_only(_SCALE_REASON.format(family=family, routes=routes, driver="{driver}"))
    return Family(
        id=family,
        tags=(
            "ETH",
            "IP4FWD",
            "SCALE",
            f"FIB_{label.upper()}",
            *(("IP4_RND",) if op == "random" else ()),
        ),
        duts=duts,
        profile=Profile(
            name=family,
            description=(
                f"Ethernet/IPv4, {routes} host routes, {routes // 2} destinations per direction "
                f"({'random' if op == 'random' else 'in order'}), DUT routes IPv4"
            ),
            layer="L3",
            directions=directions,
            cost=cost(
                cycles,
                f"ethip4-ip4base's 145 cycles plus FIB misses of {routes} routes "
                f"({'random' if op == 'random' else 'sequential'} lookups)",
            ),
        ),
        setup=setup(
            vpp=VppCommands((), routing.commands, routing.undo, startup=fib_startup(routes)),
            reasons=reason,
        ),
        note=f"{routes} routes: VPP only.",
        csit_profile=(f"trex-stl-ethip4-ip4dst{'-rnd' if op == 'random' else ''}{routes // 2}-2p"),
    )


#: Where this kind's families come in the list of every family (``registry``).
ORDER = 20

FAMILIES = [
    Family(
        id=_BASE,
        tags=("ETH", "IP4FWD", "BASE", "IP4BASE"),
        duts=(1, 2),
        profile=Profile(
            name=_BASE,
            description="Ethernet/IPv4 (proto 61), 253 flows per direction, DUT routes IPv4",
            layer="L3",
            directions=src_range_traffic(4, 2, 253),
            cost=IP4BASE_COST,
        ),
        setup=setup(
            _BASIC_DRIVERS,
            vpp=VppCommands((), vppip.ip4_base, vppip.ip4_base_undo),
        ),
        csit_profile="trex-stl-ethip4-ip4src253",
        csit_differences=CSIT_RENUMBERED,
    ),
    _scale(20_000, "20k", "inc", 170.0),
    _scale(20_000, "20k", "random", 181.0),
    _scale(2_000_000, "2m", "random", 265.0),
    # CSIT's 60k suite runs 2 TG ports: 2 x 10k routes (module docstring), as 20k-rnd's work
    _scale(20_000, "60k", "random", 181.0, duts=(2,)),
]
