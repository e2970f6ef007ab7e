"""3-node SRv6 proxy families: an SR-unaware service function behind each DUT's SRv6 proxy.

``ethip6srhip6-ip6base-srv6proxy-{dyn,masq,stat}`` (CSIT's
``tests/vpp/perf/srv6``, 3-node only) send CSIT's
``trex-stl-ethip6-ip6src253`` (as ``ndrpdr.families.kinds.srv6.defs``): Ethernet/IPv6
(next header 59), 253 sources per direction. The DUT the traffic enters
encapsulates it into SRv6 with three SIDs; the other DUT's proxy SID
(``End.AD`` dynamic, ``End.AM`` masquerading, ``End.AS`` static) hands
the inner packet to the service function (CSIT's container: a second VPP
over two memifs, here in a network namespace of its own on the DUT's
host), takes it back and sends it on, still encapsulated, to the TG
(``ndrpdr.families.kinds.srv6proxy.vpp``).

Costs (sim), per DUT, relative to ``ethip4-ip4base`` (general knowledge of
CSIT's published reports, unverified): SRv6 encapsulation one way, the
proxy and two memif copies through the service function's VPP the other,
about 0.3. The figures sit there, masquerading the cheapest.
"""

from __future__ import annotations

from ndrpdr.families.build import CSIT_RENUMBERED, relative_cost, setup, src_range_traffic, vpp_only
from ndrpdr.families.kinds.srv6proxy.vpp import Srv6ProxyVpp
from ndrpdr.families.model import Family
from ndrpdr.profiles import Profile

#: Per behaviour: CSIT's tag, what it does, cycles per 64 B packet per DUT.
PROXIES: dict[str, tuple[str, str, float]] = {
    "dyn": ("SRv6_PROXY_DYN", "dynamic proxy (End.AD)", 480.0),
    "masq": ("SRv6_PROXY_MASQ", "masquerading proxy (End.AM)", 455.0),
    "stat": ("SRv6_PROXY_STAT", "static proxy (End.AS)", 470.0),
}


def _proxy(behaviour: str) -> Family:
    family = f"ethip6srhip6-ip6base-srv6proxy-{behaviour}"
    tag, what, cycles = PROXIES[behaviour]
    vpp = Srv6ProxyVpp(behaviour)
    return Family(
        csit_profile="trex-stl-ethip6-ip6src253",
        csit_differences=CSIT_RENUMBERED,
        id=family,
        tags=("SRv6", "IP6FWD", "FEATURE", "SRv6_PROXY", tag, "MEMIF", "DOCKER"),
        duts=(2,),
        plugins=vpp.plugins,
        profile=Profile(
            name=family,
            description=f"Ethernet/IPv6, 253 flows per direction, SRv6 (SRH, 3 SIDs) between "
            f"DUT1 and DUT2, each DUT's {what} passing the inner packets through a service "
            "function (a second VPP over memif)",
            layer="L3",
            directions=src_range_traffic(6, 2, 253, l4=59),
            cost=relative_cost(cycles, family, per_dut=True),
        ),
        note="VPP on a 3-node chain (runs on topologies/local-vpp-3n.yaml); the service "
        "function behind each DUT, a second VPP cross-connecting two memifs, runs under "
        "unshare --net on the DUT's host and is started and ended with each test; the TG "
        "receives the frames SRv6-encapsulated",
        setup=setup(
            vpp=vpp,
            reasons=vpp_only(
                f"{family} chains an SRv6 proxy and a second VPP over memif: the {{driver}} "
                "driver has neither (VPP only)"
            ),
        ),
    )


#: Where this kind's families come in the list of every family (``registry``).
ORDER = 140

FAMILIES = [_proxy(b) for b in PROXIES]
