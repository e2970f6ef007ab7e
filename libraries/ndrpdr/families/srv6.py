"""3-node SRv6 families: DUT1 encapsulates into SRv6, DUT2 decapsulates, and back.

All send CSIT's ``trex-stl-ethip6-ip6src253`` (``ndrpdr.families.ip6``).
``ethip6ip6-ip6base-srv6enc1sid``: IPv6-in-IPv6 with one SID (no SRH);
``ethip6srhip6-ip6base-srv6enc2sids``: an SRH with two SIDs, the second
DUT ending the segment and decapsulating; ``-nodecaps``: two SIDs, the
last one without decapsulation behaviour (End.DX6 vs End).

Costs (sim): CSIT's results put SRv6 encapsulation at about half of
ip6base per DUT at 64B-1c; magnitudes.
"""

from __future__ import annotations

from ndrpdr.families.build import cost, setup, src_range_traffic
from ndrpdr.families.model import Family
from ndrpdr.profiles import Profile


def _srv6(family: str, tags: tuple[str, ...], what: str, cycles: float) -> Family:
    return Family(
        id=family,
        tags=("ETH", "IP6FWD", "FEATURE", "SRv6", *tags),
        duts=(2,),
        profile=Profile(
            name=family,
            description=f"Ethernet/IPv6, 253 flows per direction, {what} between DUT1 and DUT2",
            layer="L3",
            directions=src_range_traffic(6, 2, 253, l4=59),
            cost=cost(cycles, f"CSIT 64B-1c {family}: about half of ip6base per DUT"),
        ),
        setup=setup(
            family,
            reasons={
                d: f"the {d} driver has no SRv6 set-up for {family} (VPP only)"
                for d in ("linux", "testpmd", "l3fwd", "ovs")
            },
        ),
    )


FAMILIES = [
    _srv6("ethip6ip6-ip6base-srv6enc1sid", ("SRv6_1SID",), "SRv6 with one SID", 320.0),
    _srv6(
        "ethip6srhip6-ip6base-srv6enc2sids", ("SRv6_2SID_DECAP",), "SRv6 (SRH) with two SIDs", 360.0
    ),
    _srv6(
        "ethip6srhip6-ip6base-srv6enc2sids-nodecaps",
        ("SRv6_2SID_NODECAP",),
        "SRv6 (SRH) with two SIDs, no decapsulation on the way",
        340.0,
    ),
]
