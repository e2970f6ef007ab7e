"""Where each header and field sits in the frames of one ``Headers``: the byte offsets both
the frame builder (``ndrpdr.profiles.frames``) and the TRex field engine
(``ndrpdr.trafficgen.trex.streams``) write to.

A frame is Ethernet (14 B), an optional 802.1Q tag (4 B), the IPv4 (20 B,
no options) or IPv6 (40 B) header, an optional UDP header (8 B), then the
payload, which starts with the 10 B frame signature. Every header has an
even length, so every field starts at an even offset (the Internet
checksum's 16-bit words line up with them).
"""

from __future__ import annotations

import dataclasses

from ndrpdr.profiles.errors import ProfileError
from ndrpdr.profiles.framesize import FCS_SIZE
from ndrpdr.profiles.traffic import FieldName, Headers

ETHER_HEADER = 14
DOT1Q_TAG = 4
IPV4_HEADER = 20
IPV6_HEADER = 40
UDP_HEADER = 8
#: magic (4 B), version (1 B), direction (1 B), flow index (4 B, big-endian).
SIGNATURE_SIZE = 10
#: Where the flow index sits in the signature [B from its start].
SIGNATURE_INDEX_OFFSET = 6
ETHERTYPE_IPV4 = 0x0800
ETHERTYPE_IPV6 = 0x86DD
ETHERTYPE_DOT1Q = 0x8100
IP_PROTO_UDP = 17
#: CSIT's smallest frame of an IPv4 / IPv6 family [B incl. FCS] (64 B, and 78 B for IPv6).
CSIT_MIN_FRAME_SIZE = {4: 64, 6: 78}

#: Width of each field [B]; ``vlan.id`` is the whole 16-bit TCI (priority and DEI are 0).
_WIDTHS: dict[FieldName, tuple[int, int]] = {  # (width for IPv4, width for IPv6)
    "eth.src": (6, 6),
    "eth.dst": (6, 6),
    "vlan.id": (2, 2),
    "ip.src": (4, 16),
    "ip.dst": (4, 16),
    "udp.sport": (2, 2),
    "udp.dport": (2, 2),
}


@dataclasses.dataclass(frozen=True)
class FrameLayout:
    """Byte offsets in the frames of one ``Headers`` (module docstring)."""

    ip_version: int
    vlan: bool
    udp: bool

    @classmethod
    def of(cls, headers: Headers) -> FrameLayout:
        """The layout of ``headers``' frames."""
        return cls(headers.ip_version, headers.vlan is not None, headers.l4 == "udp")

    @property
    def ip_offset(self) -> int:
        """Start of the IP header [B]."""
        return ETHER_HEADER + (DOT1Q_TAG if self.vlan else 0)

    @property
    def ip_header(self) -> int:
        """Length of the IP header [B]."""
        return IPV4_HEADER if self.ip_version == 4 else IPV6_HEADER

    @property
    def l4_offset(self) -> int:
        """Start of the UDP header, or of the payload without UDP [B]."""
        return self.ip_offset + self.ip_header

    @property
    def payload_offset(self) -> int:
        """Start of the payload (the signature) [B]."""
        return self.l4_offset + (UDP_HEADER if self.udp else 0)

    @property
    def signature_index_offset(self) -> int:
        """Where the signature's flow index sits [B]."""
        return self.payload_offset + SIGNATURE_INDEX_OFFSET

    @property
    def headers_size(self) -> int:
        """Bytes before the payload [B] (the same as ``payload_offset``)."""
        return self.payload_offset

    @property
    def min_frame_size(self) -> int:
        """Smallest frame [B incl. FCS]: headers, signature and FCS, and CSIT's minimum."""
        own = self.headers_size + SIGNATURE_SIZE + FCS_SIZE
        return max(own, CSIT_MIN_FRAME_SIZE[self.ip_version])

    @property
    def ip_checksum_offset(self) -> int | None:
        """The IPv4 header checksum [B]; None for IPv6 (no header checksum)."""
        return self.ip_offset + 10 if self.ip_version == 4 else None

    @property
    def udp_checksum_offset(self) -> int | None:
        """The UDP checksum [B]; None without UDP."""
        return self.l4_offset + 6 if self.udp else None

    def offset(self, field: FieldName) -> int:
        """Where ``field`` starts [B]; ProfileError for a field these frames do not carry."""
        if field == "eth.dst":
            return 0
        if field == "eth.src":
            return 6
        if field == "vlan.id":
            if not self.vlan:
                raise ProfileError("vlan.id: these frames carry no 802.1Q tag")
            return ETHER_HEADER
        if field in ("ip.src", "ip.dst"):
            if self.ip_version == 4:
                return self.ip_offset + (12 if field == "ip.src" else 16)
            return self.ip_offset + (8 if field == "ip.src" else 24)
        if field in ("udp.sport", "udp.dport"):
            if not self.udp:
                raise ProfileError(f"{field}: these frames carry no UDP header")
            return self.l4_offset + (0 if field == "udp.sport" else 2)
        raise ProfileError(f"field {field!r} has no place in a frame")

    def width(self, field: FieldName) -> int:
        """How many bytes ``field`` takes [B]."""
        return _WIDTHS[field][0 if self.ip_version == 4 else 1]

    def in_ip_header(self, field: FieldName) -> bool:
        """Whether ``field`` is covered by the IPv4 header checksum."""
        return self.ip_version == 4 and field in ("ip.src", "ip.dst")

    def in_udp_checksum(self, field: FieldName) -> bool:
        """Whether ``field`` is covered by the UDP checksum (pseudo-header addresses, ports)."""
        return self.udp and field in ("ip.src", "ip.dst", "udp.sport", "udp.dport")
