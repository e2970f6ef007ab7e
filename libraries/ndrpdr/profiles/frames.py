"""The frames of a profile: Ethernet/IPv4/UDP, one per flow, ready for a pcap or a TG.

Each frame is ``frame size - 4`` bytes: everything the generator writes,
without the FCS the NIC appends. The IPv4 header has TTL 64, ID 0, no
flags, and a correct checksum; the UDP checksum is set. Addresses and
ports follow ``ndrpdr.profiles.addressing``. The UDP payload starts with a
10 B signature (``SIGNATURE_MAGIC``, version 1, the direction, the flow
index as a big-endian uint32; see ``parse_signature``) and is zero-padded
to the frame size.

Which frames, in which order:

- a fixed frame size: one frame per flow, flow 0 first;
- IMIX: ``lcm(N, 12)`` frames for N flows; frame *j* carries flow ``j % N``
  and has size ``IMIX_SEQUENCE[j % 12]``. So the list, sent in a loop,
  gives every flow the same share of frames and the sizes exactly 7:4:1
  (1 flow: the 12-frame IMIX cycle; 1024 flows: 3072 frames).

Scapy builds one template per (size, direction); the frames are copies of
it with the per-flow fields patched and both checksums updated from the
template's partial sums, so 4096 flows take milliseconds, not seconds.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import math
import re
import struct

from ndrpdr.profiles.addressing import Flow, check_direction, flows
from ndrpdr.profiles.profile import Profile
from ndrpdr.profiles.checksum import checksum_of_sum, ones_complement_sum
from ndrpdr.profiles.errors import ProfileError
from ndrpdr.profiles.framesize import FCS_SIZE, FrameSize, frame_sizes

#: First bytes of the UDP payload of every frame built here.
SIGNATURE_MAGIC = b"NDRP"
SIGNATURE_VERSION = 1
_SIGNATURE = struct.Struct("!4sBBI")  # magic, version, direction, flow index
SIGNATURE_SIZE = _SIGNATURE.size

TTL = 64

# Byte offsets in an untagged Ethernet/IPv4 (no options)/UDP frame.
_IP_OFFSET = 14
_IP_HEADER = 20
_UDP_OFFSET = _IP_OFFSET + _IP_HEADER
_UDP_HEADER = 8
_IP_CHECKSUM = _IP_OFFSET + 10
_IP_SRC = _IP_OFFSET + 12
_UDP_SPORT = _UDP_OFFSET
_UDP_CHECKSUM = _UDP_OFFSET + 6
_PAYLOAD = _UDP_OFFSET + _UDP_HEADER
_SIG_FLOW = _PAYLOAD + 6  # even offset: the flow index is two aligned 16-bit words
_IP_PROTO_UDP = 17

_MAC = re.compile(r"[0-9a-f]{2}(:[0-9a-f]{2}){5}", re.IGNORECASE)


@dataclasses.dataclass(frozen=True)
class _Template:
    """A frame with the per-flow fields and both checksums zeroed, and the partial sums."""

    frame: bytes
    ip_sum: int  # IPv4 header with source address and checksum zeroed
    udp_sum: int  # pseudo-header + UDP header + payload, per-flow fields and checksum zeroed


def _check_mac(name: str, mac: str) -> str:
    if not isinstance(mac, str) or _MAC.fullmatch(mac) is None:
        raise ProfileError(
            f"{name} {mac!r} is not a MAC address: give six hex bytes like 02:00:00:00:00:01"
        )
    return mac.lower()


def _template(size: int, direction: int, src_mac: str, dst_mac: str) -> _Template:
    """Build the template of ``size`` B (incl. FCS) for ``direction`` with scapy."""
    from scapy.layers.inet import IP, UDP  # noqa: PLC0415 - scapy takes ~0.5 s to import
    from scapy.layers.l2 import Ether  # noqa: PLC0415
    from scapy.packet import Raw  # noqa: PLC0415

    first = flows(direction, 1)[0]
    length = size - FCS_SIZE
    payload = _SIGNATURE.pack(SIGNATURE_MAGIC, SIGNATURE_VERSION, direction, 0)
    payload = payload.ljust(length - _PAYLOAD, b"\0")
    packet = (
        Ether(src=src_mac, dst=dst_mac)
        / IP(src=first.src_ip, dst=first.dst_ip, ttl=TTL, id=0, flags=0)
        / UDP(sport=first.src_port, dport=first.dst_port)
        / Raw(load=payload)
    )
    frame = bytearray(bytes(packet))
    if len(frame) != length:  # pragma: no cover - guards the offsets above
        raise ProfileError(f"built a {len(frame)} B frame for size {size} B (expected {length})")
    for offset, width in (
        (_IP_CHECKSUM, 2),
        (_IP_SRC, 4),
        (_UDP_SPORT, 2),
        (_UDP_CHECKSUM, 2),
        (_SIG_FLOW, 4),
    ):
        frame[offset : offset + width] = bytes(width)
    ip_header = frame[_IP_OFFSET:_UDP_OFFSET]
    udp_length = length - _UDP_OFFSET
    pseudo = frame[_IP_SRC : _IP_SRC + 8] + struct.pack("!BBH", 0, _IP_PROTO_UDP, udp_length)
    return _Template(
        frame=bytes(frame),
        ip_sum=ones_complement_sum(ip_header),
        udp_sum=ones_complement_sum(pseudo) + ones_complement_sum(frame[_UDP_OFFSET:]),
    )


def _patch(template: _Template, flow: Flow, src: int) -> bytes:
    """The template's frame for ``flow`` (source address ``src`` as an int), checksums set."""
    index = flow.index
    words = (src >> 16) + (src & 0xFFFF)
    ip_checksum = checksum_of_sum(template.ip_sum + words)
    udp_checksum = checksum_of_sum(
        template.udp_sum + words + flow.src_port + (index >> 16) + (index & 0xFFFF)
    )
    frame = bytearray(template.frame)
    struct.pack_into("!HI", frame, _IP_CHECKSUM, ip_checksum, src)
    struct.pack_into("!H", frame, _UDP_SPORT, flow.src_port)
    struct.pack_into("!H", frame, _UDP_CHECKSUM, udp_checksum or 0xFFFF)  # 0 means "none"
    struct.pack_into("!I", frame, _SIG_FLOW, index)
    return bytes(frame)


def frame_count(profile: Profile, frame_size: FrameSize) -> int:
    """How many frames ``build_frames`` returns: N flows, or lcm(N, 12) for IMIX."""
    return math.lcm(profile.flows_per_direction, len(frame_sizes(frame_size)))


def build_frames(
    profile: Profile, frame_size: FrameSize, direction: int, src_mac: str, dst_mac: str
) -> list[bytes]:
    """The frames of ``direction`` (0 or 1) of ``profile`` at ``frame_size``, without FCS.

    ``src_mac`` is the sending TG port's MAC, ``dst_mac`` the MAC the frames
    are addressed to (the DUT port's, or the far TG port's for L2).
    The order is described in the module docstring. Raises ProfileError for
    a bad frame size, direction or MAC address.
    """
    sizes = frame_sizes(frame_size)
    check_direction(direction)
    src_mac = _check_mac("source MAC", src_mac)
    dst_mac = _check_mac("destination MAC", dst_mac)
    flow_list = flows(direction, profile.flows_per_direction)
    sources = [int(ipaddress.IPv4Address(f.src_ip)) for f in flow_list]
    templates = {size: _template(size, direction, src_mac, dst_mac) for size in set(sizes)}
    count = math.lcm(len(flow_list), len(sizes))
    out: list[bytes] = []
    for j in range(count):
        k = j % len(flow_list)
        out.append(_patch(templates[sizes[j % len(sizes)]], flow_list[k], sources[k]))
    return out


def parse_signature(frame: bytes) -> tuple[int, int] | None:
    """(direction, flow index) from a frame built here, or None if it has no signature.

    Looks only at the signature bytes (an untagged Ethernet/IPv4/UDP frame
    without IP options is assumed).
    """
    if len(frame) < _PAYLOAD + SIGNATURE_SIZE:
        return None
    magic, version, direction, index = _SIGNATURE.unpack_from(frame, _PAYLOAD)
    if magic != SIGNATURE_MAGIC or version != SIGNATURE_VERSION:
        return None
    return int(direction), int(index)
