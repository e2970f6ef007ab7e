"""What one direction of a test family's traffic carries: its headers and the fields that vary.

A direction sends frames built from one ``Headers``: Ethernet, an optional
802.1Q tag, IPv4 or IPv6, then UDP or no L4 header at all (an IP protocol
number such as CSIT's 61, "any host internal protocol"), then a payload
that starts with the frame signature (``ndrpdr.profiles.frames``).

A direction may send its packets encapsulated (``tunnel``: a ``Tunnel``,
as CSIT's GENEVE profiles send towards the DUT that decapsulates): after
the Ethernet header (and tag) come an outer IPv4 header, UDP and the
GENEVE header, then the inner Ethernet header and the packet above
(``src``, ``dst`` and ``l4`` are the inner packet's). The tunnel's fields
``tunnel.sport`` (outer UDP source port), ``tunnel.vni`` and
``inner.eth.dst`` (the inner Ethernet destination) can vary as the others.

``vary`` lists the fields that change from frame to frame, as the field
engine of CSIT's TRex profiles does: each ``Vary`` walks ``count`` values
from the header's base value, by ``step``, ``inc`` (in order, then again)
or ``random`` (uniformly drawn values of the same range); it moves to its
next value every ``every`` frames, so a ``Vary`` with ``every=100`` over
one with ``count=100`` gives 100 x 100 distinct tuples (CSIT's nested
"flows" profiles). The distinct frames of a direction, its flows, are
``flows`` of them.

Addresses are plain strings; ``None`` Ethernet addresses mean "the sending
TG port's MAC" (source) and "the MAC of the port the frames are sent to"
(destination), filled in when the frames are built.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import math
from typing import Literal, TypeAlias, get_args

from ndrpdr.profiles.errors import ProfileError

#: A header field that can vary. ``ip.*`` is the IPv4 or IPv6 header, as the direction has.
FieldName: TypeAlias = Literal[
    "eth.src",
    "eth.dst",
    "ip.src",
    "ip.dst",
    "udp.sport",
    "udp.dport",
    "vlan.id",
    "tunnel.sport",
    "tunnel.vni",
    "inner.eth.dst",
]
FIELD_NAMES: tuple[FieldName, ...] = get_args(FieldName)
#: The fields only a direction with a ``tunnel`` carries.
TUNNEL_FIELDS: tuple[FieldName, ...] = ("tunnel.sport", "tunnel.vni", "inner.eth.dst")
#: How a field walks its values: in order, or drawn at random from the same range.
Op: TypeAlias = Literal["inc", "random"]
#: UDP, or no L4 header (an IP protocol number, e.g. 61 as CSIT's IPv4 base profiles).
L4: TypeAlias = Literal["udp"] | int

#: Protocol number CSIT's base profiles put in the IP header ("any host internal protocol").
ANY_HOST_INTERNAL = 61
#: GENEVE's UDP port (RFC 8926) and its largest VNI (24 bits).
GENEVE_PORT = 6081
MAX_VNI = (1 << 24) - 1


@dataclasses.dataclass(frozen=True)
class Tunnel:
    """The encapsulation a direction's packets travel in: IPv4 / UDP / GENEVE / Ethernet.

    ``src`` / ``dst``: the outer IPv4 addresses (the tunnel's end points);
    ``sport`` / ``dport``: the outer UDP ports (GENEVE: 6081); ``vni``: the
    GENEVE VNI; ``eth_src`` / ``eth_dst``: the inner Ethernet addresses
    (a VPP GENEVE tunnel in L3 mode takes frames addressed to its own MAC).
    The outer UDP checksum is 0 ("none", allowed over IPv4 by RFC 8926).
    """

    src: str
    dst: str
    vni: int
    eth_dst: str
    eth_src: str = "02:00:00:00:00:00"
    sport: int = 1024
    dport: int = GENEVE_PORT

    def __post_init__(self) -> None:
        """ProfileError for outer addresses that are not IPv4, a bad port or VNI."""
        for name in ("src", "dst"):
            try:
                ipaddress.IPv4Address(getattr(self, name))
            except ValueError as exc:
                raise ProfileError(
                    f"tunnel: {name} {getattr(self, name)!r} is not an IPv4 address"
                ) from exc
        for name in ("sport", "dport"):
            if not 0 <= getattr(self, name) <= 0xFFFF:
                raise ProfileError(f"tunnel: {name} {getattr(self, name)!r} is not in 0..65535")
        if not 0 <= self.vni <= MAX_VNI:
            raise ProfileError(f"tunnel: VNI {self.vni!r} is not in 0..{MAX_VNI}")

    def layout(self) -> str:
        """``IPv4 / UDP(1024->6081) / GENEVE(vni 1) / Ether``."""
        return f"IPv4 / UDP({self.sport}->{self.dport}) / GENEVE(vni {self.vni}) / Ether"


@dataclasses.dataclass(frozen=True)
class Vary:
    """One field that changes from frame to frame (see the module docstring)."""

    field: FieldName
    count: int
    op: Op = "inc"
    step: int = 1
    every: int = 1

    def __post_init__(self) -> None:
        """ProfileError for a field, count, op, step or period that makes no sense."""
        if self.field not in FIELD_NAMES:
            raise ProfileError(f"vary: field {self.field!r} is not one of {', '.join(FIELD_NAMES)}")
        for name in ("count", "step", "every"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ProfileError(f"vary {self.field}: {name} {value!r} must be an integer >= 1")
        if self.op not in ("inc", "random"):
            raise ProfileError(f"vary {self.field}: op {self.op!r} is not 'inc' or 'random'")

    @property
    def period(self) -> int:
        """Frames until this field's sequence repeats (for ``inc``)."""
        return self.count * self.every

    def describe(self) -> str:
        """``ip.src: 253 values, inc`` (``, every 100 frames`` when nested)."""
        text = f"{self.field}: {self.count} values, {self.op}"
        if self.step != 1:
            text += f" by {self.step}"
        if self.every != 1:
            text += f", every {self.every} frames"
        return text


@dataclasses.dataclass(frozen=True)
class Headers:
    """The headers of one direction's frames and the fields that vary (module docstring)."""

    ip_version: Literal[4, 6]
    src: str
    dst: str
    l4: L4 = "udp"
    sport: int = 1024
    dport: int = 1024
    vlan: int | None = None
    eth_src: str | None = None
    eth_dst: str | None = None
    vary: tuple[Vary, ...] = ()
    tunnel: Tunnel | None = None

    def __post_init__(self) -> None:
        """ProfileError for addresses of the wrong family, a bad VLAN, port or repeated field."""
        kind = ipaddress.IPv4Address if self.ip_version == 4 else ipaddress.IPv6Address
        for name in ("src", "dst"):
            try:
                kind(getattr(self, name))
            except ValueError as exc:
                raise ProfileError(
                    f"headers: {name} {getattr(self, name)!r} is not an IPv{self.ip_version} "
                    f"address"
                ) from exc
        if self.vlan is not None and not 1 <= self.vlan <= 4094:
            raise ProfileError(f"headers: VLAN {self.vlan!r} is not in 1..4094")
        if self.l4 != "udp" and not (isinstance(self.l4, int) and 0 <= self.l4 <= 255):
            raise ProfileError(f"headers: l4 {self.l4!r} is not 'udp' or an IP protocol 0..255")
        fields = [v.field for v in self.vary]
        if len(set(fields)) != len(fields):
            raise ProfileError(f"headers: a field varies twice in {fields}")
        for v in self.vary:
            if v.field.startswith("udp.") and self.l4 != "udp":
                raise ProfileError(f"headers: {v.field} varies, but the frames carry no UDP")
            if v.field == "vlan.id" and self.vlan is None:
                raise ProfileError("headers: vlan.id varies, but the frames carry no VLAN tag")
            if v.field in TUNNEL_FIELDS and self.tunnel is None:
                raise ProfileError(f"headers: {v.field} varies, but the frames carry no tunnel")

    @property
    def flows(self) -> int:
        """Distinct frames of this direction (1 when nothing varies).

        Fields that all move every frame give the least common multiple of
        their counts; a nested field (``every`` > 1) multiplies.
        """
        if not self.vary:
            return 1
        return math.lcm(*(v.period for v in self.vary))

    @property
    def l4_name(self) -> str:
        """``UDP`` or ``IP proto 61``."""
        return "UDP" if self.l4 == "udp" else f"IP proto {self.l4}"

    def layout(self) -> str:
        """``Ether / Dot1Q(100) / IPv4(proto 61)``, ``Ether / IPv6(next header 59)``."""
        parts = ["Ether"]
        if self.vlan is not None:
            parts.append(f"Dot1Q({self.vlan})")
        if self.tunnel is not None:
            parts.append(self.tunnel.layout())
        number = "proto" if self.ip_version == 4 else "next header"
        parts.append(
            f"IPv{self.ip_version}" + ("" if self.l4 == "udp" else f"({number} {self.l4})")
        )
        if self.l4 == "udp":
            parts.append(f"UDP({self.sport}->{self.dport})")
        return " / ".join(parts)

    def describe(self) -> str:
        """One line: layout, addresses, flows and what varies."""
        text = f"{self.layout()} {self.src} -> {self.dst}, {self.flows} flow(s)"
        if self.tunnel is not None:
            text += f", tunnel {self.tunnel.src} -> {self.tunnel.dst}"
        if self.vary:
            text += " (" + "; ".join(v.describe() for v in self.vary) + ")"
        return text

    def with_flows(self, flows: int) -> Headers:
        """These headers with every varied field walking ``flows`` values (one-level only)."""
        if any(v.every != 1 for v in self.vary):
            raise ProfileError("headers: a nested variation cannot be given another flow count")
        if not self.vary:
            raise ProfileError("headers: nothing varies, so the flow count is fixed at 1")
        return dataclasses.replace(
            self, vary=tuple(dataclasses.replace(v, count=flows) for v in self.vary)
        )
