"""ndrpdr's own family: ``ethip4udp-ip4base``, IPv4 routing of UDP flows whose count a test sets.

Not a CSIT id. Each direction sends UDP from host 1 of its prefix to host 1
of the other, the UDP source port stepping through ``flows`` values from
1024 (default ``DEFAULT_FLOWS``), so RSS on the 5-tuple spreads it over
queues. Every DUT driver routes it (the basic ``ip4base`` set-up).
"""

from __future__ import annotations

from ndrpdr.families import vppip
from ndrpdr.families.build import cost, direction_hosts, setup
from ndrpdr.families.kinds.ip4.defs import IP4BASE_COST
from ndrpdr.families.model import Family
from ndrpdr.families.vppsetup import VppCommands
from ndrpdr.profiles import Headers, Profile, Vary

#: Flows per direction when a test does not say.
DEFAULT_FLOWS = 1024

_ID = "ethip4udp-ip4base"


def _headers(direction: int) -> Headers:
    src, dst = direction_hosts(4, direction, 1)
    return Headers(4, src, dst, "udp", vary=(Vary("udp.sport", DEFAULT_FLOWS),))


#: Where this kind's families come in the list of every family (``registry``).
ORDER = 10

FAMILIES = [
    Family(
        id=_ID,
        tags=("ETH", "IP4FWD", "BASE", "UDP"),
        duts=(1, 2),
        csit=False,
        profile=Profile(
            name=_ID,
            description=(
                "Ethernet/IPv4/UDP, N flows per direction (UDP source port varies, "
                f"default {DEFAULT_FLOWS}), DUT routes IPv4"
            ),
            layer="L3",
            directions=(_headers(0), _headers(1)),
            cost=cost(IP4BASE_COST.cycles * 1.05, "ethip4-ip4base's cost, plus UDP's 8 B"),
            multi_flow=True,
        ),
        setup=setup(
            {"linux": "ip4base", "testpmd": "ip4base", "l3fwd": "ip4base", "ovs": "ip4base"},
            vpp=VppCommands((), vppip.ip4_base, vppip.ip4_base_undo),
        ),
        note="ndrpdr's own multi-flow family (not a CSIT id); flows set per test.",
    )
]
