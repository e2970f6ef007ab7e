"""The 10 B signature at the start of every frame's payload built here, and reading it back.

Magic ``NDRP``, version 1, the direction (1 B) and the frame's flow index
(a big-endian uint32), right after the headers (``ndrpdr.profiles.frames``
writes it; ``FrameLayout.signature_index_offset`` is where the index goes).
A TG or a capture reads it back with ``parse_signature`` to tell which
direction and flow a received frame is.
"""

from __future__ import annotations

import struct

from ndrpdr.profiles.layout import (
    ETHERTYPE_DOT1Q,
    ETHERTYPE_IPV4,
    ETHERTYPE_IPV6,
    IP_PROTO_UDP,
    SIGNATURE_SIZE,
    TUNNEL_HEADERS,
)
from ndrpdr.profiles.traffic import GENEVE_PORT

#: First bytes of the payload of every frame built here.
SIGNATURE_MAGIC = b"NDRP"
SIGNATURE_VERSION = 1
SIGNATURE = struct.Struct("!4sBBI")  # magic, version, direction, flow index
assert SIGNATURE.size == SIGNATURE_SIZE


def _payload_offset(frame: bytes) -> int | None:
    """Where the payload of a frame built here starts, walking its headers; None if unknown."""
    offset = 12
    if len(frame) < offset + 2:
        return None
    ethertype = int.from_bytes(frame[offset : offset + 2], "big")
    offset += 2
    if ethertype == ETHERTYPE_DOT1Q:
        if len(frame) < offset + 4:
            return None
        ethertype = int.from_bytes(frame[offset + 2 : offset + 4], "big")
        offset += 4
    if ethertype == ETHERTYPE_IPV4 and _is_geneve(frame, offset):
        offset += TUNNEL_HEADERS  # (no GENEVE options in frames built here)
        ethertype = int.from_bytes(frame[offset - 2 : offset], "big")
    if ethertype == ETHERTYPE_IPV4 and len(frame) > offset + 9:
        proto = frame[offset + 9]
        offset += (frame[offset] & 0x0F) * 4
    elif ethertype == ETHERTYPE_IPV6 and len(frame) > offset + 6:
        proto = frame[offset + 6]
        offset += 40
    else:
        return None
    return offset + (8 if proto == IP_PROTO_UDP else 0)


def _is_geneve(frame: bytes, offset: int) -> bool:
    """Whether an IPv4 header (20 B) at ``offset`` carries UDP to GENEVE's port."""
    if len(frame) < offset + TUNNEL_HEADERS or frame[offset] != 0x45:
        return False
    dport = int.from_bytes(frame[offset + 22 : offset + 24], "big")
    return frame[offset + 9] == IP_PROTO_UDP and dport == GENEVE_PORT


def parse_signature(frame: bytes) -> tuple[int, int] | None:
    """(direction, flow index) from a frame built here, or None if it has no signature.

    Walks Ethernet, an optional 802.1Q tag, a GENEVE tunnel (IPv4 / UDP to
    6081 / GENEVE / Ethernet), IPv4 (its IHL) or IPv6, and UDP if the IP
    protocol / next header says so.
    """
    offset = _payload_offset(frame)
    if offset is None or len(frame) < offset + SIGNATURE_SIZE:
        return None
    magic, version, direction, index = SIGNATURE.unpack_from(frame, offset)
    if magic != SIGNATURE_MAGIC or version != SIGNATURE_VERSION:
        return None
    return int(direction), int(index)
