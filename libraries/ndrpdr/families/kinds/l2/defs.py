"""L2 families: cross-connect, patch, and bridge domains with MAC learning.

``eth-l2xcbase``, ``eth-l2patch``, ``eth-l2bdbasemaclrn`` and
``dot1q-l2bdbasemaclrn`` send CSIT's ``trex-stl-ethip4-ip4src254``:
Ethernet/IPv4 (proto 61), each direction from 254 sources (host .1 to .254
of its prefix, ``inc``) to host .1 of the other; frames are addressed to
the far TG port's MAC.

``dot1q-l2bdbasemaclrn`` sends CSIT's 2-node profile
``trex-stl-dot1qip4-vlan1ip4src254ip4dst254``: Ethernet/802.1Q/IPv4
(proto 61), direction 0 tagged VLAN 100, direction 1 VLAN 200 (CSIT's
VLAN = port number x 100), source and destination hosts .1 to .254 of the
two prefixes each drawn at random (seeded, repeatable). So the DUT's port
facing TG port 1 carries VLAN 100 and the one facing TG port 2 VLAN 200:
each gets a sub-interface of that VLAN with tag rewrite pop-1, both in one
bridge domain (tags popped on ingress, pushed on egress). CSIT's 3-node
variant sends untagged frames and tags only the DUT1-DUT2 link; a family
has one traffic, so here both chains send the tagged frames (on 3-node
DUT1's first and DUT2's last port carry the sub-interfaces).

``eth-l2bdscale10kmaclrn`` / ``-1mmaclrn`` (CSIT's
``trex-stl-ethip4-macsrc5kdst5k`` / ``-macsrc500kdst500k``): source and
destination MAC and IPv4 addresses step together through 5k (500k) values
per direction, so the bridge learns 10k (1M) MACs.

Costs (sim), relative to ``ethip4-ip4base`` (general knowledge of CSIT's
published reports, unverified; ``ndrpdr.families.kinds.ip4.defs``): l2patch 1.2-1.4
(the cheapest VPP graph), l2xc 1.1-1.3, a learning bridge 0.8-1.0, a 1M-MAC
bridge 0.5-0.7. The figures sit in those ranges.
"""

from __future__ import annotations

from collections.abc import Callable

from ndrpdr.dut.base import ForwardingMode
from ndrpdr.families.build import (
    CSIT_RENUMBERED,
    cost,
    direction_hosts,
    setup,
    src_range_traffic,
    vpp_only,
)
from ndrpdr.families.kinds.l2 import vpp as vppl2
from ndrpdr.families.model import CsitDifference, Family
from ndrpdr.families.vppsetup import VppCommands
from ndrpdr.profiles import ANY_HOST_INTERNAL, Headers, PacketCost, Profile, Vary

L2XC_COST = cost(121.0, "eth-l2xcbase at 1.2x ethip4-ip4base (CSIT: 1.1-1.3x)")


#: Makes a family's VPP set-up from its two directions' headers.
VppFor = Callable[[tuple[Headers, Headers]], VppCommands]


def _xc(directions: tuple[Headers, Headers]) -> VppCommands:
    return VppCommands((), vppl2.l2xc)


def _patch(directions: tuple[Headers, Headers]) -> VppCommands:
    return VppCommands((), vppl2.l2patch, vppl2.l2patch_undo)


def _bridge(directions: tuple[Headers, Headers]) -> VppCommands:
    bridge = vppl2.Bridge(vppl2.source_macs(directions))
    return VppCommands((), bridge.commands, bridge.undo)


def _dot1q(directions: tuple[Headers, Headers]) -> VppCommands:
    bridge = vppl2.Dot1qBridge(directions)
    return VppCommands((), bridge.commands, bridge.undo)


def _family(family: str, tags: tuple[str, ...], text: str, packet_cost: PacketCost,
            vpp: VppFor, headers: tuple[Headers, Headers] | None = None,
            modes: dict[str, ForwardingMode] | None = None,
            csit_profile: str = "trex-stl-ethip4-ip4src254",
            csit_differences: tuple[CsitDifference, ...] = CSIT_RENUMBERED) -> Family:  # fmt: skip
    directions = headers or src_range_traffic(4, 1, 254)
    chosen: dict[str, ForwardingMode] = {"sim": "l2xc", **(modes or {})}
    only = "" if modes else " (VPP only)"
    reasons = vpp_only(f"the {{driver}} driver has no {family} set-up{only}")
    return Family(
        id=family,
        tags=tags,
        duts=(1, 2),
        profile=Profile(
            name=family,
            description=text,
            layer="L2",
            directions=directions,
            cost=packet_cost,
        ),
        setup=setup(
            chosen,
            vpp=vpp(directions),
            reasons=reasons,
        ),
        csit_profile=csit_profile,
        csit_differences=csit_differences,
    )


def _mac_scale(macs_per_direction: int) -> tuple[Headers, Headers]:
    def one(src_mac: str, dst_mac: str, src: str, dst: str) -> Headers:
        vary = tuple(
            Vary(name, macs_per_direction) for name in ("eth.src", "eth.dst", "ip.src", "ip.dst")
        )
        return Headers(4, src, dst, ANY_HOST_INTERNAL, eth_src=src_mac, eth_dst=dst_mac, vary=vary)

    return (
        one("ca:fe:00:00:00:00", "fa:ce:00:00:00:00", "10.0.0.0", "20.0.0.0"),
        one("fa:ce:00:00:00:00", "ca:fe:00:00:00:00", "20.0.0.0", "10.0.0.0"),
    )


def _dot1q_traffic() -> tuple[Headers, Headers]:
    def one(direction: int, vlan: int) -> Headers:
        src, dst = direction_hosts(4, direction, 1)
        vary = (Vary("ip.src", 254, "random"), Vary("ip.dst", 254, "random"))
        return Headers(4, src, dst, ANY_HOST_INTERNAL, vlan=vlan, vary=vary)

    return one(0, 100), one(1, 200)


#: Where this kind's families come in the list of every family (``registry``).
ORDER = 40

FAMILIES = [
    _family(
        "eth-l2xcbase",
        ("ETH", "L2XCFWD", "BASE", "L2XCBASE"),
        "Ethernet/IPv4 (proto 61), 254 flows per direction, DUT cross-connects its ports",
        L2XC_COST,
        _xc,
        modes={"linux": "l2xc", "testpmd": "l2xc", "ovs": "l2xc"},
    ),
    _family(
        "eth-l2patch",
        ("ETH", "L2PATCH", "BASE"),
        "Ethernet/IPv4 (proto 61), 254 flows per direction, DUT patches its ports",
        cost(111.0, "eth-l2patch at 1.3x ethip4-ip4base (CSIT: 1.2-1.4x)"),
        _patch,
    ),
    _family(
        "eth-l2bdbasemaclrn",
        ("ETH", "L2BDMACLRN", "BASE", "L2BDBASE"),
        "Ethernet/IPv4 (proto 61), 254 flows per direction, DUT bridges with MAC learning",
        cost(160.0, "eth-l2bdbasemaclrn at 0.9x ethip4-ip4base (CSIT: 0.8-1.0x)"),
        _bridge,
    ),
    _family(
        "dot1q-l2bdbasemaclrn",
        ("BASE", "DOT1Q", "L2BDMACLRN"),
        "Ethernet/802.1Q (VLAN 100 and 200)/IPv4 (proto 61), 254 random sources and "
        "destinations per direction, DUT bridges 802.1Q sub-interfaces with MAC learning",
        cost(178.0, "eth-l2bdbasemaclrn plus a VLAN tag popped and pushed"),
        _dot1q,
        _dot1q_traffic(),
        csit_profile="trex-stl-dot1qip4-vlan1ip4src254ip4dst254",
    ),
    _family(
        "eth-l2bdscale10kmaclrn",
        ("ETH", "L2BDMACLRN", "SCALE", "L2BDSCALE", "FIB_10K"),
        "Ethernet/IPv4 (proto 61), 5k MACs per direction, DUT bridges with MAC learning (10k)",
        cost(195.0, "eth-l2bdbasemaclrn plus misses in a 10k-entry MAC table"),
        _bridge,
        _mac_scale(5_000),
        csit_profile="trex-stl-ethip4-macsrc5kdst5k",
        csit_differences=(),  # CSIT's own addresses
    ),
    _family(
        "eth-l2bdscale1mmaclrn",
        ("ETH", "L2BDMACLRN", "SCALE", "L2BDSCALE", "FIB_1M"),
        "Ethernet/IPv4 (proto 61), 500k MACs per direction, DUT bridges with MAC learning (1M)",
        cost(264.0, "a 1M-entry MAC table: 0.55x ethip4-ip4base (CSIT: 0.5-0.7x)"),
        _bridge,
        _mac_scale(500_000),
        csit_profile="trex-stl-ethip4-macsrc500kdst500k",
        csit_differences=(),  # CSIT's own addresses
    ),
]
