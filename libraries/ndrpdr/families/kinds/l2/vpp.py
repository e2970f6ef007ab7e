"""VPP set-ups of the L2 families: vppctl lines for one DUT, pure functions.

As CSIT's L2 keywords, on every DUT of the chain:

* ``l2xc``: the two ports cross-connected both ways;
* ``l2patch``: the two ports patched both ways (``test l2patch``, VPP's
  cheapest graph: no L2 input/output features);
* ``l2bd``: both ports in bridge domain 1, with learning, forwarding and
  flooding on and no static MAC entries: the bridge learns what the
  traffic sends. Its learn limit is the number of source MACs the traffic
  carries (both directions), when that is more than VPP's default;
* ``dot1q``: an 802.1Q sub-interface on each port (sub-interface id = VLAN
  id, exact match) with tag rewrite ``pop 1``, the two sub-interfaces in
  bridge domain 1: a frame loses its tag on the way in and gets the egress
  sub-interface's tag on the way out. A port facing the TG takes the VLAN
  its direction's traffic carries (``Headers.vlan``: the direction that
  enters by the port; CSIT's 2-node VLANs 100 and 200 when the headers
  carry none); a port facing the other DUT (3-node) VLAN 10, as CSIT's
  3-node suite tags its DUT1 - DUT2 link.

What a VPP kept for the next test would otherwise keep (patches, the
bridge domain and its MAC table) is undone before the ports go.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from ndrpdr.dut.base import DutTestConfig
from ndrpdr.dut.vpp import config as vpp_config
from ndrpdr.profiles import Headers

#: The bridge domain the L2 families use (CSIT's bd_id 1).
BRIDGE_DOMAIN = 1
#: VPP v26.06's default learn limit of a bridge domain (``show bridge-domain 1 detail``)
#: [MAC entries].
DEFAULT_LEARN_LIMIT = 16_777_216
#: CSIT's 2-node dot1q VLANs: TG port A's traffic and TG port B's.
CSIT_2N_VLANS = (100, 200)
#: The VLAN of a DUT - DUT link in the 3-node dot1q set-up (CSIT's subid 10).
DUT_LINK_VLAN = 10


def l2xc(config: DutTestConfig, names: tuple[str, str]) -> list[str]:
    """The two ports cross-connected both ways (``vpp_config.cli_commands`` in l2xc mode)."""
    return vpp_config.cli_commands(dataclasses.replace(config, mode="l2xc"), names)


def l2patch(config: DutTestConfig, names: tuple[str, str]) -> list[str]:
    """The two ports up and patched both ways."""
    first, second = names
    return [
        *vpp_config.up_commands(config, names),
        f"test l2patch rx {first} tx {second}",
        f"test l2patch rx {second} tx {first}",
    ]


def l2patch_undo(config: DutTestConfig, names: tuple[str, str]) -> list[str]:
    """The two patches removed (VPP keeps them by interface index otherwise)."""
    first, second = names
    return [f"test l2patch rx {first} tx {second} del", f"test l2patch rx {second} tx {first} del"]


def bridge(members: Sequence[str], learn_limit: int | None = None) -> list[str]:
    """Bridge domain 1 with learning, forwarding and flooding, ``members`` in it."""
    commands = [
        f"create bridge-domain {BRIDGE_DOMAIN} learn 1 forward 1 uu-flood 1 flood 1 arp-term 0"
    ]
    if learn_limit is not None and learn_limit > DEFAULT_LEARN_LIMIT:
        commands.append(f"set bridge-domain learn-limit {BRIDGE_DOMAIN} {learn_limit}")
    commands += [f"set interface l2 bridge {name} {BRIDGE_DOMAIN}" for name in members]
    return commands


def bridge_undo(members: Sequence[str]) -> list[str]:
    """Members out of the bridge domain, its MAC table flushed, the bridge domain deleted."""
    return [
        *(f"set interface l3 {name}" for name in members),
        f"create bridge-domain {BRIDGE_DOMAIN} del",
    ]


@dataclasses.dataclass(frozen=True)
class Bridge:
    """The ``l2bd`` set-up: both ports in one learning bridge domain.

    ``macs``: source MACs the traffic carries (both directions), the
    bridge's learn limit when VPP's default is too small.
    """

    macs: int = 2

    def commands(self, config: DutTestConfig, names: tuple[str, str]) -> list[str]:
        """Ports up, then the bridge domain with both ports."""
        return vpp_config.up_commands(config, names) + bridge(names, self.macs)

    def undo(self, config: DutTestConfig, names: tuple[str, str]) -> list[str]:
        """The bridge domain and what it learnt go."""
        return bridge_undo(names)


@dataclasses.dataclass(frozen=True)
class Dot1qBridge:
    """The ``dot1q`` set-up: a VLAN sub-interface on each port, both in bridge domain 1.

    ``directions``: the family's two ``Headers`` (their VLANs tag the ports
    facing the TG).
    """

    directions: tuple[Headers, Headers]

    def vlans(self, config: DutTestConfig) -> tuple[int, int]:
        """The VLAN of each port of this DUT: its direction's (TG side) or the DUT link's."""
        out = []
        for side in (0, 1):
            faces_tg = config.position == 0 if side == 0 else config.position == config.chain - 1
            if not faces_tg:
                out.append(DUT_LINK_VLAN)
                continue
            # the port facing TG port A receives direction 0, the one facing TG port B direction 1
            vlan = self.directions[side].vlan
            out.append(CSIT_2N_VLANS[side] if vlan is None else vlan)
        return out[0], out[1]

    def subinterfaces(self, config: DutTestConfig, names: tuple[str, str]) -> tuple[str, str]:
        """VPP's names of the two sub-interfaces ("<port>.<vlan>")."""
        first, second = self.vlans(config)
        return f"{names[0]}.{first}", f"{names[1]}.{second}"

    def commands(self, config: DutTestConfig, names: tuple[str, str]) -> list[str]:
        """Ports up, a pop-1 sub-interface on each, both in the bridge domain."""
        subs = self.subinterfaces(config, names)
        commands = vpp_config.up_commands(config, names)
        for name, sub, vlan in zip(names, subs, self.vlans(config), strict=True):
            commands += [
                f"create sub-interfaces {name} {vlan} dot1q {vlan} exact-match",
                f"set interface state {sub} up",
                f"set interface l2 tag-rewrite {sub} pop 1",
            ]
        return commands + bridge(subs)

    def undo(self, config: DutTestConfig, names: tuple[str, str]) -> list[str]:
        """The bridge domain goes, then the sub-interfaces."""
        subs = self.subinterfaces(config, names)
        return bridge_undo(subs) + [f"delete sub-interface {sub}" for sub in subs]


def source_macs(directions: tuple[Headers, Headers]) -> int:
    """Source MACs both directions carry together (1 per direction unless eth.src varies)."""
    total = 0
    for headers in directions:
        varied = [v.count for v in headers.vary if v.field == "eth.src"]
        total += varied[0] if varied else 1
    return total
