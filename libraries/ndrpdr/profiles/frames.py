"""The frames of a profile's direction, exactly as its ``Headers`` say, for a pcap or a TG.

Each frame is ``frame size - 4`` bytes: everything the generator writes,
without the FCS the NIC appends (a tunnelled direction's frames are at
least its own minimum, ``FrameLayout.frame_size_b``). Headers and offsets follow
``ndrpdr.profiles.layout``: Ethernet (the headers' own MACs, else the
sending TG port's and the MAC the frames are addressed to), an optional
802.1Q tag, a tunnel (outer IPv4 as below, UDP with checksum 0, GENEVE,
the inner Ethernet header), IPv4 (TTL 64, ID 1 as scapy's ``IP()`` so CSIT's, no flags,
right header checksum, protocol ``Headers.l4``: 17 for UDP, else e.g. CSIT's 61) or IPv6
(hop limit 64, next header 17 or e.g. 59), an optional UDP header (right checksum,
over the IPv6 pseudo-header too), then the payload: the 10 B
signature (``ndrpdr.profiles.signature``: magic, version 1, the direction, the
frame's flow index as a big-endian uint32), zero-padded to
the frame size. A frame too short to hold the signature after its headers
(an IPv6 family's 64 B IMIX frames) carries zeros instead.

Frame *k* of a direction (its flow index) takes each varied field's value
``ndrpdr.profiles.variation`` gives it; the direction has ``Headers.flows``
distinct frames.

Which frames, in which order (``frame_count``, ``sampled_frames``):

- a family whose directions' flows must match (NAT44) gives its own sample
  (``Profile.sampler``, ``pcap_profile``) when it has more flows than the
  list holds; then the rules below hold for that sample;
- up to ``MAX_SAMPLE_FRAMES`` flows (and ``MAX_SAMPLE_BYTES`` of frames,
  IMIX's whole list) every flow once, flow 0 first; more flows (CSIT's 1M-destination
  families) are sampled: flows ``j * stride mod flows`` for the allowed
  number *n* of frames, ``stride`` the smallest integer >= flows / n that
  shares no factor with the flow count or any field's count or period, so
  the sample spans the whole sequence, no frame repeats, and every field
  takes many of its values;
- IMIX: ``lcm(n, 12)`` frames; frame *j* carries sampled flow ``j % n`` and
  has size ``IMIX_SEQUENCE[j % 12]``. So the list, sent in a loop, gives
  every flow the same share of frames and the sizes exactly 7:4:1 (a
  sampled n is a multiple of 12).

Scapy builds one template per (size, direction); the frames are copies of
it with the varied fields and the flow index patched and the checksums
updated from the template's partial sums, so 65536 frames take about a
second, not minutes.
"""

from __future__ import annotations

import dataclasses
import math
import re
import struct
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ndrpdr.optionaldeps import optional_part
from ndrpdr.profiles.addressing import check_direction
from ndrpdr.profiles.checksum import checksum_of_sum, ones_complement_sum
from ndrpdr.profiles.errors import ProfileError
from ndrpdr.profiles.framesize import FCS_SIZE, FrameSize, frame_sizes
from ndrpdr.profiles.layout import (
    IP_PROTO_UDP,
    SIGNATURE_SIZE,
    FrameLayout,
)
from ndrpdr.profiles.profile import Profile
from ndrpdr.profiles.signature import SIGNATURE, SIGNATURE_MAGIC, SIGNATURE_VERSION
from ndrpdr.profiles.traffic import Headers, Tunnel
from ndrpdr.profiles.variation import base_value, check_range, field_value, random_seed

if TYPE_CHECKING:
    from scapy.packet import Packet

TTL, IP_ID = 64, 1  # IP_ID: scapy's IP() default, in every frame of CSIT's profiles
#: GENEVE's protocol type of an Ethernet frame (Transparent Ethernet Bridging).
ETHERTYPE_TEB = 0x6558
#: The most distinct frames a direction's list holds (flows beyond it are sampled).
MAX_SAMPLE_FRAMES = 65536
#: The most bytes a direction's list holds (9000 B frames: 7456 of them).
MAX_SAMPLE_BYTES = 64 * 2**20

_MAC = re.compile(r"[0-9a-f]{2}(:[0-9a-f]{2}){5}", re.IGNORECASE)


def _check_mac(name: str, mac: str) -> str:
    if not isinstance(mac, str) or _MAC.fullmatch(mac) is None:
        raise ProfileError(
            f"{name} {mac!r} is not a MAC address: give six hex bytes like 02:00:00:00:00:01"
        )
    return mac.lower()


def _cap(frame_size: FrameSize) -> tuple[int, float]:
    """(the most frames a direction's list holds, the average frame size [B])."""
    sizes = frame_sizes(frame_size)
    average = sum(sizes) / len(sizes)
    return min(MAX_SAMPLE_FRAMES, int(MAX_SAMPLE_BYTES // average)), average


def sample_size(headers: Headers, frame_size: FrameSize) -> int:
    """How many distinct frames (flows) a direction's list holds at ``frame_size``."""
    sizes = frame_sizes(frame_size)
    flows = headers.flows
    cap, average = _cap(frame_size)
    if flows <= cap and math.lcm(flows, len(sizes)) * average <= MAX_SAMPLE_BYTES:
        return flows
    count = min(flows, cap)
    return count - count % len(sizes)  # IMIX: a multiple of 12, so the list is n frames


def pcap_profile(profile: Profile, frame_size: FrameSize) -> Profile:
    """The profile whose frames a frame list holds at ``frame_size``.

    ``profile`` itself, unless a direction has more flows than the list
    holds and the family gives its own sample (``Profile.sampler``): then
    that sample, of at most as many flows as the list holds.
    """
    if profile.sampler is None:
        return profile
    if all(sample_size(h, frame_size) == h.flows for h in profile.directions):
        return profile
    cap, _ = _cap(frame_size)
    return profile.sampler(cap - cap % len(frame_sizes(frame_size)))


def pcap_flows(profile: Profile, frame_size: FrameSize, direction: int) -> int:
    """The distinct frames (flows) of ``direction`` a frame list holds (``pcap_profile``)."""
    headers = pcap_profile(profile, frame_size).directions[check_direction(direction)]
    return sample_size(headers, frame_size)


def _stride(headers: Headers, count: int) -> int:
    """The sampling stride (module docstring); 1 when every flow is in the list."""
    flows = headers.flows
    if count >= flows:
        return 1
    moduli = {flows, *(v.count for v in headers.vary), *(v.period for v in headers.vary)}
    stride = math.ceil(flows / count)
    while any(math.gcd(stride, m) != 1 for m in moduli if m > 1):
        stride += 1
    return stride


def sampled_frames(headers: Headers, frame_size: FrameSize) -> list[int]:
    """The flow indexes (frame numbers) a direction's list holds, in order."""
    count = sample_size(headers, frame_size)
    stride = _stride(headers, count)
    return [(j * stride) % headers.flows for j in range(count)]


def frame_count(profile: Profile, frame_size: FrameSize, direction: int = 0) -> int:
    """How many frames ``build_frames`` returns: n flows, or lcm(n, 12) for IMIX."""
    return math.lcm(pcap_flows(profile, frame_size, direction), len(frame_sizes(frame_size)))


@dataclasses.dataclass(frozen=True)
class _Region:
    """A patched field: offset, width [B], and which checksums cover it."""

    offset: int
    width: int
    in_ip: bool
    in_udp: bool


@dataclasses.dataclass(frozen=True)
class _Template:
    """A frame with the patched regions and the checksums zeroed, and the partial sums."""

    frame: bytes
    ip_sum: int  # IPv4 header with the patched regions and checksum zeroed
    udp_sum: int  # pseudo-header + UDP header + payload, patched regions and checksum zeroed
    index: _Region | None  # the signature's flow index, when the frame holds the signature


def _packet(
    headers: Headers, layout: FrameLayout, src_mac: str, dst_mac: str, payload: bytes
) -> bytes:
    """The frame scapy builds from ``headers`` (base values) and ``payload``."""
    with optional_part("building the TG's frames"):  # scapy: optional, ~0.5 s to import
        from scapy.layers.inet import IP, UDP  # noqa: PLC0415
        from scapy.layers.inet6 import IPv6  # noqa: PLC0415
        from scapy.layers.l2 import Dot1Q, Ether  # noqa: PLC0415
        from scapy.packet import Raw  # noqa: PLC0415

    packet: Packet = Ether(src=headers.eth_src or src_mac, dst=headers.eth_dst or dst_mac)
    if headers.vlan is not None:
        packet = packet / Dot1Q(vlan=headers.vlan)
    if headers.tunnel is not None:
        packet = packet / _tunnel(headers.tunnel)
    proto = IP_PROTO_UDP if layout.udp else int(headers.l4)
    if headers.ip_version == 4:
        packet = packet / IP(src=headers.src, dst=headers.dst, ttl=TTL, id=IP_ID, proto=proto)
    else:
        packet = packet / IPv6(src=headers.src, dst=headers.dst, hlim=TTL, nh=proto)
    if layout.udp:
        packet = packet / UDP(sport=headers.sport, dport=headers.dport)
    return bytes(packet / Raw(load=payload))


def _tunnel(tunnel: Tunnel) -> Packet:
    """Outer IPv4 / UDP (checksum 0: none) / GENEVE / inner Ethernet of ``tunnel``."""
    from scapy.contrib.geneve import GENEVE  # noqa: PLC0415 - scapy takes ~0.5 s to import
    from scapy.layers.inet import IP, UDP  # noqa: PLC0415
    from scapy.layers.l2 import Ether  # noqa: PLC0415

    eth_src = _check_mac("tunnel: inner source MAC", tunnel.eth_src)
    eth_dst = _check_mac("tunnel: inner destination MAC", tunnel.eth_dst)
    outer = IP(src=tunnel.src, dst=tunnel.dst, ttl=TTL, id=IP_ID, flags=0, proto=IP_PROTO_UDP)
    udp = UDP(sport=tunnel.sport, dport=tunnel.dport, chksum=0)
    geneve = GENEVE(vni=tunnel.vni, proto=ETHERTYPE_TEB)
    packet: Packet = outer / udp / geneve / Ether(src=eth_src, dst=eth_dst)
    return packet


def _template(headers: Headers, size: int, direction: int, src_mac: str, dst_mac: str) -> _Template:
    """Build the template of ``size`` B (incl. FCS; more for a tunnel) for ``headers``."""
    layout = FrameLayout.of(headers)
    length = layout.frame_size_b(size) - FCS_SIZE
    room = length - layout.payload_offset
    if room < 0:
        raise ProfileError(
            f"a {size} B frame cannot hold the {layout.headers_size} B of headers "
            f"({headers.layout()}) and the FCS"
        )
    has_signature = room >= SIGNATURE_SIZE
    payload = (
        SIGNATURE.pack(SIGNATURE_MAGIC, SIGNATURE_VERSION, direction, 0) if has_signature else b""
    )
    frame = bytearray(_packet(headers, layout, src_mac, dst_mac, payload.ljust(room, b"\0")))
    if len(frame) != length:  # pragma: no cover - guards the layout's offsets
        raise ProfileError(f"built a {len(frame)} B frame for size {size} B (expected {length})")
    index = _Region(layout.signature_index_offset, 4, False, layout.udp) if has_signature else None
    zeroed = [*_regions(headers, layout), *([index] if index else [])]
    for offset in (layout.ip_checksum_offset, layout.udp_checksum_offset):
        if offset is not None:
            zeroed.append(_Region(offset, 2, False, False))
    for region in zeroed:
        frame[region.offset : region.offset + region.width] = bytes(region.width)
    ip_sum = udp_sum = 0
    if headers.ip_version == 4:
        ip_sum = ones_complement_sum(frame[layout.ip_offset : layout.l4_offset])
    if layout.udp:
        udp_sum = ones_complement_sum(_pseudo_header(frame, layout)) + ones_complement_sum(
            frame[layout.l4_offset :]
        )
    return _Template(bytes(frame), ip_sum, udp_sum, index)


def _pseudo_header(frame: bytearray, layout: FrameLayout) -> bytes:
    """The UDP pseudo-header of ``frame`` (IPv4: RFC 768; IPv6: RFC 8200)."""
    udp_length = len(frame) - layout.l4_offset
    if layout.ip_version == 4:
        addresses = frame[layout.ip_offset + 12 : layout.ip_offset + 20]
        return bytes(addresses) + struct.pack("!BBH", 0, IP_PROTO_UDP, udp_length)
    addresses = frame[layout.ip_offset + 8 : layout.ip_offset + 40]
    return bytes(addresses) + struct.pack("!I3xB", udp_length, IP_PROTO_UDP)


def _regions(headers: Headers, layout: FrameLayout) -> list[_Region]:
    """The varied fields' regions, in ``headers.vary`` order."""
    return [
        _Region(
            layout.offset(v.field),
            layout.width(v.field),
            layout.in_ip_header(v.field),
            layout.in_udp_checksum(v.field),
        )
        for v in headers.vary
    ]


def _patch(
    template: _Template,
    layout: FrameLayout,
    regions: Sequence[_Region],
    values: Sequence[int],
    index: int,
) -> bytes:
    """The template with ``values`` in ``regions``, flow index ``index``, checksums set.

    The one's-complement sum of a region at an even offset is its value
    modulo 0xFFFF (``ndrpdr.profiles.checksum``), so values add to the
    template's partial sums as integers.
    """
    frame = bytearray(template.frame)
    ip_sum, udp_sum = template.ip_sum, template.udp_sum
    for region, value in zip(regions, values, strict=True):
        frame[region.offset : region.offset + region.width] = value.to_bytes(region.width, "big")
        if region.in_ip:
            ip_sum += value
        if region.in_udp:
            udp_sum += value
    if template.index is not None:
        struct.pack_into("!I", frame, template.index.offset, index)
        if template.index.in_udp:
            udp_sum += index
    if layout.ip_checksum_offset is not None:
        struct.pack_into("!H", frame, layout.ip_checksum_offset, checksum_of_sum(ip_sum))
    if layout.udp_checksum_offset is not None:
        udp_checksum = checksum_of_sum(udp_sum) or 0xFFFF  # 0 means "none"
        struct.pack_into("!H", frame, layout.udp_checksum_offset, udp_checksum)
    return bytes(frame)


@dataclasses.dataclass(frozen=True)
class _Direction:
    """What building a direction's frames needs: its headers, layout, fields' bases and seeds."""

    profile: Profile
    direction: int
    headers: Headers
    layout: FrameLayout
    regions: tuple[_Region, ...]
    bases: tuple[int, ...]
    seeds: tuple[int, ...]
    src_mac: str
    dst_mac: str

    @classmethod
    def of(
        cls, profile: Profile, frame_size: FrameSize, direction: int, src_mac: str, dst_mac: str
    ) -> _Direction:
        """Check the frame size, direction, MACs and fields' ranges (ProfileError names them)."""
        profile.check_frame_size(frame_size)
        headers = profile.directions[check_direction(direction)]
        src_mac = _check_mac("source MAC", src_mac)
        dst_mac = _check_mac("destination MAC", dst_mac)
        layout = FrameLayout.of(headers)
        bases = []
        for vary in headers.vary:
            base = base_value(headers, vary.field, src_mac, dst_mac)
            try:
                check_range(layout, vary, base)
            except ProfileError as exc:
                raise ProfileError(f"profile {profile.name} direction {direction}: {exc}") from exc
            bases.append(base)
        seeds = tuple(random_seed(direction, i) for i in range(len(headers.vary)))
        regions = tuple(_regions(headers, layout))
        return cls(
            profile, direction, headers, layout, regions, tuple(bases), seeds, src_mac, dst_mac
        )

    def template(self, size: int) -> _Template:
        """The template of ``size`` B (incl. FCS)."""
        return _template(self.headers, size, self.direction, self.src_mac, self.dst_mac)

    def values(self, flow: int) -> list[int]:
        """The varied fields' values in frame ``flow``."""
        return [
            field_value(self.layout, v, base, flow, seed)
            for v, base, seed in zip(self.headers.vary, self.bases, self.seeds, strict=True)
        ]

    def frame(self, template: _Template, flow: int) -> bytes:
        """Frame ``flow`` from ``template``."""
        return _patch(template, self.layout, self.regions, self.values(flow), flow)


def build_frames(
    profile: Profile, frame_size: FrameSize, direction: int, src_mac: str, dst_mac: str
) -> list[bytes]:
    """The frames of ``direction`` (0 or 1) of ``profile`` at ``frame_size``, without FCS.

    ``src_mac`` is the sending TG port's MAC, ``dst_mac`` the MAC the frames
    are addressed to (the DUT port's, or the far TG port's for L2); the
    headers' own Ethernet addresses override them. The order is described
    in the module docstring. Raises ProfileError (naming the profile) for a
    frame size below the profile's minimum, a bad direction, MAC address,
    or a field whose values do not fit it.
    """
    built = _Direction.of(
        pcap_profile(profile, frame_size), frame_size, direction, src_mac, dst_mac
    )
    sizes = frame_sizes(frame_size)
    templates = {size: built.template(size) for size in set(sizes)}
    flow_list = sampled_frames(built.headers, frame_size)
    count = math.lcm(len(flow_list), len(sizes))
    return [
        built.frame(templates[sizes[j % len(sizes)]], flow_list[j % len(flow_list)])
        for j in range(count)
    ]


def first_frames(
    profile: Profile, frame_size: FrameSize, direction: int, src_mac: str, dst_mac: str
) -> dict[int, bytes]:
    """Frame 0 (flow 0) of ``direction`` at each size of ``frame_size`` [B incl. FCS -> frame].

    What a TG with a field engine starts from; checks as ``build_frames``.
    """
    built = _Direction.of(profile, frame_size, direction, src_mac, dst_mac)
    return {size: built.frame(built.template(size), 0) for size in set(frame_sizes(frame_size))}


def stream_frames(
    profile: Profile,
    frame_size: FrameSize,
    direction: int,
    src_mac: str,
    dst_mac: str,
    count: int,
) -> list[bytes]:
    """The first ``count`` frames a field engine sends: flows 0, 1, 2, ... in order.

    Frame *k* is flow *k* of ``profile`` itself (never a sample), its size
    ``frame_sizes(frame_size)[k % n]`` (IMIX: ``IMIX_SEQUENCE``); a TRex
    stream sends the same headers (the UDP checksum over IPv4 aside: TRex
    sends 0). Checks as ``build_frames``; ProfileError for a count below 1.
    """
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise ProfileError(f"frame count {count!r} must be an integer >= 1")
    built = _Direction.of(profile, frame_size, direction, src_mac, dst_mac)
    sizes = frame_sizes(frame_size)
    templates = {size: built.template(size) for size in set(sizes)}
    return [built.frame(templates[sizes[k % len(sizes)]], k) for k in range(count)]
