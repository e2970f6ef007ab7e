"""Tunnelled directions (GENEVE): frames, sizes, varied tunnel fields, checks; parsed by scapy."""

from __future__ import annotations

import pytest
from scapy.contrib.geneve import GENEVE
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether
from scapy.utils import checksum as scapy_checksum

from ndrpdr.families import profile_of
from ndrpdr.profiles import (
    IMIX,
    Headers,
    Profile,
    ProfileError,
    Vary,
    build_frames,
    parse_signature,
    stream_frames,
)
from ndrpdr.profiles.layout import TUNNEL_HEADERS, FrameLayout
from ndrpdr.profiles.traffic import Tunnel

SRC_MAC, DST_MAC = "02:00:00:00:00:01", "02:00:00:00:00:02"
GENEVE4 = "ethip4--ethip4udpgeneve-4tun-ip4base"


def _frames(size: object, direction: int = 1, family: str = GENEVE4) -> list[bytes]:
    return build_frames(profile_of(family), size, direction, SRC_MAC, DST_MAC)  # type: ignore[arg-type]


def test_geneve_direction_sends_csits_encapsulated_frames() -> None:
    frames = _frames(64)
    assert len(frames) == 1024 and {len(f) for f in frames} == {110}  # CSIT's 114 B at 64B
    for k in (0, 255, 256, 700, 1023):
        frame = Ether(frames[k])
        outer, inner = frame[IP], frame[GENEVE][IP]
        assert (frame.src, frame.dst) == (SRC_MAC, DST_MAC)
        assert (outer.src, outer.dst, outer.proto) == ("1.1.1.1", "1.1.1.2", 17)
        assert (frame[UDP].sport, frame[UDP].dport, frame[UDP].chksum) == (1024 + k, 6081, 0)
        assert frame[GENEVE].vni == 1 + k // 256 and frame[GENEVE].proto == 0x6558
        inner_eth = frame[GENEVE][Ether]
        assert inner_eth.dst == f"d0:0b:ee:d0:00:{k // 256:02x}"
        assert (inner.src, inner.dst, inner.proto) == (
            f"10.0.{1 + k // 256}.{k % 256}",
            f"10.128.{1 + k // 256}.{k % 256}",
            61,
        )
        for header in (outer, inner):  # both IPv4 checksums right, each covering its header
            raw = bytes(header)[:20]
            assert scapy_checksum(raw) == 0, (k, header.summary())
        assert outer.len == 110 - 14 and inner.len == 110 - 14 - TUNNEL_HEADERS
        assert parse_signature(frames[k]) == (1, k)


def test_the_plain_direction_keeps_the_test_frame_size_and_csits_ranges() -> None:
    frames = _frames(64, direction=0)
    assert {len(f) for f in frames} == {60}
    last = Ether(frames[1023])[IP]
    assert (last.src, last.dst) == ("10.128.4.255", "10.0.4.255")


def test_tunnelled_frames_grow_only_below_their_minimum() -> None:
    profile = profile_of(GENEVE4)
    layout = FrameLayout.of(profile.directions[1])
    # CSIT pads the encapsulated packet to 110 B, then to the frame size less the FCS
    assert profile.min_frame_size_b == 64 and layout.min_frame_size == 114
    assert layout.frame_size_b(64) == 114 and layout.frame_size_b(1518) == 1518
    assert layout.frame_size_b(120) == 120
    assert {len(f) for f in _frames(1518)} == {1514}
    assert sorted({len(f) for f in _frames(IMIX)}) == [110, 566, 1514]  # IMIX's 64 B grow too
    assert FrameLayout.of(profile.directions[0]).frame_size_b(64) == 64


def test_256_tunnels_walk_every_vni_and_csits_65536_source_ports_wrapping() -> None:
    """CSIT's outer source port is 1024 + k modulo 2^16: 65536 values for 256 tunnels."""
    headers = profile_of("ethip4--ethip4udpgeneve-256tun-ip4base").directions[1]
    counts = {v.field: (v.count, v.every) for v in headers.vary}
    assert counts["tunnel.vni"] == (256, 256) and counts["inner.eth.dst"] == (256, 256)
    assert counts["tunnel.sport"] == (65536, 1) and headers.flows == 65536
    frames = build_frames(profile_of("ethip4--ethip4udpgeneve-256tun-ip4base"), 64, 1,
                          SRC_MAC, DST_MAC)  # fmt: skip
    frame = Ether(frames[-1])
    assert frame[GENEVE].vni == 256 and frame[GENEVE][Ether].dst == "d0:0b:ee:d0:00:ff"
    sports = [Ether(frames[k])[UDP].sport for k in (0, 64511, 64512, 65535)]
    assert sports == [1024, 65535, 0, 1023]
    assert len({Ether(f)[UDP].sport for f in frames[::97]}) == len(frames[::97])


def test_1024_tunnels_repeat_csits_65536_source_ports_over_their_262144_flows() -> None:
    """CSIT writes its one variable k (0 .. 262143) into the 2-byte port: 1024 + k mod 2^16."""
    profile = profile_of("ethip4--ethip4udpgeneve-1024tun-ip4base")
    headers = profile.directions[1]
    counts = {v.field: (v.count, v.every) for v in headers.vary}
    assert counts["tunnel.vni"] == (1024, 256) and counts["tunnel.sport"] == (65536, 1)
    assert headers.flows == profile.directions[0].flows == 1024 * 256
    wanted = (0, 64511, 64512, 65535, 65536)
    stream = stream_frames(profile, 64, 1, SRC_MAC, DST_MAC, 65537)
    frames = {k: Ether(f) for k, f in enumerate(stream) if k in wanted}
    assert [frames[k][UDP].sport for k in wanted] == [
        1024, 65535, 0, 1023, 1024,
    ]  # fmt: skip
    # frame 65536 is tunnel 256's first, VNI 257, inner 10.1.1.0 -> 10.129.1.0
    assert frames[65536][GENEVE].vni == 257 and frames[65536][GENEVE][IP].dst == "10.129.1.0"


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda: Headers(4, "10.0.0.1", "10.0.0.2", 61, vary=(Vary("tunnel.vni", 4),)),
         "tunnel.vni varies, but the frames carry no tunnel"),
        (lambda: Tunnel("1.1.1.1", "2001::1", 1, "d0:0b:ee:d0:00:00"),
         "tunnel: dst '2001::1' is not an IPv4 address"),
        (lambda: Tunnel("1.1.1.1", "1.1.1.2", 1 << 24, "d0:0b:ee:d0:00:00"),
         "VNI 16777216 is not in 0..16777215"),
        (lambda: Tunnel("1.1.1.1", "1.1.1.2", 1, "d0:0b:ee:d0:00:00", sport=70000),
         "tunnel: sport 70000 is not in 0..65535"),
    ],
)  # fmt: skip
def test_bad_tunnels_are_refused_naming_the_field(make: object, match: str) -> None:
    with pytest.raises(ProfileError, match=match):
        make()  # type: ignore[operator]


def test_a_vni_beyond_24_bits_and_a_bad_inner_mac_are_refused_naming_the_profile() -> None:
    tunnel = Tunnel("1.1.1.1", "1.1.1.2", (1 << 24) - 2, "d0:0b:ee:d0:00:00")
    headers = Headers(4, "10.0.0.1", "10.0.0.2", 61, tunnel=tunnel, vary=(Vary("tunnel.vni", 4),))
    plain = Headers(4, "10.0.0.2", "10.0.0.1", 61)
    with pytest.raises(ProfileError, match=r"profile t direction 0: tunnel\.vni: 4 values"):
        Profile("t", "t", "L3", (headers, plain), profile_of(GENEVE4).cost)
    bad = Headers(4, "10.0.0.1", "10.0.0.2", 61, tunnel=Tunnel("1.1.1.1", "1.1.1.2", 1, "d0:0b"))
    profile = Profile("t", "t", "L3", (bad, plain), profile_of(GENEVE4).cost)
    with pytest.raises(ProfileError, match="tunnel: inner destination MAC 'd0:0b'"):
        build_frames(profile, 64, 0, SRC_MAC, DST_MAC)


def test_the_record_names_the_tunnel() -> None:
    text = profile_of(GENEVE4).describe_directions()[1]
    assert text.startswith(
        "Ether / IPv4 / UDP(1024->6081) / GENEVE(vni 1) / Ether / IPv4(proto 61)"
    )
    assert "tunnel 1.1.1.1 -> 1.1.1.2" in text and "tunnel.vni: 4 values, inc, every 256" in text
