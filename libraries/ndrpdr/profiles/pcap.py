"""Reading and writing classic libpcap files (linktype Ethernet), in pure Python.

Frames are stored as given (no FCS); the timestamp of frame *i* is *i*
microseconds, so tools that replay by timestamp keep the order.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Sequence
from pathlib import Path

from ndrpdr.errors import NdrPdrError

LINKTYPE_ETHERNET = 1
#: The largest frame stored [B].
SNAPLEN = 65535

_MAGIC_USEC = 0xA1B2C3D4
_MAGIC_NSEC = 0xA1B23C4D
_GLOBAL = struct.Struct("<IHHiIII")  # magic, major, minor, thiszone, sigfigs, snaplen, linktype
_RECORD = struct.Struct("<IIII")  # ts_sec, ts_usec, incl_len, orig_len


class PcapError(NdrPdrError):
    """A pcap file could not be written or read (the message names the file)."""


def write_pcap(path: str | os.PathLike[str], frames: Sequence[bytes]) -> None:
    """Write ``frames`` (each at most 65535 B, no FCS) to a pcap file at ``path``."""
    chunks = [_GLOBAL.pack(_MAGIC_USEC, 2, 4, 0, 0, SNAPLEN, LINKTYPE_ETHERNET)]
    for index, frame in enumerate(frames):
        if not isinstance(frame, (bytes, bytearray, memoryview)):
            raise PcapError(f"{path}: frame {index} is {type(frame).__name__}, not bytes")
        size = len(frame)
        if size > SNAPLEN:
            raise PcapError(f"{path}: frame {index} is {size} B, more than {SNAPLEN} B")
        seconds, micros = divmod(index, 1_000_000)
        chunks.append(_RECORD.pack(seconds, micros, size, size))
        chunks.append(bytes(frame))
    try:
        Path(path).write_bytes(b"".join(chunks))
    except OSError as exc:
        raise PcapError(f"{path}: cannot write the pcap file: {exc}") from exc


def read_pcap(path: str | os.PathLike[str]) -> list[bytes]:
    """The frames of a classic pcap file of Ethernet frames (either byte order, us or ns)."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise PcapError(f"{path}: cannot read the pcap file: {exc}") from exc
    if len(data) < _GLOBAL.size:
        raise PcapError(f"{path}: too short for a pcap file ({len(data)} B)")
    for order in ("<", ">"):
        (magic,) = struct.unpack_from(order + "I", data)
        if magic in (_MAGIC_USEC, _MAGIC_NSEC):
            break
    else:
        raise PcapError(f"{path}: not a pcap file (magic {data[:4].hex()})")
    header = struct.Struct(order + "IHHiIII")
    record = struct.Struct(order + "IIII")
    linktype = header.unpack_from(data)[6]
    if linktype != LINKTYPE_ETHERNET:
        raise PcapError(f"{path}: link type {linktype}, not Ethernet ({LINKTYPE_ETHERNET})")
    frames: list[bytes] = []
    offset = header.size
    while offset < len(data):
        if offset + record.size > len(data):
            raise PcapError(f"{path}: truncated record header at byte {offset}")
        _, _, incl, _ = record.unpack_from(data, offset)
        offset += record.size
        if offset + incl > len(data):
            raise PcapError(f"{path}: truncated frame {len(frames)} at byte {offset}")
        frames.append(data[offset : offset + incl])
        offset += incl
    return frames
