"""Frames built from a family's Headers, checked by parsing them back with scapy."""

from __future__ import annotations

import ipaddress
import time
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scapy.layers.inet import IP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Dot1Q, Ether
from scapy.packet import Raw
from scapy.utils import checksum as scapy_checksum

from ndrpdr.families import profile_of as get_profile
from ndrpdr.profiles import (
    IMIX,
    MAX_SAMPLE_FRAMES,
    Headers,
    Profile,
    ProfileError,
    Vary,
    build_frames,
    frame_count,
    parse_signature,
    sample_size,
    stream_frames,
)
from ndrpdr.profiles.checksum import fold, internet_checksum, ones_complement_sum
from ndrpdr.profiles.frames import MAX_SAMPLE_BYTES, sampled_frames

SRC_MAC = "02:00:00:00:00:01"
DST_MAC = "02:00:00:00:00:02"
COST = get_profile("ethip4-ip4base").cost


def _build(profile: Profile, size: Any, direction: int = 0) -> list[bytes]:
    return build_frames(profile, size, direction, SRC_MAC, DST_MAC)


def _profile(first: Headers, second: Headers | None = None, layer: str = "L3") -> Profile:
    return Profile("test-family", "test traffic", layer, (first, second or first), COST)  # type: ignore[arg-type]


def _checked(frame: bytes) -> Any:
    """Parse ``frame``; assert scapy recomputes the same IPv4 and UDP checksums and bytes."""
    packet = Ether(frame)
    if IP in packet:
        del packet[IP].chksum
    if UDP in packet:
        del packet[UDP].chksum
    assert bytes(Ether(bytes(packet))) == frame
    return Ether(frame)


@pytest.mark.parametrize("size", [64, 65, 128, 1518, 9000, 9018])
@pytest.mark.parametrize("direction", [0, 1])
def test_ip4base_frames_are_csits_ip4src253(size: int, direction: int) -> None:
    frames = _build(get_profile("ethip4-ip4base"), size, direction)
    assert len(frames) == 253
    own, other = f"198.18.{direction}", f"198.18.{1 - direction}"
    for k in (0, 1, 100, 252):
        frame = frames[k]
        assert len(frame) == size - 4
        packet = _checked(frame)
        assert packet[Ether].src == SRC_MAC and packet[Ether].dst == DST_MAC
        ip = packet[IP]
        assert (ip.version, ip.ihl, ip.ttl, ip.proto, ip.len) == (4, 5, 64, 61, size - 18)
        assert (ip.src, ip.dst) == (f"{own}.{2 + k}", f"{other}.2")
        assert UDP not in packet
        assert packet[Raw].load[:4] == b"NDRP"  # the signature right after the IPv4 header
        assert parse_signature(frame) == (direction, k)
    assert {f[26:30] for f in frames} == {bytes([198, 18, direction, h]) for h in range(2, 255)}
    for frame in frames:
        assert internet_checksum(frame[14:34]) == 0


@pytest.mark.parametrize("direction", [0, 1])
def test_udp_multi_flow_frames(direction: int) -> None:
    profile = get_profile("ethip4udp-ip4base", flows=300)
    frames = _build(profile, 64, direction)
    assert len(frames) == frame_count(profile, 64) == 300
    assert [parse_signature(f) for f in frames] == [(direction, i) for i in range(300)]
    for index in [*range(0, 300, 23), 299]:
        packet = _checked(frames[index])
        assert (packet[IP].src, packet[IP].dst) == (
            f"198.18.{direction}.1",
            f"198.18.{1 - direction}.1",
        )
        assert (packet[IP].proto, packet[UDP].sport, packet[UDP].dport) == (17, 1024 + index, 1024)
    for frame in frames:
        pseudo = frame[26:34] + bytes([0, 17]) + (len(frame) - 34).to_bytes(2, "big")
        assert internet_checksum(pseudo + frame[34:]) == 0


def test_ipv6_frames_are_csits_ip6src253() -> None:
    profile = get_profile("ethip6-ip6base")
    assert profile.min_frame_size_b == 78
    frames = _build(profile, 78, 1)
    assert len(frames) == 253
    for k in (0, 5, 252):
        packet = _checked(frames[k])
        ip6 = packet[IPv6]
        assert (ip6.nh, ip6.hlim, ip6.plen) == (59, 64, 78 - 4 - 54)
        assert ip6.src == str(ipaddress.IPv6Address("2001:2:0:1::2") + k)
        assert ip6.dst == "2001:2::2"
        assert parse_signature(frames[k]) == (1, k)


def test_ipv6_udp_checksum_covers_the_pseudo_header() -> None:
    headers = Headers(
        6, "2001:2::2", "2001:2:0:1::2", "udp", vary=(Vary("ip.src", 40), Vary("udp.dport", 7))
    )
    frames = _build(_profile(headers), 128)
    assert len(frames) == 280
    for frame in frames[::13]:
        packet = Ether(frame)
        stored = packet[UDP].chksum
        del packet[UDP].chksum
        assert Ether(bytes(packet))[UDP].chksum == stored != 0
        assert parse_signature(frame) is not None


def test_dot1q_frames_carry_vlan_100_and_200_and_random_addresses() -> None:
    profile = get_profile("dot1q-l2bdbasemaclrn")
    for direction, vlan in ((0, 100), (1, 200)):
        frames = _build(profile, 64, direction)
        assert len(frames) == 254
        packets = [_checked(f) for f in frames]
        assert {p[Dot1Q].vlan for p in packets} == {vlan}
        assert {p[Ether].type for p in packets} == {0x8100}
        hosts = [(int(p[IP].src.split(".")[3]), int(p[IP].dst.split(".")[3])) for p in packets]
        assert all(1 <= s <= 254 and 1 <= d <= 254 for s, d in hosts)
        assert len({s for s, _ in hosts}) > 100 and len(set(hosts)) > 200  # random, not a walk
        assert [s for s, _ in hosts] != sorted(s for s, _ in hosts)
        assert [parse_signature(f) for f in frames] == [(direction, k) for k in range(254)]
    assert _build(profile, 64, 0) == _build(profile, 64, 0)  # reproducible
    assert _build(profile, 64, 0)[0][30:34] != _build(profile, 64, 1)[0][30:34]


def test_random_draws_are_uniform_enough_and_in_range() -> None:
    headers = Headers(4, "198.18.0.1", "198.18.1.0", 61, vary=(Vary("ip.dst", 10, "random"),))
    frames = _build(_profile(headers), 64)
    assert len(frames) == 10
    long = Headers(
        4,
        "198.18.0.1",
        "198.18.1.0",
        61,
        vary=(Vary("ip.dst", 10, "random", every=1), Vary("ip.src", 1000)),
    )
    counts = Counter(f[33] for f in _build(_profile(long), 64))
    assert set(counts) == set(range(10)) and min(counts.values()) > 50


def test_mac_scale_frames_step_both_macs_and_addresses() -> None:
    profile = get_profile("eth-l2bdscale10kmaclrn")
    frames = _build(profile, 64, 1)
    assert len(frames) == 5000
    for k in (0, 1, 255, 256, 4999):
        packet = _checked(frames[k])
        low = f"{k >> 8:02x}:{k & 0xFF:02x}"
        assert (packet[Ether].src, packet[Ether].dst) == (
            f"fa:ce:00:00:{low}",
            f"ca:fe:00:00:{low}",
        )
        assert packet[IP].src == str(ipaddress.IPv4Address("20.0.0.0") + k)
        assert packet[IP].dst == str(ipaddress.IPv4Address("10.0.0.0") + k)


def test_nested_fields_move_every_n_frames() -> None:
    profile = get_profile("ethip4udp-ip4base-iacl50sf-10kflows")
    frames = _build(profile, 64, 0)
    assert len(frames) == 10_000
    seen = set()
    for k in range(0, 10_000, 7):
        packet = _checked(frames[k]) if k % 700 == 0 else Ether(frames[k])
        assert packet[IP].src == f"198.18.0.{2 + k % 10}"
        assert packet[IP].dst == f"198.18.1.{2 + k % 10}"
        assert (packet[UDP].sport, packet[UDP].dport) == (1001 + k // 10, 2001 + k // 10)
    for frame in frames:
        seen.add(frame[26:38])
    assert len(seen) == 10_000


def test_large_families_are_sampled_across_their_whole_sequence() -> None:
    profile = get_profile("eth-l2bdscale1mmaclrn")  # 500k flows per direction
    headers = profile.directions[0]
    assert sample_size(headers, 64) == MAX_SAMPLE_FRAMES
    flows = sampled_frames(headers, 64)
    assert len(set(flows)) == len(flows) == MAX_SAMPLE_FRAMES
    assert max(flows) > 0.99 * headers.flows and min(flows) == 0
    frames = _build(profile, 64, 0)
    assert len(frames) == MAX_SAMPLE_FRAMES
    assert len({f[6:12] for f in frames}) == MAX_SAMPLE_FRAMES  # every frame its own MAC
    assert [parse_signature(f) for f in frames[:3]] == [(0, k) for k in flows[:3]]
    packet = _checked(frames[1])
    assert packet[Ether].src == "ca:fe:" + ":".join(f"{b:02x}" for b in flows[1].to_bytes(4, "big"))


def test_random_scale_family_is_capped_with_many_destinations() -> None:
    profile = get_profile("ethip4-ip4scale2m-rnd")
    frames = _build(profile, 64, 0)
    assert len(frames) == MAX_SAMPLE_FRAMES
    destinations = {int.from_bytes(f[30:34], "big") for f in frames}
    base = int(ipaddress.IPv4Address("20.0.0.0"))
    assert all(base <= d < base + 1_000_000 for d in destinations)
    assert len(destinations) > 60_000


def test_big_frames_are_capped_by_bytes() -> None:
    profile = get_profile("ethip4-ip4scale20k")
    assert sample_size(profile.directions[0], 9000) == MAX_SAMPLE_BYTES // 9000
    assert frame_count(profile, 9000) == MAX_SAMPLE_BYTES // 9000
    imix = sample_size(get_profile("eth-l2bdscale1mmaclrn").directions[0], IMIX)
    assert imix % 12 == 0 and imix <= MAX_SAMPLE_FRAMES


def test_imix_lists_are_capped_by_bytes_too() -> None:
    headers = Headers(4, "198.18.0.1", "198.18.1.1", "udp", vary=(Vary("udp.sport", 64511),))
    assert sample_size(headers, 64) == 64511  # every flow at a fixed size
    flows = sampled_frames(headers, IMIX)  # lcm(64511, 12) frames would be 270 MB
    assert len(flows) % 12 == 0 and len(set(flows)) == len(flows) >= 60_000
    assert len(flows) * 354 <= MAX_SAMPLE_BYTES


def test_minimum_frame_sizes() -> None:
    assert get_profile("ethip4-ip4base").min_frame_size_b == 64
    assert get_profile("dot1q-l2bdbasemaclrn").min_frame_size_b == 64
    assert get_profile("ethip6-ip6scale2m-rnd").min_frame_size_b == 78
    six_udp = Headers(6, "2001:2::2", "2001:2:0:1::2", "udp", vlan=10)
    assert _profile(six_udp).min_frame_size_b == 14 + 4 + 40 + 8 + 10 + 4
    with pytest.raises(
        ProfileError, match=r"ethip6-ip6base: frame size 77 B is below its minimum 78 B"
    ):
        _build(get_profile("ethip6-ip6base"), 77)
    with pytest.raises(ProfileError, match=r"test-family: IMIX's 64 B frames cannot hold its 66 B"):
        _build(_profile(six_udp), IMIX)


def test_ipv6_imix_small_frames_carry_no_signature() -> None:
    frames = _build(get_profile("ethip6-ip6base"), IMIX)
    small = [f for f in frames if len(f) == 60]
    assert small and all(parse_signature(f) is None for f in small)
    assert all(parse_signature(f) is not None for f in frames if len(f) > 60)
    assert all(Ether(f)[IPv6].nh == 59 for f in small)


def test_imix_mix() -> None:
    frames = _build(get_profile("ethip4-ip4base"), IMIX)
    assert len(frames) == 253 * 12
    assert Counter(len(f) + 4 for f in frames) == {64: 7 * 253, 570: 4 * 253, 1518: 253}
    assert [len(f) + 4 for f in frames[:12]] == [
        64,
        570,
        64,
        64,
        570,
        64,
        1518,
        64,
        570,
        64,
        64,
        570,
    ]
    per_flow = Counter(parse_signature(f) for f in frames)
    assert len(per_flow) == 253 and set(per_flow.values()) == {12}
    for frame in frames[:24]:
        _checked(frame)


@pytest.mark.parametrize("flows", [1, 2, 5, 12, 100, 1024])
def test_imix_multi_flow_mix(flows: int) -> None:
    profile = get_profile("ethip4udp-ip4base", flows=flows)
    frames = _build(profile, "IMIX", 1)
    assert len(frames) == frame_count(profile, "IMIX")
    cycles = len(frames) // 12
    assert len(frames) % 12 == 0 and len(frames) % flows == 0
    assert Counter(len(f) + 4 for f in frames) == {64: 7 * cycles, 570: 4 * cycles, 1518: cycles}
    per_flow = Counter(parse_signature(f) for f in frames)
    assert len(per_flow) == flows
    assert set(per_flow.values()) == {len(frames) // flows}


def test_many_flows_are_fast() -> None:
    _build(get_profile("ethip4-ip4base"), 64)  # scapy imported before timing
    start = time.perf_counter()
    frames = _build(get_profile("ethip4udp-ip4base", flows=4096), 64)
    assert time.perf_counter() - start < 2.0
    assert len(frames) == 4096
    _checked(frames[-1])


def test_own_macs_override_the_tgs() -> None:
    headers = Headers(
        4, "10.0.0.1", "20.0.0.1", 61, eth_src="ca:fe:00:00:00:01", eth_dst="fa:ce:00:00:00:01"
    )
    packet = Ether(_build(_profile(headers, layer="L2"), 64)[0])
    assert (packet.src, packet.dst) == ("ca:fe:00:00:00:01", "fa:ce:00:00:00:01")


def test_fields_beyond_their_range_are_refused() -> None:
    with pytest.raises(
        ProfileError, match=r"profile test-family direction 0: udp\.sport: 10 values"
    ):
        _profile(
            Headers(4, "10.0.0.1", "20.0.0.1", "udp", sport=65530, vary=(Vary("udp.sport", 10),))
        )
    over = Headers(4, "10.0.0.1", "20.0.0.1", 61, vary=(Vary("eth.src", 2),))
    with pytest.raises(ProfileError, match=r"eth\.src: 2 values from 0xffffffffffff"):
        build_frames(_profile(over), 64, 0, "ff:ff:ff:ff:ff:ff", DST_MAC)


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ((64, 2, SRC_MAC, DST_MAC), "direction 2"),
        ((63, 0, SRC_MAC, DST_MAC), "frame size 63"),
        ((64, 0, "02:00:00:00:00", DST_MAC), "source MAC '02:00:00:00:00'"),
        ((64, 0, SRC_MAC, "zz:00:00:00:00:02"), "destination MAC 'zz:00:00:00:00:02'"),
    ],
)
def test_build_frames_rejects(args: tuple[Any, ...], match: str) -> None:
    with pytest.raises(ProfileError, match=match):
        build_frames(get_profile("ethip4-ip4base"), *args)


def test_parse_signature_walks_every_layout_and_rejects_foreign_frames() -> None:
    for family in ("ethip4-ip4base", "ethip6-ip6base", "dot1q-l2bdbasemaclrn", "ethip4udp-ip4base"):
        profile = get_profile(family)
        frame = _build(profile, profile.min_frame_size_b, 1)[3]
        assert parse_signature(frame) == (1, 3), family
    frame = _build(get_profile("ethip4-ip4base"), 64)[0]
    assert parse_signature(frame[:40]) is None
    assert parse_signature(frame[:34] + b"XXXX" + frame[38:]) is None
    assert parse_signature(frame[:12] + b"\x08\x06" + frame[14:]) is None  # ARP


@settings(deadline=None, max_examples=200)
@given(st.binary(max_size=300))
def test_checksum_matches_scapy(data: bytes) -> None:
    assert internet_checksum(data) == scapy_checksum(data)


@settings(deadline=None)
@given(st.lists(st.binary(min_size=0, max_size=40).map(lambda b: b + b"\0" * (len(b) % 2))))
def test_partial_sums_add(parts: list[bytes]) -> None:
    whole = ones_complement_sum(b"".join(parts))
    assert fold(sum(ones_complement_sum(p) for p in parts)) == whole


def test_stream_frames_are_the_field_engines_order_not_the_sample() -> None:
    """Frame k is flow k of the whole profile, even where the frame list holds a sample."""
    profile = get_profile("ethip4-ip4scale2m-rnd")  # 2M flows: the frame list samples them
    frames = stream_frames(profile, 64, 0, SRC_MAC, DST_MAC, 5)
    listed = build_frames(profile, 64, 0, SRC_MAC, DST_MAC)
    assert [parse_signature(f) for f in frames] == [(0, k) for k in range(5)]
    assert parse_signature(listed[1]) != (0, 1)  # the list strides through the flows
    nested = stream_frames(get_profile("ethip4-ip4scale20k"), 64, 0, SRC_MAC, DST_MAC, 3)
    dsts = [int(ipaddress.ip_address(Ether(f)[IP].dst)) for f in nested]
    assert dsts == [dsts[0] + k for k in range(3)]
    imix = stream_frames(get_profile("ethip4-ip4base"), IMIX, 1, SRC_MAC, DST_MAC, 13)
    assert [len(f) + 4 for f in imix] == [64, 570, 64, 64, 570, 64, 1518, 64, 570, 64, 64, 570, 64]
    with pytest.raises(ProfileError, match="frame count 0"):
        stream_frames(profile, 64, 0, SRC_MAC, DST_MAC, 0)


@pytest.mark.parametrize(
    "family", ["ethip4-ip4base", "ethip4udp-ip4base-iacl50sl-10kflows",
               "ethip4--ethip4udpgeneve-4tun-ip4base"],
)  # fmt: skip
def test_every_ipv4_header_carries_scapys_default_id_as_csits_profiles(family: str) -> None:
    """CSIT builds its frames with scapy's ``IP()``, whose ID is 1: ours too, checksums right.

    A GENEVE direction carries two IPv4 headers (outer and inner): both.
    """
    for direction in (0, 1):
        for frame in stream_frames(get_profile(family), 64, direction, SRC_MAC, DST_MAC, 3):
            packet = Ether(frame)
            headers = [packet.getlayer(IP, n) for n in (1, 2) if packet.getlayer(IP, n)]
            assert headers and all(h.id == 1 and h.flags == 0 for h in headers), family
            for header in headers:
                assert internet_checksum(bytes(header)[:20]) == 0


def test_ip4scale60k_rnd_draws_destinations_over_csits_10000_per_direction() -> None:
    """CSIT's 60k-rnd suite sends trex-stl-ethip4-ip4dst-rnd10000-2p: 10000 each way."""
    profile = get_profile("ethip4-ip4scale60k-rnd")
    for direction, (src, first) in enumerate((("10.0.0.1", "20.0.0.0"), ("20.0.0.1", "10.0.0.0"))):
        low = int(ipaddress.ip_address(first))
        frames = stream_frames(profile, 64, direction, SRC_MAC, DST_MAC, 3000)
        drawn = [int(ipaddress.ip_address(Ether(f)[IP].dst)) - low for f in frames]
        assert {Ether(f)[IP].src for f in frames} == {src}
        assert 0 <= min(drawn) < 100 and 9900 < max(drawn) <= 9999  # 20.0.0.0 - 20.0.39.15
        assert len(set(drawn)) > 2500  # drawn at random over the range, not in order
        assert drawn[:10] != sorted(drawn[:10])
