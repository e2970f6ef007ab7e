"""3-node SRv6 families: DUT1 encapsulates into SRv6, DUT2 decapsulates, and back.

All send CSIT's ``trex-stl-ethip6-ip6src253`` (``ndrpdr.families.kinds.ip6.defs``).
``ethip6ip6-ip6base-srv6enc1sid``: IPv6-in-IPv6 with one SID (no SRH);
``ethip6srhip6-ip6base-srv6enc2sids``: an SRH with two SIDs, the second
DUT ending the segment and decapsulating; ``-nodecaps``: two SIDs, the
last one without decapsulation behaviour (End.DX6 vs End).

Costs (sim), per DUT, relative to ``ethip4-ip4base`` (general knowledge of
CSIT's published reports, unverified): one SID 0.5-0.7, two SIDs (an SRH)
lower. The figures sit there.
"""

from __future__ import annotations

from ndrpdr.families.build import CSIT_RENUMBERED, relative_cost, setup, src_range_traffic, vpp_only
from ndrpdr.families.kinds.srv6.vpp import Srv6Vpp
from ndrpdr.families.model import Family
from ndrpdr.profiles import Profile


def _srv6(family: str, tags: tuple[str, ...], what: str, cycles: float) -> Family:
    sids = 1 if family.endswith("1sid") else 2
    return Family(
        csit_profile="trex-stl-ethip6-ip6src253",
        csit_differences=CSIT_RENUMBERED,
        id=family,
        tags=("ETH", "IP6FWD", "FEATURE", "SRv6", *tags),
        duts=(2,),
        profile=Profile(
            name=family,
            description=f"Ethernet/IPv6, 253 flows per direction, {what} between DUT1 and DUT2",
            layer="L3",
            directions=src_range_traffic(6, 2, 253, l4=59),
            cost=relative_cost(cycles, family, per_dut=True),
        ),
        note="VPP on a 3-node chain (runs on topologies/local-vpp-3n.yaml)",
        setup=setup(
            vpp=Srv6Vpp(sids, decap=not family.endswith("-nodecaps")),
            reasons=vpp_only(f"the {{driver}} driver has no SRv6 set-up for {family} (VPP only)"),
        ),
    )


#: Where this kind's families come in the list of every family (``registry``).
ORDER = 70

FAMILIES = [
    _srv6("ethip6ip6-ip6base-srv6enc1sid", ("SRv6_1SID",), "SRv6 with one SID", 242.0),
    _srv6(
        "ethip6srhip6-ip6base-srv6enc2sids", ("SRv6_2SID_DECAP",), "SRv6 (SRH) with two SIDs", 279.0
    ),
    _srv6(
        "ethip6srhip6-ip6base-srv6enc2sids-nodecaps",
        ("SRv6_2SID_NODECAP",),
        "SRv6 (SRH) with two SIDs, no decapsulation on the way",
        264.0,
    ),
]
