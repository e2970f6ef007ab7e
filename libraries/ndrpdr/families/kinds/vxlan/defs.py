"""3-node VXLAN families: DUT1 and DUT2 switch the TG's frames over a VXLAN tunnel.

``ethip4vxlan-l2xcbase`` and ``ethip4vxlan-l2bdbasemaclrn`` (CSIT's
``tests/vpp/perf/ip4_tunnels``, 3-node only) send CSIT's
``trex-stl-ethip4-ip4src254``, as the L2 families (``ndrpdr.families.kinds.l2.defs``):
Ethernet/IPv4 (proto 61), each direction from 254 sources to host .1 of
the other prefix, addressed to the far TG port's MAC. Each DUT
cross-connects (bridges, learning MACs) its TG port with one VXLAN tunnel
to the other DUT (``ndrpdr.families.kinds.vxlan.vpp``); the DUT - DUT link
carries the frames with 50 B of outer headers.

Costs (sim), per DUT, relative to ``ethip4-ip4base`` (general knowledge of
CSIT's published reports, unverified): VXLAN with a cross-connect about
0.6-0.7 (each DUT encapsulates one direction and decapsulates the other),
with a learning bridge 0.5-0.6. The figures sit there.
"""

from __future__ import annotations

from ndrpdr.families.build import CSIT_RENUMBERED, relative_cost, setup, src_range_traffic, vpp_only
from ndrpdr.families.kinds.vxlan.vpp import VxlanVpp
from ndrpdr.families.model import Family
from ndrpdr.profiles import Profile


def _vxlan(family: str, mode: str, tags: tuple[str, ...], what: str, cycles: float) -> Family:
    return Family(
        csit_profile="trex-stl-ethip4-ip4src254",
        csit_differences=CSIT_RENUMBERED,
        id=family,
        tags=(*tags, "ENCAP", "VXLAN", "L2OVRLAY", "IP4UNRLAY"),
        duts=(2,),
        plugins=("vxlan",),
        profile=Profile(
            name=family,
            description=f"Ethernet/IPv4 (proto 61), 254 flows per direction, {what} "
            "over a VXLAN tunnel between DUT1 and DUT2",
            layer="L2",
            directions=src_range_traffic(4, 1, 254),
            cost=relative_cost(cycles, family, per_dut=True),
        ),
        note="VPP on a 3-node chain (runs on topologies/local-vpp-3n.yaml; vxlan plugin)",
        setup=setup(
            {"sim": "l2xc"},
            vpp=VxlanVpp(mode),
            reasons=vpp_only(f"the {{driver}} driver has no VXLAN set-up for {family} (VPP only)"),
        ),
    )


#: Where this kind's families come in the list of every family (``registry``).
ORDER = 90

FAMILIES = [
    _vxlan(
        "ethip4vxlan-l2xcbase",
        "l2xc",
        ("L2XCFWD",),
        "each DUT cross-connects its TG port",
        223.0,
    ),
    _vxlan(
        "ethip4vxlan-l2bdbasemaclrn",
        "l2bd",
        ("L2BDMACLRN",),
        "each DUT bridges its TG port, learning MACs,",
        264.0,
    ),
]
