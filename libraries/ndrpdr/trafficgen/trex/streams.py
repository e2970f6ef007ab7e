"""TRex stream specs of a profile at a frame size: plain data the client turns into STL objects.

Per direction, one continuous stream per frame size (one for a fixed
size; three for IMIX, at 7:4:1 of the direction's frames). Its packet is
flow 0's frame from ``ndrpdr.profiles.build_frames`` (without FCS; the
NIC appends it). With N > 1 flows a field engine makes frame *k* of the
stream carry flow ``k mod N`` of ``ndrpdr.profiles.addressing``: three
flow variables step together through N values (IPv4 source address,
UDP source port, the flow index of the payload signature), the IPv4
checksum is recomputed, and the UDP checksum is 0 ("none", RFC 768),
because TRex's field engine does not recompute it in software. Up to 254
flows the source address is a plain range; above, hosts repeat and the
variable is a value list (``STLVmFlowVar(value_list=...)``, TRex's client
v2.42 or newer; not PyPI trex_stl_lib 0.3).

The field engine is a plain description (``FlowVar``, ``WriteVar``,
``FixIpv4``) with byte offsets, so no TRex or scapy objects are needed
here; the client adapter turns it into ``STLVmFlowVar`` /
``STLVmWrFlowVar`` / ``STLVmFixIpv4``.

Rates are absolute: a direction's streams add up to its rate (the
aggregate load split evenly over the directions); an optional latency
stream (TRex flow stats, ``pg_id`` = direction) takes its share of it.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import math
from collections import Counter

from ndrpdr.profiles import (
    DIRECTION_PREFIXES,
    FrameSize,
    Profile,
    build_frames,
    flows,
    frame_sizes,
)

# Byte offsets in the untagged Ethernet/IPv4/UDP frames of ndrpdr.profiles.frames.
IP_OFFSET = 14
IP_SRC_OFFSET = IP_OFFSET + 12
UDP_OFFSET = IP_OFFSET + 20
UDP_SPORT_OFFSET = UDP_OFFSET
UDP_CHECKSUM_OFFSET = UDP_OFFSET + 6
#: The flow index in the payload signature (magic 4 B, version 1 B, direction 1 B, index 4 B).
SIGNATURE_FLOW_OFFSET = UDP_OFFSET + 8 + 6

#: Source hosts of a direction's /24 are .1 .. .254 (``ndrpdr.profiles.addressing``).
_SOURCE_HOSTS = 254


@dataclasses.dataclass(frozen=True)
class FlowVar:
    """A field-engine variable that steps by 1 ("inc") from ``min_value`` to ``max_value``.

    With ``values`` it steps through that list instead (TRex's
    ``value_list``). ``size`` is its width [B].
    """

    name: str
    size: int
    min_value: int = 0
    max_value: int = 0
    values: tuple[int, ...] | None = None

    @property
    def cycle(self) -> int:
        """How many frames until the variable repeats."""
        return len(self.values) if self.values is not None else self.max_value - self.min_value + 1


@dataclasses.dataclass(frozen=True)
class WriteVar:
    """Write variable ``var`` (big-endian, its own width) at byte ``offset`` of the frame."""

    var: str
    offset: int


@dataclasses.dataclass(frozen=True)
class FixIpv4:
    """Recompute the IPv4 header checksum of the header at byte ``offset``."""

    offset: int


Instruction = FlowVar | WriteVar | FixIpv4


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


def field_engine(direction: int, flow_count: int) -> tuple[Instruction, ...]:
    """The field engine giving ``flow_count`` flows of ``direction``; () for one flow."""
    if flow_count <= 1:
        return ()
    network = int(ipaddress.IPv4Network(DIRECTION_PREFIXES[direction]).network_address)
    if flow_count <= _SOURCE_HOSTS:
        src = FlowVar("src", 4, network + 1, network + flow_count)
    else:  # hosts repeat .1 .. .254, .1 ... (flow i: host 1 + i % 254): a value_list (TRex v2.42+)
        hosts = tuple(network + 1 + i % _SOURCE_HOSTS for i in range(flow_count))
        src = FlowVar("src", 4, values=hosts)
    first = flows(direction, 1)[0]
    return (
        src,
        FlowVar("sport", 2, first.src_port, first.src_port + flow_count - 1),
        FlowVar("flow", 4, 0, flow_count - 1),
        WriteVar("src", IP_SRC_OFFSET),
        WriteVar("sport", UDP_SPORT_OFFSET),
        WriteVar("flow", SIGNATURE_FLOW_OFFSET),
        FixIpv4(IP_OFFSET),
    )


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
    """The traffic of ``direction`` of ``profile`` at ``frame_size`` (scapy builds the frames)."""
    one_flow = profile if profile.flows_per_direction == 1 else profile.with_flows(1)
    engine = field_engine(direction, profile.flows_per_direction)
    mix = Counter(frame_sizes(frame_size))
    total = sum(mix.values())
    packets = []
    for size in sorted(mix):
        frame = build_frames(one_flow, size, direction, src_mac, dst_mac)[0]
        if engine:  # the field engine changes covered fields; "no UDP checksum"
            frame = frame[:UDP_CHECKSUM_OFFSET] + b"\0\0" + frame[UDP_CHECKSUM_OFFSET + 2 :]
        packets.append((size, frame, mix[size] / total))
    return DirectionTraffic(direction, tuple(packets), engine)


def rate_per_direction(load_pps: float, directions: int) -> float:
    """Each direction's rate [pps]: the aggregate load split evenly."""
    return load_pps / directions
