"""3-node GTP-U families: DUT1 and DUT2 route IPv4 over a GTP-U tunnel between them.

``ethip4gtpusw-ip4base`` and ``ethip4gtpusw-ip4base-reassembly`` (CSIT's
``tests/vpp/perf/ip4_tunnels``, 3-node only) send CSIT's
``trex-stl-ethip4-ip4src253``, as ``ethip4-ip4base``: Ethernet/IPv4
(proto 61), each direction from 253 sources of its prefix to host .2 of
the other. Each DUT routes what it gets from its TG into one GTP-U tunnel
to the other DUT, which decapsulates and routes it to its TG
(``ndrpdr.families.kinds.gtpu.vpp``). ``-reassembly``: the DUT - DUT link's MTU
is 1043 B, so larger tunnelled packets cross it in fragments.

Costs (sim), per DUT, relative to ``ethip4-ip4base`` (general knowledge of
CSIT's published reports, unverified): GTP-U encapsulation on one DUT and
decapsulation on the other about 0.6 (as VXLAN); with fragmentation and
reassembly the large frames cost about twice as much. The figures sit
there.
"""

from __future__ import annotations

from ndrpdr.families.build import CSIT_RENUMBERED, cost, setup, src_range_traffic, vpp_only
from ndrpdr.families.kinds.gtpu.vpp import GtpuVpp
from ndrpdr.families.model import Family
from ndrpdr.profiles import Profile

#: Cycles per 64 B packet per DUT; per byte above 64 with fragmentation and reassembly.
CYCLES = 240.0
REASSEMBLY_CYCLES_PER_BYTE = 0.25


def _gtpu(family: str, reassembly: bool) -> Family:
    return Family(
        csit_profile="trex-stl-ethip4-ip4src253",
        csit_differences=CSIT_RENUMBERED,
        id=family,
        tags=("IP4FWD", "IP4BASE", "ENCAP", "GTPU", *(("REASSEMBLY",) if reassembly else ())),
        duts=(2,),
        plugins=("gtpu",),
        profile=Profile(
            name=family,
            description="Ethernet/IPv4 (proto 61), 253 flows per direction, routed over a GTP-U "
            "tunnel between DUT1 and DUT2"
            + (" whose link's MTU (1043 B) fragments large packets" if reassembly else ""),
            layer="L3",
            directions=src_range_traffic(4, 2, 253),
            cost=cost(
                CYCLES,
                f"{family}: GTP-U about 0.6x ethip4-ip4base per DUT"
                + (", fragments and reassembly on top" if reassembly else ""),
                cycles_per_byte=REASSEMBLY_CYCLES_PER_BYTE if reassembly else 0.0,
            ),
        ),
        note="VPP on a 3-node chain (runs on topologies/local-vpp-3n.yaml; gtpu plugin)"
        + (
            "; 9000B: VPP keeps its default limit of 3 fragments a packet, as CSIT, so those "
            "frames are dropped"
            if reassembly
            else ""
        ),
        setup=setup(
            vpp=GtpuVpp(reassembly),
            reasons=vpp_only(f"the {{driver}} driver has no GTP-U set-up for {family} (VPP only)"),
        ),
    )


#: Where this kind's families come in the list of every family (``registry``).
ORDER = 120

FAMILIES = [
    _gtpu("ethip4gtpusw-ip4base", reassembly=False),
    _gtpu("ethip4gtpusw-ip4base-reassembly", reassembly=True),
]
