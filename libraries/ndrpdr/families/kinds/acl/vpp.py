"""VPP set-ups of the ACL and classifier families: vppctl lines for one DUT, pure functions.

ACL-50 families (CSIT's ``Configure IPv4 ACLs``, on DUT1 only; any other
DUT of the chain only routes): IPv4 routing as ``ethip4-ip4base``, then one
ACL (acl plugin) of 50 rules the traffic never hits (from
30.30.30.(1+k)/32 to 40.40.40.(1+k)/32, ports 1000+k, k = 0..49, IP protocol
0 as CSIT's: its ``Configure IPv4 ACLs`` gives no protocol and
``Add Replace Acl Multi Entries`` leaves the rule's default, 0), followed
by the two rules it hits: the action (``permit`` stateless, or
``permit+reflect`` stateful: a session per flow) for sources in either
direction's prefix. The ACL is applied to both ports, on input or output.

Classifier families (``iacldstbase``): base routing, then a classify table
masking the destination address (/24 for IPv4, /112 for IPv6, as CSIT)
and, for each port facing the TG, a session for the destinations of the
traffic that enters by it, action permit; the table is the input ACL of
those ports. Every frame thus takes one classifier lookup and is routed on
(hit or miss).

The ACL and the classify table are the DUT's first (index 0): a fresh VPP
has none, and ``undo`` removes them before the test's ports go, so a VPP
kept for the next test starts again from none.
"""

from __future__ import annotations

import dataclasses
import ipaddress
from typing import Literal

from ndrpdr.dut.base import DutTestConfig
from ndrpdr.families import vppip

#: Rules of the ACL the traffic does not hit (CSIT's no_hit_aces_number).
NO_HIT_RULES = 50
#: Their IP protocol: CSIT's (the rule's default; its no-hit rules name none).
NO_HIT_PROTO = 0
#: Index of the family's ACL and classify table in a VPP that has no other.
FIRST_INDEX = 0
#: Bytes before the IP header in the frame the input classifier sees (Ethernet).
_ETHERNET_HEADER_B = 14
#: Offset of the destination address in the IPv4 / IPv6 header, and its length [B].
_DST_FIELD = {4: (16, 4), 6: (24, 16)}
#: Prefix length of the destination the classifier masks (CSIT: 255.255.255.0 and /112).
CLASSIFY_PREFIX_LEN = {4: 24, 6: 112}
#: Classifier vector length [B]: mask and match come in 16-byte vectors.
_VECTOR_B = 16

Action = Literal["permit", "permit+reflect"]
Side = Literal["input", "output"]


def no_hit_rules() -> list[str]:
    """The 50 rules the traffic never hits."""
    return [
        f"permit src 30.30.30.{1 + k}/32 dst 40.40.40.{1 + k}/32 proto {NO_HIT_PROTO} "
        f"sport {1000 + k} dport {1000 + k}"
        for k in range(NO_HIT_RULES)
    ]


@dataclasses.dataclass(frozen=True)
class Acl50:
    """An ACL-50 family's set-up: ``action`` for the traffic, applied on ``side`` of both ports."""

    action: Action
    side: Side

    def rules(self, config: DutTestConfig) -> list[str]:
        """The 52 rules: the 50 misses, then ``action`` for each direction's source prefix."""
        hits = [f"{self.action} src {port.routed_prefix} dst 0.0.0.0/0" for port in config.ports]
        return no_hit_rules() + hits

    def commands(self, config: DutTestConfig, names: tuple[str, str]) -> list[str]:
        """Base routing; on DUT1 the ACL, applied to both ports."""
        commands = vppip.ip4_base(config, names)
        if config.position != 0:
            return commands
        commands.append("set acl-plugin acl " + ", ".join(self.rules(config)))
        commands += [
            f"set acl-plugin interface {name} {self.side} acl {FIRST_INDEX}" for name in names
        ]
        return commands

    def undo(self, config: DutTestConfig, names: tuple[str, str]) -> list[str]:
        """On DUT1: the ACL off both ports, then deleted; then the routes deleted."""
        routes = vppip.ip4_base_undo(config, names)
        if config.position != 0:
            return routes
        return [
            *(
                f"set acl-plugin interface {name} {self.side} acl {FIRST_INDEX} del"
                for name in names
            ),
            f"delete acl-plugin acl index {FIRST_INDEX}",
            *routes,
        ]


def classify_mask(ip_version: int) -> str:
    """The hex mask of a frame's destination prefix (``CLASSIFY_PREFIX_LEN``), from byte 0."""
    offset, length = _DST_FIELD[ip_version]
    start = _ETHERNET_HEADER_B + offset
    bits = CLASSIFY_PREFIX_LEN[ip_version]
    prefix = (((1 << bits) - 1) << (length * 8 - bits)).to_bytes(length, "big")
    mask = bytes(start) + prefix
    padded = -(-len(mask) // _VECTOR_B) * _VECTOR_B
    return (mask + bytes(padded - len(mask))).hex()


@dataclasses.dataclass(frozen=True)
class ClassifyDst:
    """An ``iacldstbase`` set-up: base routing and an input classifier on the destination."""

    ip_version: Literal[4, 6]

    def classified(self, config: DutTestConfig) -> list[int]:
        """The port sides (0, 1) facing the TG: they get the table."""
        sides = []
        if config.position == 0:
            sides.append(0)
        if config.position == config.chain - 1:
            sides.append(1)
        return sides

    def destination(self, config: DutTestConfig, side: int) -> str:
        """The network of the destinations of the traffic entering by port ``side``."""
        egress = config.ports[1 - side]
        prefix = egress.routed_prefix if self.ip_version == 4 else egress.routed_prefix6
        network = ipaddress.ip_network(str(prefix))
        masked = ipaddress.ip_network(
            f"{network.network_address}/{CLASSIFY_PREFIX_LEN[self.ip_version]}", strict=False
        )
        return str(masked.network_address)

    def commands(self, config: DutTestConfig, names: tuple[str, str]) -> list[str]:
        """Base routing, the table, a permit session per classified port, the input ACLs."""
        if self.ip_version == 4:
            commands = vppip.ip4_base(config, names)
        else:
            commands = vppip.ip6_base(config, names)
        ip = f"ip{self.ip_version}"
        commands.append(
            f"classify table mask hex {classify_mask(self.ip_version)} buckets 2 memory-size 2M"
        )
        sides = self.classified(config)
        commands += [
            f"classify session table-index {FIRST_INDEX} match l3 {ip} dst "
            f"{self.destination(config, side)}"
            for side in sides
        ]
        commands += [
            f"set interface input acl intfc {names[side]} {ip}-table {FIRST_INDEX}"
            for side in sides
        ]
        return commands

    def undo(self, config: DutTestConfig, names: tuple[str, str]) -> list[str]:
        """The input ACLs off, the table (with its sessions) deleted, the routes deleted."""
        ip = f"ip{self.ip_version}"
        return [
            *(
                f"set interface input acl intfc {names[side]} {ip}-table {FIRST_INDEX} del"
                for side in self.classified(config)
            ),
            f"classify table table {FIRST_INDEX} del",
            *vppip.base_undo(self.ip_version, config, names),
        ]
