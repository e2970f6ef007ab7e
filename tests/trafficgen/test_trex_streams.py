"""streams.py: stream specs from a family's Headers; the field engine gives exactly its flows.

No TRex ran. The field engine is checked by running its plain description
the way TRex's documentation describes it: STLVmFlowVar "inc" (min,
min + step, ..., max, min, ...), a ``next_var`` that takes one step only
when the variable pointing at it wraps around, repeatable random (a draw
in min..max; TRex's own sequence is not reproduced here), STLVmWrFlowVar
(the variable big-endian at the offset) and STLVmFixIpv4 (the header
checksum recomputed). Frame *k* of an "inc" family is then compared with
frame *k* ``ndrpdr.profiles.build_frames`` makes; random fields are
checked to stay in their range.
"""

from __future__ import annotations

import random
import struct

import pytest
from scapy.layers.inet import IP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Dot1Q, Ether

from ndrpdr.families import profile_of as get_profile
from ndrpdr.profiles import IMIX, Headers, Profile, ProfileError, Vary
from ndrpdr.profiles.checksum import checksum_of_sum, ones_complement_sum
from ndrpdr.profiles.frames import build_frames
from ndrpdr.profiles.layout import FrameLayout
from ndrpdr.profiles.signature import parse_signature
from ndrpdr.trafficgen.trex.streams import (
    RANDOM_LIMIT,
    FixIpv4,
    FixUdpChecksum,
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


class Engine:
    """A stream's field engine run frame by frame, as TRex documents it (module docstring)."""

    def __init__(self, engine: tuple[Instruction, ...], seed: int = 1) -> None:
        self.engine = engine
        self.vars = {i.name: i for i in engine if isinstance(i, FlowVar)}
        targets = {v.next_var for v in self.vars.values() if v.next_var}
        self.heads = [name for name in self.vars if name not in targets]
        self.values = {
            name: v.min_value if v.init_value is None else v.init_value
            for name, v in self.vars.items()
        }
        self.rng = random.Random(seed)

    def _step(self, name: str) -> None:
        var = self.vars[name]
        if var.op == "random":
            self.values[name] = self.rng.randint(var.min_value, var.max_value)
            return
        value = self.values[name] + var.step
        if value > var.max_value:
            value = var.min_value
            if var.next_var:
                self._step(var.next_var)
        self.values[name] = value

    def frame(self, packet: bytes) -> bytes:
        """The next frame (the first call: frame 0)."""
        frame = bytearray(packet)
        for instruction in self.engine:
            if isinstance(instruction, WriteVar):
                size = self.vars[instruction.var].size
                value = self.values[instruction.var]
                struct.pack_into(_FORMATS[size], frame, instruction.offset, value)
            elif isinstance(instruction, FixIpv4):
                start = instruction.offset
                frame[start + 10 : start + 12] = b"\0\0"
                header = bytes(frame[start : start + 20])
                struct.pack_into(
                    "!H", frame, start + 10, checksum_of_sum(ones_complement_sum(header))
                )
        for name in self.heads:
            self._step(name)
        return bytes(frame)

    def frames(self, packet: bytes, count: int) -> list[bytes]:
        return [self.frame(packet) for _ in range(count)]


def _without_udp_checksum(headers: Headers, frame: bytes) -> bytes:
    offset = FrameLayout.of(headers).udp_checksum_offset
    if offset is None:
        return frame
    return frame[:offset] + b"\0\0" + frame[offset + 2 :]


@pytest.mark.parametrize(
    "family",
    [
        "ethip4-ip4base",
        "eth-l2xcbase",
        "ethip6-ip6base",
        "ethip6-ip6scale20k",
        "ethip4-ip4scale20k",
        "eth-l2bdscale10kmaclrn",
        "ethip4udp-ip4base-iacl50sl-10kflows",
        "ethip4ipsec40tnlsw-ip4base-int-aes256gcm",
        "ethip4--ethip4udpgeneve-4tun-ip4base",
    ],
)
@pytest.mark.parametrize("direction", [0, 1])
def test_field_engine_sends_the_frames_build_frames_makes(family: str, direction: int) -> None:
    profile = get_profile(family)
    headers = profile.directions[direction]
    size = profile.min_frame_size_b  # (a tunnelled direction's frames grow: CSIT's name stays)
    traffic = direction_traffic(profile, size, direction, SRC, DST)
    ((got_size, packet, share),) = traffic.packets
    assert (got_size, share) == (size, 1.0)
    expected = build_frames(profile, size, direction, SRC, DST)
    flows = headers.flows
    assert len(expected) == flows
    engine = Engine(traffic.field_engine)
    sent = engine.frames(packet, flows + 3)
    for k in [*range(min(flows, 400)), *range(flows - 30, flows + 3)]:
        assert sent[k] == _without_udp_checksum(headers, expected[k % flows]), (family, k)
    assert parse_signature(sent[flows - 1]) == (direction, flows - 1)
    assert parse_signature(sent[flows]) == (direction, 0)


def test_udp_families_get_no_udp_checksum_over_ipv4_and_a_fixed_ipv4_checksum() -> None:
    profile = get_profile("ethip4udp-ip4base-iacl50sf-10kflows")
    traffic = direction_traffic(profile, 64, 0, SRC, DST)
    packet = traffic.packets[0][1]
    assert Ether(packet)[IP].payload.chksum == 0  # type: ignore[attr-defined]
    assert FixIpv4(14) in traffic.field_engine
    assert not any(isinstance(i, FixUdpChecksum) for i in traffic.field_engine)


def test_nested_fields_use_a_tick_variable() -> None:
    headers = get_profile("ethip4udp-ip4base-iacl50sl-10kflows").directions[0]
    engine = field_engine(headers, 0, SRC, DST)
    tick = next(i for i in engine if isinstance(i, FlowVar) and i.name == "udp_sport_tick")
    assert (tick.min_value, tick.max_value, tick.next_var) == (0, 9, "udp_sport")
    sport = next(i for i in engine if isinstance(i, FlowVar) and i.name == "udp_sport")
    assert (sport.min_value, sport.max_value) == (1001, 2000)
    assert WriteVar("udp_sport", 34) in engine and WriteVar("udp_dport", 36) in engine


def test_macs_write_their_low_4_bytes_and_ipv6_its_low_8() -> None:
    macs = field_engine(get_profile("eth-l2bdscale10kmaclrn").directions[0], 0, SRC, DST)
    assert FlowVar("eth_src", 4, 0, 4999) in macs and WriteVar("eth_src", 8) in macs
    assert FlowVar("eth_dst", 4, 0, 4999) in macs and WriteVar("eth_dst", 2) in macs
    ip6 = field_engine(get_profile("ethip6-ip6base").directions[1], 1, SRC, DST)
    assert FlowVar("ip_src", 8, 2, 254) in ip6 and WriteVar("ip_src", 14 + 8 + 8) in ip6
    assert not any(isinstance(i, FixIpv4) for i in ip6)  # IPv6 has no header checksum


def test_random_fields_draw_repeatable_random_in_range() -> None:
    profile = get_profile("dot1q-l2bdbasemaclrn")
    for direction, vlan in ((0, 100), (1, 200)):
        traffic = direction_traffic(profile, 64, direction, SRC, DST)
        engine = traffic.field_engine
        src = next(i for i in engine if isinstance(i, FlowVar) and i.name == "ip_src")
        assert src.op == "random" and src.limit == RANDOM_LIMIT and src.seed == direction + 1
        dst = next(i for i in engine if isinstance(i, FlowVar) and i.name == "ip_dst")
        assert dst.seed == direction + 3
        base = 0xC6120001 + 256 * direction
        assert (src.min_value, src.max_value) == (base, base + 253)
        for frame in Engine(engine, seed=7).frames(traffic.packets[0][1], 200):
            packet = Ether(frame)
            assert packet[Dot1Q].vlan == vlan
            assert packet[IP].src.startswith(f"198.18.{direction}.")
            assert 1 <= int(packet[IP].src.split(".")[3]) <= 254
            assert 1 <= int(packet[IP].dst.split(".")[3]) <= 254


def test_single_flow_keeps_the_frame_as_built() -> None:
    headers = Headers(4, "198.18.0.2", "198.18.1.2", 61)
    profile = Profile(
        "one", "one flow", "L3", (headers, headers), get_profile("ethip4-ip4base").cost
    )
    traffic = direction_traffic(profile, 128, 1, SRC, DST)
    assert traffic.field_engine == ()
    assert traffic.packets[0][1] == build_frames(profile, 128, 1, SRC, DST)[0]


def test_ipv6_udp_has_the_nic_fill_the_checksum() -> None:
    headers = Headers(6, "2001:2::2", "2001:2:0:1::2", "udp", vary=(Vary("udp.sport", 10),))
    profile = Profile(
        "six", "IPv6 UDP", "L3", (headers, headers), get_profile("ethip4-ip4base").cost
    )
    traffic = direction_traffic(profile, 128, 0, SRC, DST)
    assert FixUdpChecksum(14, 54) in traffic.field_engine
    assert Ether(traffic.packets[0][1])[IPv6].payload.chksum != 0  # type: ignore[attr-defined]


def test_fields_that_carry_beyond_the_written_bytes_are_refused() -> None:
    headers = Headers(4, "198.18.0.2", "198.18.1.2", 61, eth_src="02:00:ff:ff:ff:f0",
                      vary=(Vary("eth.src", 32),))  # fmt: skip
    profile = Profile("carry", "x", "L2", (headers, headers), get_profile("ethip4-ip4base").cost)
    with pytest.raises(ProfileError, match=r"profile carry direction 0: eth\.src: 32 values"):
        direction_traffic(profile, 64, 0, SRC, DST)


def test_frame_size_below_the_family_minimum_is_refused() -> None:
    with pytest.raises(ProfileError, match=r"ethip6-ip6base: frame size 64 B .* minimum 78 B"):
        direction_traffic(get_profile("ethip6-ip6base"), 64, 0, SRC, DST)


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


def test_a_whole_range_field_starts_at_its_base_and_wraps_as_csits_geneve_port() -> None:
    """CSIT's 256-tunnel GENEVE source port, 1024 + k mod 2^16: one 2 B var from 1024."""
    profile = get_profile("ethip4--ethip4udpgeneve-256tun-ip4base")
    headers = profile.directions[1]
    traffic = direction_traffic(profile, 64, 1, SRC, DST)
    sport = next(
        i for i in traffic.field_engine if isinstance(i, FlowVar) and i.name == "tunnel_sport"
    )
    assert (sport.size, sport.min_value, sport.max_value, sport.init_value) == (2, 0, 0xFFFF, 1024)
    ((_, packet, _),) = traffic.packets
    sent = Engine(traffic.field_engine).frames(packet, 65536 + 2)
    expected = build_frames(profile, 64, 1, SRC, DST)
    for k in (0, 1, 64510, 64511, 64512, 64513, 65535, 65536, 65537):
        assert sent[k] == _without_udp_checksum(headers, expected[k % 65536]), k
    assert [int.from_bytes(sent[k][34:36], "big") for k in (0, 64511, 64512, 65535, 65536)] == [
        1024,
        65535,
        0,
        1023,
        1024,
    ]
