"""3-node GTP-U families: DUT1 and DUT2 route IPv4 over a GTP-U tunnel between them.

``ethip4gtpusw-ip4base`` and ``ethip4gtpusw-ip4base-reassembly`` (CSIT's
``tests/vpp/perf/ip4_tunnels``, 3-node only) send CSIT's
``trex-stl-ethip4-ip4src253``, as ``ethip4-ip4base``: Ethernet/IPv4
(proto 61), each direction from 253 sources of its prefix to host .2 of
the other. Each DUT routes what it gets from its TG into one GTP-U tunnel
to the other DUT, which decapsulates and routes it to its TG
(``ndrpdr.families.kinds.gtpu.vpp``). ``-reassembly``: the DUT - DUT link's MTU
is 1043 B, so larger tunnelled packets cross it in fragments.
``ethip4gtpuhw-ip4base``: the same with GTP-U RX offload (CSIT's
``GTPU_HWACCEL``): each DUT's NIC port facing the other DUT classifies the
tunnel's packets (rte_flow); a node whose port is not such a NIC (CSIT
runs it on Intel X710 and E810) or not under DPDK skips the test.

Costs (sim), per DUT, relative to ``ethip4-ip4base`` (general knowledge of
CSIT's published reports, unverified): GTP-U encapsulation on one DUT and
decapsulation on the other about 0.6 (as VXLAN); with fragmentation and
reassembly the large frames cost about twice as much. The figures sit
there. With the NIC classifying the tunnel's packets (our choice,
unverified), decapsulation skips the IPv4 lookup and UDP demultiplexing
of the outer packet: 85 % of the software cycles (``OFFLOAD_COST``).
"""

from __future__ import annotations

from ndrpdr.families.build import CSIT_RENUMBERED, cost, setup, src_range_traffic, vpp_only
from ndrpdr.families.kinds.gtpu.vpp import GtpuVpp
from ndrpdr.families.model import Family
from ndrpdr.profiles import Profile

#: Cycles per 64 B packet per DUT; per byte above 64 with fragmentation and reassembly.
CYCLES = 240.0
REASSEMBLY_CYCLES_PER_BYTE = 0.25
#: GTP-U with RX flow offload: a factor on ``CYCLES``.
OFFLOAD_COST = 0.85


def _gtpu(family: str, reassembly: bool, *, offload: bool = False) -> Family:
    offloaded = ", the NICs classify the tunnel's packets (RX flow offload)" if offload else ""
    return Family(
        csit_profile="trex-stl-ethip4-ip4src253",
        csit_differences=CSIT_RENUMBERED,
        id=family,
        tags=(
            "IP4FWD",
            "IP4BASE",
            "ENCAP",
            "GTPU",
            *(("REASSEMBLY",) if reassembly else ()),
            *(("GTPU_HWACCEL",) if offload else ()),
        ),
        duts=(2,),
        plugins=("gtpu",),
        profile=Profile(
            name=family,
            description="Ethernet/IPv4 (proto 61), 253 flows per direction, routed over a GTP-U "
            "tunnel between DUT1 and DUT2"
            + (" whose link's MTU (1043 B) fragments large packets" if reassembly else "")
            + offloaded,
            layer="L3",
            directions=src_range_traffic(4, 2, 253),
            cost=cost(
                CYCLES * OFFLOAD_COST if offload else CYCLES,
                f"{family}: GTP-U about 0.6x ethip4-ip4base per DUT"
                + (", fragments and reassembly on top" if reassembly else "")
                + (", 0.85x of it with RX flow offload" if offload else ""),
                cycles_per_byte=REASSEMBLY_CYCLES_PER_BYTE if reassembly else 0.0,
            ),
        ),
        note=(
            "VPP on a 3-node chain of lab nodes whose ports facing the other DUT are NICs with "
            "GTP-U flow offload under DPDK (CSIT's: Intel X710, E810; any other skips the "
            "test; gtpu plugin)"
            if offload
            else "VPP on a 3-node chain (runs on topologies/local-vpp-3n.yaml; gtpu plugin)"
        )
        + (
            "; 9000B: VPP keeps its default limit of 3 fragments a packet, as CSIT, so those "
            "frames are dropped"
            if reassembly
            else ""
        ),
        setup=setup(
            vpp=GtpuVpp(reassembly, offload=offload),
            reasons=vpp_only(f"the {{driver}} driver has no GTP-U set-up for {family} (VPP only)"),
        ),
    )


#: Where this kind's families come in the list of every family (``registry``).
ORDER = 120

FAMILIES = [
    _gtpu("ethip4gtpusw-ip4base", reassembly=False),
    _gtpu("ethip4gtpusw-ip4base-reassembly", reassembly=True),
    _gtpu("ethip4gtpuhw-ip4base", reassembly=False, offload=True),
]
