"""IP feature families: a policer or an ADL allowlist on top of base IPv4 / IPv6 routing.

``ethip4-ip4base-ipolicemarkbase``, ``ethip4-ip4base-adlalwlistbase``
(CSIT's ``trex-stl-ethip4-ip4src253``) and ``ethip6-ip6base-adlalwlistbase``
(``trex-stl-ethip6-ip6src253``) send the base families' traffic
(``ndrpdr.families.kinds.ip4.defs``, ``ip6``): 253 sources per direction to host 2 of
the far prefix. CSIT runs them on 2-node and 3-node, with its tags (the policer's
without ``ETH``); the set-ups
(``ndrpdr.families.kinds.features.vpp``) put the policer or the allowlist on the
ports facing the TG. Every frame passes: the policer transmits or marks
(its rates are far below any load; what is measured is its cost), the
allowlist permits the traffic's own sources.

Costs (sim), relative to the base family (general knowledge of CSIT's
published reports, unverified): a classifier and policer about 0.7-0.8 of
ip4base, the ADL input check about 0.85-0.95. The figures sit there.
"""

from __future__ import annotations

from ndrpdr.dut.base import VppSetup
from ndrpdr.families.build import CSIT_RENUMBERED, cost, setup, src_range_traffic, vpp_only
from ndrpdr.families.kinds.features.vpp import Adl, Policer
from ndrpdr.families.kinds.ip4.defs import IP4BASE_COST
from ndrpdr.families.kinds.ip6.defs import IP6BASE_COST
from ndrpdr.families.model import Family
from ndrpdr.profiles import PacketCost, Profile


def _feature(family: str, ip_version: int, tags: tuple[str, ...], what: str,
             packet_cost: PacketCost, vpp: VppSetup, plugin: str) -> Family:  # fmt: skip
    return Family(
        csit_profile=f"trex-stl-ethip{ip_version}-ip{ip_version}src253",
        csit_differences=CSIT_RENUMBERED,
        id=family,
        tags=tags,
        duts=(1, 2),
        plugins=(plugin,),
        profile=Profile(
            name=family,
            description=f"Ethernet/IPv{ip_version}, 253 flows per direction, DUT routes "
            f"IPv{ip_version} {what}",
            layer="L3",
            directions=src_range_traffic(ip_version, 2, 253, l4=61 if ip_version == 4 else 59),
            cost=packet_cost,
        ),
        setup=setup(
            vpp=vpp,
            reasons=vpp_only(
                f"the {{driver}} driver has no {plugin} set-up for {family} (VPP only)"
            ),
        ),
    )


#: Where this kind's families come in the list of every family (``registry``).
ORDER = 110

FAMILIES = [
    _feature(
        "ethip4-ip4base-ipolicemarkbase",
        4,
        ("IP4FWD", "FEATURE", "POLICE_MARK"),
        "through a color-aware 2R3C policer (classified by destination) on its TG ports",
        cost(IP4BASE_COST.cycles * 1.35, "ip4base plus a classify lookup and a policer (0.74x)"),
        Policer(),
        "policer",
    ),
    _feature(
        "ethip4-ip4base-adlalwlistbase",
        4,
        ("ETH", "IP4FWD", "FEATURE", "ADLALWLIST"),
        "after an ADL allowlist check of the source on its TG port",
        cost(IP4BASE_COST.cycles * 1.12, "ip4base plus an ADL source lookup (0.89x)"),
        Adl(4),
        "adl",
    ),
    _feature(
        "ethip6-ip6base-adlalwlistbase",
        6,
        ("ETH", "IP6FWD", "FEATURE", "ADLALWLIST"),
        "after an ADL allowlist check of the source on its TG port",
        cost(IP6BASE_COST.cycles * 1.12, "ip6base plus an ADL source lookup (0.89x)"),
        Adl(6),
        "adl",
    ),
]
