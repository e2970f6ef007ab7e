"""streams.py: stream specs from profiles; the field engine gives exactly the profile's flows.

No TRex ran. The field engine is checked by running its plain description
the way TRex's documentation describes STLVmFlowVar ("inc": min, min+1,
..., max, min, ...; ``value_list``: the list in order), STLVmWrFlowVar
(write the variable big-endian at the offset) and STLVmFixIpv4 (recompute
the header checksum), then comparing frame *k* with the frame
``ndrpdr.profiles.build_frames`` makes for flow ``k mod N``.
"""

from __future__ import annotations

import struct

import pytest

from ndrpdr.families import profile_of as get_profile
from ndrpdr.profiles import IMIX
from ndrpdr.profiles.checksum import checksum_of_sum, ones_complement_sum
from ndrpdr.profiles.frames import build_frames, parse_signature
from ndrpdr.trafficgen.trex.streams import (
    UDP_CHECKSUM_OFFSET,
    FixIpv4,
    FlowVar,
    Instruction,
    StreamSpec,
    WriteVar,
    direction_traffic,
    field_engine,
    rate_per_direction,
)

SRC, DST = "02:00:00:00:00:01", "02:00:00:00:00:02"
_FORMATS = {1: "!B", 2: "!H", 4: "!I", 8: "!Q"}


def run_field_engine(packet: bytes, engine: tuple[Instruction, ...], k: int) -> bytes:
    """Frame ``k`` (0-based) of a stream with this field engine, as TRex documents it."""
    frame = bytearray(packet)
    values: dict[str, tuple[int, int]] = {}
    for instruction in engine:
        if isinstance(instruction, FlowVar):
            if instruction.values is not None:
                value = instruction.values[k % len(instruction.values)]
            else:
                value = instruction.min_value + k % instruction.cycle
            values[instruction.name] = (value, instruction.size)
        elif isinstance(instruction, WriteVar):
            value, size = values[instruction.var]
            struct.pack_into(_FORMATS[size], frame, instruction.offset, value)
        elif isinstance(instruction, FixIpv4):
            start = instruction.offset
            frame[start + 10 : start + 12] = b"\0\0"
            checksum = checksum_of_sum(ones_complement_sum(bytes(frame[start : start + 20])))
            struct.pack_into("!H", frame, start + 10, checksum)
    return bytes(frame)


def without_udp_checksum(frame: bytes) -> bytes:
    return frame[:UDP_CHECKSUM_OFFSET] + b"\0\0" + frame[UDP_CHECKSUM_OFFSET + 2 :]


@pytest.mark.parametrize("flows", [2, 7, 254, 255, 1024])
@pytest.mark.parametrize("direction", [0, 1])
def test_field_engine_gives_the_profiles_flows(flows: int, direction: int) -> None:
    profile = get_profile("ethip4udp-ip4base", flows=flows)
    traffic = direction_traffic(profile, 64, direction, SRC, DST)
    ((size, packet, share),) = traffic.packets
    assert (size, share) == (64, 1.0)
    expected = build_frames(profile, 64, direction, SRC, DST)
    cycle = {i.cycle for i in traffic.field_engine if isinstance(i, FlowVar)}
    assert cycle == {flows}  # every variable repeats after N frames: exactly N flows
    for k in [*range(min(flows, 300)), flows - 1, flows, flows + 1, 3 * flows + 5]:
        frame = run_field_engine(packet, traffic.field_engine, k)
        assert frame == without_udp_checksum(expected[k % flows]), k
        assert parse_signature(frame) == (direction, k % flows)


def test_src_uses_a_range_up_to_254_flows_and_a_list_above() -> None:
    small = field_engine(0, 254)
    assert small[0] == FlowVar("src", 4, 0xC6120001, 0xC61200FE)
    large = field_engine(1, 300)
    assert isinstance(large[0], FlowVar) and large[0].values is not None
    assert large[0].values[:2] == (0xC6120101, 0xC6120102)
    assert large[0].values[254] == 0xC6120101  # host .1 again for flow 254
    assert field_engine(0, 1) == ()


def test_single_flow_keeps_the_frame_as_built() -> None:
    profile = get_profile("ethip4-ip4base")
    traffic = direction_traffic(profile, 128, 1, SRC, DST)
    assert traffic.field_engine == ()
    assert traffic.packets[0][1] == build_frames(profile, 128, 1, SRC, DST)[0]


def test_imix_is_three_streams_at_7_4_1() -> None:
    traffic = direction_traffic(get_profile("ethip4udp-ip4base", flows=4), IMIX, 0, SRC, DST)
    streams = traffic.streams(1_200_000.0)
    assert [(s.name, len(s.packet) + 4, s.pps) for s in streams] == [
        ("dir0-64B", 64, pytest.approx(700_000.0)),
        ("dir0-570B", 570, pytest.approx(400_000.0)),
        ("dir0-1518B", 1518, pytest.approx(100_000.0)),
    ]
    assert sum(s.pps for s in streams) == pytest.approx(1_200_000.0)
    assert all(s.field_engine == traffic.field_engine for s in streams)


def test_latency_stream_takes_its_share() -> None:
    traffic = direction_traffic(get_profile("ethip4-ip4base"), 64, 1, SRC, DST)
    data, latency = traffic.streams(1_000_000.0, latency_pps=10_000.0)
    assert data.pps == pytest.approx(990_000.0)
    assert latency == StreamSpec("dir1-latency", 1, data.packet, 10_000.0, latency_pg_id=1)
    low = traffic.streams(1_000.0, latency_pps=10_000.0)
    assert [s.pps for s in low] == [500.0, 500.0]  # the latency stream gets at most half
    assert len(traffic.streams(1_000.0)) == 1
    with pytest.raises(ValueError, match=r"rate 0\.0 pps must be > 0"):
        traffic.streams(0.0)


def test_rate_is_split_evenly() -> None:
    assert rate_per_direction(3e6, 2) == 1.5e6
    assert rate_per_direction(3e6, 1) == 3e6
