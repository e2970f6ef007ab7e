"""Where each header and field sits in the frames of one ``Headers``: the byte offsets both
the frame builder (``ndrpdr.profiles.frames``) and the TRex field engine
(``ndrpdr.trafficgen.trex.streams``) write to.

A frame is Ethernet (14 B), an optional 802.1Q tag (4 B), an optional
tunnel (outer IPv4 20 B, UDP 8 B, GENEVE 8 B without options, inner
Ethernet 14 B: 50 B), the IPv4 (20 B, no options) or IPv6 (40 B) header,
an optional UDP header (8 B), then the payload, which starts with the 10 B
frame signature. Every header has an even length, so every field but the
GENEVE VNI (3 B, not covered by a checksum) starts at an even offset (the
Internet checksum's 16-bit words line up with them).

A tunnelled direction's frames hold 50 B more headers than the frame size
its test is named after: as CSIT's TG does, such a direction sends frames
of at least its own minimum size (``min_frame_size``: CSIT's 114 B), while
the test's frame size (``nominal_min_frame_size``: CSIT's 64 B) is the
other direction's.
"""

from __future__ import annotations

import dataclasses

from ndrpdr.profiles.errors import ProfileError
from ndrpdr.profiles.framesize import FCS_SIZE
from ndrpdr.profiles.traffic import TUNNEL_FIELDS, FieldName, Headers

ETHER_HEADER = 14
DOT1Q_TAG = 4
IPV4_HEADER = 20
IPV6_HEADER = 40
UDP_HEADER = 8
GENEVE_HEADER = 8
#: Outer IPv4, UDP, GENEVE and the inner Ethernet header of a tunnelled frame [B].
TUNNEL_HEADERS = IPV4_HEADER + UDP_HEADER + GENEVE_HEADER + ETHER_HEADER
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
#: CSIT's smallest tunnelled frame [B incl. FCS]: its GENEVE profiles pad the encapsulated
#: packet to 110 B before its base class pads to the frame size less the FCS (114 B at 64B).
CSIT_MIN_TUNNEL_FRAME_SIZE = 114

#: Width of each field [B]; ``vlan.id`` is the whole 16-bit TCI (priority and DEI are 0).
_WIDTHS: dict[FieldName, tuple[int, int]] = {  # (width for IPv4, width for IPv6)
    "eth.src": (6, 6),
    "eth.dst": (6, 6),
    "vlan.id": (2, 2),
    "ip.src": (4, 16),
    "ip.dst": (4, 16),
    "udp.sport": (2, 2),
    "udp.dport": (2, 2),
    "tunnel.sport": (2, 2),
    "tunnel.vni": (3, 3),
    "inner.eth.dst": (6, 6),
}


@dataclasses.dataclass(frozen=True)
class FrameLayout:
    """Byte offsets in the frames of one ``Headers`` (module docstring)."""

    ip_version: int
    vlan: bool
    udp: bool
    tunnel: bool = False

    @classmethod
    def of(cls, headers: Headers) -> FrameLayout:
        """The layout of ``headers``' frames."""
        return cls(
            headers.ip_version, headers.vlan is not None, headers.l4 == "udp",
            headers.tunnel is not None,
        )  # fmt: skip

    @property
    def outer_offset(self) -> int:
        """Start of the header after Ethernet (and the tag): the outer IPv4 of a tunnel [B]."""
        return ETHER_HEADER + (DOT1Q_TAG if self.vlan else 0)

    @property
    def ip_offset(self) -> int:
        """Start of the IP header [B] (a tunnel's inner one)."""
        return self.outer_offset + (TUNNEL_HEADERS if self.tunnel else 0)

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
        """Smallest frame [B incl. FCS]: headers, signature and FCS, and CSIT's minimum.

        CSIT's minimum of a tunnelled direction is its padded 114 B.
        """
        own = self.headers_size + SIGNATURE_SIZE + FCS_SIZE
        if self.tunnel:
            return max(own, CSIT_MIN_TUNNEL_FRAME_SIZE)
        return max(own, CSIT_MIN_FRAME_SIZE[self.ip_version])

    @property
    def nominal_min_frame_size(self) -> int:
        """Smallest frame size a test of these frames is named after [B incl. FCS].

        ``min_frame_size``, but for a tunnelled direction, whose frames grow
        to hold the tunnel (``frame_size_b``): the inner frame's minimum.
        """
        return self.min_frame_size - (TUNNEL_HEADERS if self.tunnel else 0)

    def frame_size_b(self, size: int) -> int:
        """The size of the frames sent for a test frame size ``size`` [B incl. FCS].

        ``size`` itself, but a tunnelled direction's frames are at least
        ``min_frame_size`` (CSIT's GENEVE direction 1 sends 114 B frames in
        its 64B tests and IMIX's 64 B frames).
        """
        return max(size, self.min_frame_size) if self.tunnel else size

    def tunnel_offset(self, field: FieldName) -> int:
        """Where a tunnel field starts [B]; ProfileError when the frames carry no tunnel."""
        if not self.tunnel:
            raise ProfileError(f"{field}: these frames carry no tunnel")
        udp = self.outer_offset + IPV4_HEADER
        geneve = udp + UDP_HEADER
        return {"tunnel.sport": udp, "tunnel.vni": geneve + 4}.get(field, geneve + GENEVE_HEADER)

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
        if field in TUNNEL_FIELDS:
            return self.tunnel_offset(field)
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
