"""The 3-node link bonding family: ``eth-l2xcbase-1lbvpplacp``.

CSIT's ``tests/vpp/perf/l2`` suite (3-node only) sends
``trex-stl-ethip4-ip4src254``, as the L2 families
(``ndrpdr.families.kinds.l2.defs``): Ethernet/IPv4 (proto 61), each direction from
254 sources to host .1 of the other prefix, addressed to the far TG
port's MAC. Each DUT cross-connects its TG port with an LACP bond whose
one member is the DUT1 - DUT2 link (``ndrpdr.families.kinds.lacp.vpp``).

Cost (sim), per DUT, relative to ``ethip4-ip4base`` (general knowledge of
CSIT's published reports, unverified): a cross-connect through a bond
about 1.0-1.1 (the bond's own input and output nodes on top of
``eth-l2xcbase``'s 1.2). The figure sits there.
"""

from __future__ import annotations

from ndrpdr.families.build import CSIT_RENUMBERED, cost, setup, src_range_traffic, vpp_only
from ndrpdr.families.kinds.lacp.vpp import LacpVpp
from ndrpdr.families.model import Family
from ndrpdr.profiles import Profile

FAMILY = "eth-l2xcbase-1lbvpplacp"
#: Cycles per 64 B packet per DUT.
CYCLES = 138.0

#: Where this kind's families come in the list of every family (``registry``).
ORDER = 130

FAMILIES = [
    Family(
        csit_profile="trex-stl-ethip4-ip4src254",
        csit_differences=CSIT_RENUMBERED,
        id=FAMILY,
        tags=(
            "ETH",
            "L2XCBASE",
            "BASE",
            "LBOND",
            "LBOND_1L",
            "LBOND_VPP",
            "LBOND_MODE_LACP",
            "LBOND_LB_L34",
        ),
        duts=(2,),
        plugins=("lacp",),
        profile=Profile(
            name=FAMILY,
            description="Ethernet/IPv4 (proto 61), 254 flows per direction, each DUT "
            "cross-connects its TG port with an LACP bond of the DUT1 - DUT2 link",
            layer="L2",
            directions=src_range_traffic(4, 1, 254),
            cost=cost(CYCLES, f"{FAMILY}: about 1.05x ethip4-ip4base per DUT"),
        ),
        note="VPP on a 3-node chain (runs on topologies/local-vpp-3n.yaml; lacp plugin; the "
        f"driver waits {LacpVpp().settle_s:.0f} s after the set-up for both ends' LACP "
        "to agree)",
        setup=setup(
            {"sim": "l2xc"},
            vpp=LacpVpp(),
            reasons=vpp_only(
                f"the {{driver}} driver has no link bonding set-up for {FAMILY} (VPP only)"
            ),
        ),
    )
]
