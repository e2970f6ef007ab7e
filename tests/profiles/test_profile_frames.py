"""Frames built for the profiles, checked by parsing them back with scapy."""

from __future__ import annotations

import time
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether
from scapy.packet import Raw
from scapy.utils import checksum as scapy_checksum

from ndrpdr.profiles import (
    IMIX,
    Profile,
    ProfileError,
    build_frames,
    flow,
    frame_count,
    parse_signature,
)
from ndrpdr.families import profile_of as get_profile
from ndrpdr.profiles.checksum import fold, internet_checksum, ones_complement_sum

SRC_MAC = "02:00:00:00:00:01"
DST_MAC = "02:00:00:00:00:02"


def _build(profile: Profile, size: Any, direction: int = 0) -> list[bytes]:
    return build_frames(profile, size, direction, SRC_MAC, DST_MAC)


def _check_checksums(frame: bytes) -> Any:
    """Parse ``frame``; assert scapy recomputes the same IPv4 and UDP checksums."""
    packet = Ether(frame)
    stored = (packet[IP].chksum, packet[UDP].chksum)
    del packet[IP].chksum
    del packet[UDP].chksum
    rebuilt = Ether(bytes(packet))
    assert (rebuilt[IP].chksum, rebuilt[UDP].chksum) == stored
    assert bytes(rebuilt) == frame
    return Ether(frame)


@pytest.mark.parametrize("size", [64, 65, 128, 1518, 9000, 9018])
@pytest.mark.parametrize("direction", [0, 1])
def test_single_flow_frame(size: int, direction: int) -> None:
    frames = _build(get_profile("ethip4-ip4base"), size, direction)
    assert len(frames) == 1
    frame = frames[0]
    assert len(frame) == size - 4
    packet = _check_checksums(frame)
    expected = flow(direction, 0)
    assert packet[Ether].src == SRC_MAC and packet[Ether].dst == DST_MAC
    assert packet[Ether].type == 0x0800
    ip = packet[IP]
    assert (ip.version, ip.ihl, ip.ttl, ip.proto) == (4, 5, 64, 17)
    assert ip.len == size - 4 - 14
    assert (ip.src, ip.dst) == (expected.src_ip, expected.dst_ip)
    udp = packet[UDP]
    assert (udp.sport, udp.dport) == (expected.src_port, expected.dst_port)
    assert udp.len == size - 4 - 34
    assert len(packet[Raw].load) == size - 4 - 42
    assert parse_signature(frame) == (direction, 0)


@pytest.mark.parametrize("direction", [0, 1])
def test_multi_flow_frames(direction: int) -> None:
    profile = get_profile("ethip4udp-ip4base", flows=300)
    frames = _build(profile, 64, direction)
    assert len(frames) == frame_count(profile, 64) == 300
    assert {len(f) for f in frames} == {60}
    assert [parse_signature(f) for f in frames] == [(direction, i) for i in range(300)]
    # scapy is slow: parse a sample, including both ends and the address wrap at 254
    for index in [*range(0, 300, 23), 253, 254, 255, 299]:
        packet = _check_checksums(frames[index])
        expected = flow(direction, index)
        assert (packet[IP].src, packet[IP].dst) == (expected.src_ip, expected.dst_ip)
        assert (packet[UDP].sport, packet[UDP].dport) == (expected.src_port, expected.dst_port)
    # every flow differs in (source address, source port); all checksums valid
    assert len({(f[26:30], f[34:36]) for f in frames}) == 300
    for frame in frames:
        assert internet_checksum(frame[14:34]) == 0
        udp_length = len(frame) - 34
        pseudo = frame[26:34] + bytes([0, 17]) + udp_length.to_bytes(2, "big")
        assert internet_checksum(pseudo + frame[34:]) == 0


def test_default_multi_flow_count() -> None:
    frames = _build(get_profile("ethip4udp-ip4base"), 1518, 1)
    assert len(frames) == 1024
    assert len({parse_signature(f) for f in frames}) == 1024


def test_l2_profile_frames() -> None:
    frames = _build(get_profile("eth-l2xcbase"), 64, 1)
    assert len(frames) == 1
    packet = _check_checksums(frames[0])
    assert packet[IP].src == "198.18.1.1"


def test_imix_single_flow() -> None:
    frames = _build(get_profile("ethip4-ip4base"), IMIX)
    assert [len(f) + 4 for f in frames] == [64, 570, 64, 64, 570, 64, 1518, 64, 570, 64, 64, 570]
    for frame in frames:
        _check_checksums(frame)
        assert parse_signature(frame) == (0, 0)


@pytest.mark.parametrize("flows", [1, 2, 5, 12, 100, 1024])
def test_imix_multi_flow_mix(flows: int) -> None:
    profile = get_profile("ethip4udp-ip4base", flows=flows)
    frames = _build(profile, "IMIX", 1)
    assert len(frames) == frame_count(profile, "IMIX") == len(frames)
    cycles = len(frames) // 12
    assert len(frames) % 12 == 0 and len(frames) % flows == 0
    assert Counter(len(f) + 4 for f in frames) == {64: 7 * cycles, 570: 4 * cycles, 1518: cycles}
    per_flow = Counter(parse_signature(f) for f in frames)
    assert len(per_flow) == flows
    assert set(per_flow.values()) == {len(frames) // flows}


def test_imix_frames_checksums_sample() -> None:
    frames = _build(get_profile("ethip4udp-ip4base", flows=7), IMIX, 0)
    assert len(frames) == 84
    for frame in frames:
        _check_checksums(frame)


def test_many_flows_are_fast() -> None:
    _build(get_profile("ethip4-ip4base"), 64)  # scapy imported before timing
    start = time.perf_counter()
    frames = _build(get_profile("ethip4udp-ip4base", flows=4096), 64)
    assert time.perf_counter() - start < 2.0
    assert len(frames) == 4096
    _check_checksums(frames[-1])


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


def test_parse_signature_rejects_foreign_frames() -> None:
    frame = _build(get_profile("ethip4-ip4base"), 64)[0]
    assert parse_signature(frame[:50]) is None
    assert parse_signature(frame[:42] + b"XXXX" + frame[46:]) is None


@settings(deadline=None, max_examples=200)
@given(st.binary(max_size=300))
def test_checksum_matches_scapy(data: bytes) -> None:
    assert internet_checksum(data) == scapy_checksum(data)


@settings(deadline=None)
@given(st.lists(st.binary(min_size=0, max_size=40).map(lambda b: b + b"\0" * (len(b) % 2))))
def test_partial_sums_add(parts: list[bytes]) -> None:
    whole = ones_complement_sum(b"".join(parts))
    assert fold(sum(ones_complement_sum(p) for p in parts)) == whole
