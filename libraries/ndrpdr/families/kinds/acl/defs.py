"""ACL and classifier families.

``ethip4udp-ip4base-{i,o}acl50{sf,sl}-10kflows`` (CSIT's
``trex-stl-ethip4udp-10u1000p-conc``): Ethernet/IPv4/UDP; each direction
walks 10 source and 10 destination addresses (hosts .2 to .11 of the two
prefixes) frame by frame, and the UDP source and destination ports step
once per 10 frames through 1000 values each (1001-2000 and 2001-3000,
swapped in direction 1), as the tuple generators of CSIT's profile (the
address moves first, the port when it wraps): 10k flows per direction.
The DUT routes IPv4 and applies an ACL on its input (``iacl``) or output
(``oacl``) interfaces: CSIT's 50 rules the traffic never hits (IP
protocol 0, from 30.30.30.(1+k)/32 to 40.40.40.(1+k)/32, source and
destination port 1000+k; ``ndrpdr.families.kinds.acl.vpp``), then the two it
hits, permitting either direction's source prefix, stateful (``sf``: permit+reflect,
sessions) or stateless (``sl``). CSIT's frames carry the 10.10.10.0/24
and 20.20.20.0/24 addresses of its ACL suites; ours the two test
prefixes, as every routed family. CSIT pads its frames with unseeded
random letters; ours with the signature and zeros.

``ethip4-ip4base-iacldstbase`` / ``ethip6-ip6base-iacldstbase``: the
base IPv4 / IPv6 traffic, the DUT's input classifier matching the
destination address (a VPP classify table and session).

Costs (sim), relative to ``ethip4-ip4base`` (general knowledge of CSIT's
published reports, unverified): ACL-50 stateless 0.4-0.6, stateful
(sessions kept per flow) 0.35-0.5, output ACLs a little below input ones;
the destination classifier 0.7-0.8 of its base. The figures sit in those
ranges.
"""

from __future__ import annotations

from ndrpdr.families.build import (
    CSIT_RENUMBERED,
    cost,
    direction_hosts,
    relative_cost,
    setup,
    src_range_traffic,
    vpp_only,
)
from ndrpdr.families.kinds.acl.vpp import Acl50, ClassifyDst
from ndrpdr.families.kinds.ip4.defs import IP4BASE_COST
from ndrpdr.families.kinds.ip6.defs import IP6BASE_COST
from ndrpdr.families.model import Family
from ndrpdr.families.vppip import MLD_SETTLE_S
from ndrpdr.families.vppsetup import VppCommands
from ndrpdr.profiles import Headers, PacketCost, Profile, Vary


def _flows10k(direction: int) -> Headers:
    src, dst = direction_hosts(4, direction, 2)
    sport, dport = (1001, 2001) if direction == 0 else (2001, 1001)
    return Headers(
        4, src, dst, "udp", sport=sport, dport=dport,
        vary=(
            Vary("ip.src", 10),
            Vary("ip.dst", 10),
            Vary("udp.sport", 1000, every=10),
            Vary("udp.dport", 1000, every=10),
        ),
    )  # fmt: skip


def _reasons(family: str) -> dict[str, str]:
    return vpp_only(
        f"the {{driver}} driver has no ACL or classifier set-up for {family} (VPP only)"
    )


def _acl(side: str, kind: str, cycles: float) -> Family:
    family = f"ethip4udp-ip4base-{side}acl50{kind}-10kflows"
    where = "input" if side == "i" else "output"
    how = "stateful (permit+reflect)" if kind == "sf" else "stateless"
    acl = Acl50(
        "permit+reflect" if kind == "sf" else "permit", "input" if side == "i" else "output"
    )
    return Family(
        csit_profile="trex-stl-ethip4udp-10u1000p-conc",
        csit_differences=CSIT_RENUMBERED,
        id=family,
        tags=(
            "ETH",
            "IP4FWD",
            "FEATURE",
            "ACL",
            "ACL_STATEFUL" if kind == "sf" else "ACL_STATELESS",
            f"{side.upper()}ACL",
            "ACL50",
            "10K_FLOWS",
        ),
        duts=(1, 2),
        plugins=("acl",),
        profile=Profile(
            name=family,
            description=f"Ethernet/IPv4/UDP, 10k flows per direction, DUT routes IPv4 through a "
            f"{how} {where} ACL of 50 rules",
            layer="L3",
            directions=(_flows10k(0), _flows10k(1)),
            cost=relative_cost(cycles, f"{where} ACL-50 {how}"),
        ),
        setup=setup(vpp=VppCommands(("acl",), acl.commands, acl.undo), reasons=_reasons(family)),
    )


def _dstbase(ip_version: int, packet_cost: PacketCost) -> Family:
    family = f"ethip{ip_version}-ip{ip_version}base-iacldstbase"
    l4 = 61 if ip_version == 4 else 59
    classify = ClassifyDst(4 if ip_version == 4 else 6)
    return Family(
        csit_profile=f"trex-stl-ethip{ip_version}-ip{ip_version}src253",
        csit_differences=CSIT_RENUMBERED,
        id=family,
        tags=("ETH", f"IP{ip_version}FWD", "FEATURE", "IACLDST"),
        duts=(1, 2),
        profile=Profile(
            name=family,
            description=f"Ethernet/IPv{ip_version}, 253 flows per direction, DUT routes "
            f"IPv{ip_version} after an input classifier on the destination address",
            layer="L3",
            directions=src_range_traffic(ip_version, 2, 253, l4=l4),
            cost=packet_cost,
        ),
        setup=setup(
            vpp=VppCommands(
                (),
                classify.commands,
                classify.undo,
                settle_s=MLD_SETTLE_S if ip_version == 6 else 0.0,
            ),
            reasons=_reasons(family),
        ),
    )


#: Where this kind's families come in the list of every family (``registry``).
ORDER = 50

FAMILIES = [
    _acl("i", "sf", 345.0),
    _acl("i", "sl", 290.0),
    _acl("o", "sf", 370.0),
    _acl("o", "sl", 310.0),
    _dstbase(4, cost(IP4BASE_COST.cycles * 1.3, "ip4base plus a classify table lookup (0.77x)")),
    _dstbase(6, cost(IP6BASE_COST.cycles * 1.3, "ip6base plus a classify table lookup (0.77x)")),
]
