"""TRex stream specs of a profile at a frame size: plain data the client turns into STL objects.

Per direction, one continuous stream per frame size (one for a fixed
size; three for IMIX, at 7:4:1 of the direction's frames). Its packet is
frame 0 of ``ndrpdr.profiles.first_frames`` (without FCS; the NIC appends
it). When the direction has more than one flow, a field engine built from
its ``Headers`` makes frame *k* carry flow *k*'s fields
(``ndrpdr.profiles.variation``), at offsets from
``ndrpdr.profiles.layout``:

- one flow variable per ``Vary``: ``inc`` from the base by ``step``, or
  TRex's repeatable random (``STLVmFlowVarRepeatableRandom``, seed
  ``variation.random_seed``, repeating after 2^24 - 1 draws, as CSIT's);
  MACs are written as their low 4 bytes and IPv6 addresses as their low 8
  (as CSIT's profiles; the field engine's variables are 1, 2, 4 or 8 B);
  ports and the VLAN TCI 2 B, IPv4 addresses 4 B; a GENEVE VNI (3 B) as a
  4 B variable over the VNI and the reserved byte after it, its values
  shifted by 8 bits;
- a ``Vary`` that walks its field's every value (``variation.spans_field``,
  e.g. a port's 65536 from 1024) is a variable over the whole field that
  starts at the base (TRex's ``init_value``) and wraps to 0;
- a ``Vary`` with ``every`` > 1 gets a tick variable counting 0 .. every - 1
  whose wrap-around steps it (TRex's ``next_var``);
- a variable counting 0 .. flows - 1 writes the flow index of the signature;
- the IPv4 header checksum is recomputed (``STLVmFixIpv4``) when an IPv4
  address varies; the UDP checksum over IPv4 is 0 ("none", RFC 768), as
  TRex's field engine does not recompute it in software; over IPv6 a UDP
  checksum is mandatory: ``STLVmFixChecksumHw`` asks the NIC to fill it
  (on NICs without the offload, such frames carry a wrong checksum).

The field engine is a plain description (``FlowVar``, ``WriteVar``,
``FixIpv4``, ``FixUdpChecksum``) with byte offsets, so no TRex or scapy
objects are needed here; the client adapter (``child.py``) turns it into
TRex's objects.

Rates are absolute: a direction's streams add up to its rate (the
aggregate load split evenly over the directions); an optional latency
stream (TRex flow stats, ``pg_id`` = direction) takes its share of it.
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from typing import Literal

from ndrpdr.profiles import FrameSize, Headers, Profile, ProfileError, first_frames, frame_sizes
from ndrpdr.profiles.layout import FrameLayout
from ndrpdr.profiles.traffic import FieldName
from ndrpdr.profiles.variation import base_value, check_range, random_seed, spans_field

#: TRex's repeatable random variables repeat after this many draws (CSIT's 2^24 - 1).
RANDOM_LIMIT = 2**24 - 1
#: Bytes of a field the field engine writes, and how far into the field they start.
_WRITTEN: dict[tuple[int, int], tuple[int, int]] = {  # (ip version, field width) -> (size, skip)
    (4, 6): (4, 2),  # a MAC: its low 4 bytes
    (6, 6): (4, 2),
    (6, 16): (8, 8),  # an IPv6 address: its low 8 bytes
}


@dataclasses.dataclass(frozen=True)
class FlowVar:
    """A field-engine variable of ``size`` B from ``min_value`` to ``max_value`` (inclusive).

    ``op`` "inc" steps by ``step`` and wraps; "random" draws TRex's
    repeatable random sequence of ``seed`` (repeating after ``limit``
    draws). ``next_var``: the variable that takes one step each time this
    one wraps around (and only then). ``init_value``: the first value
    (None: ``min_value``, TRex's default for "inc").
    """

    name: str
    size: int
    min_value: int = 0
    max_value: int = 0
    step: int = 1
    op: Literal["inc", "random"] = "inc"
    seed: int | None = None
    limit: int | None = None
    next_var: str | None = None
    init_value: int | None = None

    @property
    def cycle(self) -> int:
        """How many values the variable takes (frames until an "inc" variable repeats)."""
        return (self.max_value - self.min_value) // self.step + 1


@dataclasses.dataclass(frozen=True)
class WriteVar:
    """Write variable ``var`` (big-endian, its own width) at byte ``offset`` of the frame."""

    var: str
    offset: int


@dataclasses.dataclass(frozen=True)
class FixIpv4:
    """Recompute the IPv4 header checksum of the header at byte ``offset``."""

    offset: int


@dataclasses.dataclass(frozen=True)
class FixUdpChecksum:
    """Have the NIC fill the UDP checksum: IP header at ``l3_offset``, UDP at ``l4_offset``."""

    l3_offset: int
    l4_offset: int


Instruction = FlowVar | WriteVar | FixIpv4 | FixUdpChecksum


@dataclasses.dataclass(frozen=True)
class StreamSpec:
    """One continuous TRex stream: its frame (without FCS), rate [pps] and field engine.

    ``latency_pg_id`` set makes it a latency stream (TRex flow stats with
    latency for that packet group).
    """

    name: str
    direction: int
    packet: bytes
    pps: float
    field_engine: tuple[Instruction, ...] = ()
    latency_pg_id: int | None = None


def _var_name(field: FieldName) -> str:
    return field.replace(".", "_")


def _field_vars(
    headers: Headers, layout: FrameLayout, position: int, direction: int, base: int
) -> list[Instruction]:
    """The variable(s) and write of the ``position``-th ``Vary`` of ``headers``."""
    vary = headers.vary[position]
    name = _var_name(vary.field)
    width = layout.width(vary.field)
    size, skip = _WRITTEN.get((layout.ip_version, width), (width, 0))
    shift = 0
    if vary.field == "tunnel.vni":  # 3 B: write 4, the VNI shifted over the reserved byte after it
        size, shift = 4, 8
    mask = (1 << (8 * size)) - 1
    low = base & mask
    last = low + (vary.count - 1) * vary.step
    whole = spans_field(layout, vary) and not (skip or shift)
    if last > mask and not whole:
        raise ProfileError(
            f"{vary.field}: {vary.count} values from {base:#x} carry beyond its low {size} B, "
            f"which is all TRex's field engine writes; start it lower"
        )
    if vary.op == "random":
        if vary.step != 1 or shift:
            raise ProfileError(f"{vary.field}: random values by step {vary.step}: TRex draws all")
        var = FlowVar(name, size, low, last, op="random", seed=random_seed(direction, position),
                      limit=RANDOM_LIMIT)  # fmt: skip
    elif whole:  # every value of the field, from the base, wrapping to 0
        var = FlowVar(name, size, 0, mask, init_value=low)
    else:
        var = FlowVar(name, size, low << shift, last << shift, vary.step << shift)
    out: list[Instruction] = [var]
    if vary.every > 1:
        out.insert(0, FlowVar(f"{name}_tick", 4, 0, vary.every - 1, next_var=name))
    out.append(WriteVar(name, layout.offset(vary.field) + skip))
    return out


def field_engine(
    headers: Headers, direction: int, src_mac: str, dst_mac: str
) -> tuple[Instruction, ...]:
    """The field engine giving ``headers``' flows of ``direction``; () for one flow.

    ``src_mac`` / ``dst_mac``: the bases of varied MACs the headers leave
    to the TG (as ``build_frames``). ProfileError names a field whose values
    the field engine cannot write.
    """
    if headers.flows <= 1:
        return ()
    layout = FrameLayout.of(headers)
    out: list[Instruction] = []
    for position, vary in enumerate(headers.vary):
        base = base_value(headers, vary.field, src_mac, dst_mac)
        check_range(layout, vary, base)
        out += _field_vars(headers, layout, position, direction, base)
    out += [
        FlowVar("flow", 4, 0, headers.flows - 1),
        WriteVar("flow", layout.signature_index_offset),
    ]
    if any(layout.in_ip_header(v.field) for v in headers.vary):
        out.append(FixIpv4(layout.ip_offset))
    if layout.udp and headers.ip_version == 6:
        out.append(FixUdpChecksum(layout.ip_offset, layout.l4_offset))
    return tuple(out)


@dataclasses.dataclass(frozen=True)
class DirectionTraffic:
    """What one direction sends: packets with their share of frames, the field engine.

    ``packets`` pairs each frame (flow 0, one per size) with its share of
    the direction's frames; the shares add up to 1.
    """

    direction: int
    packets: tuple[tuple[int, bytes, float], ...]
    field_engine: tuple[Instruction, ...]

    def streams(self, rate_pps: float, latency_pps: float = 0.0) -> tuple[StreamSpec, ...]:
        """Stream specs adding up to ``rate_pps`` [pps].

        ``latency_pps`` > 0 adds a latency stream (the smallest frame,
        flow 0) at ``min(latency_pps, rate_pps / 2)``; the data streams
        share the rest.
        """
        if not math.isfinite(rate_pps) or rate_pps <= 0:
            raise ValueError(f"direction {self.direction}: rate {rate_pps!r} pps must be > 0")
        latency = min(latency_pps, rate_pps / 2) if latency_pps > 0 else 0.0
        data = rate_pps - latency
        out = [
            StreamSpec(
                name=f"dir{self.direction}-{size}B",
                direction=self.direction,
                packet=packet,
                pps=data * share,
                field_engine=self.field_engine,
            )
            for size, packet, share in self.packets
        ]
        if latency > 0:
            _, packet, _ = min(self.packets)
            out.append(
                StreamSpec(
                    name=f"dir{self.direction}-latency",
                    direction=self.direction,
                    packet=packet,
                    pps=latency,
                    latency_pg_id=self.direction,
                )
            )
        return tuple(out)


def direction_traffic(
    profile: Profile, frame_size: FrameSize, direction: int, src_mac: str, dst_mac: str
) -> DirectionTraffic:
    """The traffic of ``direction`` of ``profile`` at ``frame_size`` (scapy builds the frames).

    ProfileError names the profile for a frame size below its minimum or a
    field the field engine cannot write.
    """
    headers = profile.directions[direction]
    try:
        engine = field_engine(headers, direction, src_mac, dst_mac)
    except ProfileError as exc:
        raise ProfileError(f"profile {profile.name} direction {direction}: {exc}") from exc
    layout = FrameLayout.of(headers)
    mix = Counter(frame_sizes(frame_size))
    total = sum(mix.values())
    frames = first_frames(profile, frame_size, direction, src_mac, dst_mac)
    packets = []
    for size in sorted(mix):
        frame = frames[size]
        udp_checksum = layout.udp_checksum_offset
        if engine and udp_checksum is not None and headers.ip_version == 4:
            frame = frame[:udp_checksum] + b"\0\0" + frame[udp_checksum + 2 :]  # "none"
        packets.append((size, frame, mix[size] / total))
    return DirectionTraffic(direction, tuple(packets), engine)


def rate_per_direction(load_pps: float, directions: int) -> float:
    """Each direction's rate [pps]: the aggregate load split evenly."""
    return load_pps / directions
