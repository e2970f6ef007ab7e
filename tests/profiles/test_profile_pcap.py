"""pcap files: what write_pcap writes, scapy and read_pcap read back."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scapy.utils import rdpcap

from ndrpdr.families import profile_of as get_profile
from ndrpdr.profiles import PcapError, build_frames, read_pcap, write_pcap


def test_write_pcap_readable_by_scapy(tmp_path: Path) -> None:
    frames = build_frames(
        get_profile("ethip4-ip4base"), "IMIX", 0, "02:00:00:00:00:01", "02:00:00:00:00:02"
    )
    path = tmp_path / "imix.pcap"
    write_pcap(path, frames)
    packets = rdpcap(str(path))
    assert [bytes(p) for p in packets] == frames
    assert read_pcap(path) == frames
    magic, major, minor, _, _, snaplen, linktype = struct.unpack_from("<IHHiIII", path.read_bytes())
    assert (magic, major, minor, snaplen, linktype) == (0xA1B2C3D4, 2, 4, 65535, 1)


@settings(deadline=None, max_examples=30)
@given(st.lists(st.binary(min_size=1, max_size=200), max_size=20))
def test_round_trip(tmp_path_factory: pytest.TempPathFactory, frames: list[bytes]) -> None:
    path = tmp_path_factory.mktemp("pcap") / "f.pcap"
    write_pcap(str(path), frames)
    assert read_pcap(str(path)) == frames


def test_read_big_endian(tmp_path: Path) -> None:
    path = tmp_path / "be.pcap"
    data = struct.pack(">IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1)
    data += struct.pack(">IIII", 0, 0, 3, 3) + b"abc"
    path.write_bytes(data)
    assert read_pcap(path) == [b"abc"]


def test_write_errors(tmp_path: Path) -> None:
    with pytest.raises(PcapError, match="frame 1 is 65536 B"):
        write_pcap(tmp_path / "x.pcap", [b"a", bytes(65536)])
    with pytest.raises(PcapError, match="frame 0 is str"):
        write_pcap(tmp_path / "x.pcap", ["abc"])  # type: ignore[list-item]
    with pytest.raises(PcapError, match="cannot write"):
        write_pcap(tmp_path / "missing" / "x.pcap", [b"a"])


@pytest.mark.parametrize(
    ("data", "match"),
    [
        (b"abc", "too short"),
        (b"\0" * 24, "not a pcap file"),
        (struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 101), "link type 101"),
        (struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1) + b"\0" * 8, "truncated record"),
        (
            struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1)
            + struct.pack("<IIII", 0, 0, 10, 10)
            + b"abc",
            "truncated frame 0",
        ),
    ],
)
def test_read_errors(tmp_path: Path, data: bytes, match: str) -> None:
    path = tmp_path / "bad.pcap"
    path.write_bytes(data)
    with pytest.raises(PcapError, match=match):
        read_pcap(path)


def test_read_missing(tmp_path: Path) -> None:
    with pytest.raises(PcapError, match="cannot read"):
        read_pcap(tmp_path / "nope.pcap")
