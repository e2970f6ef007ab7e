"""Frame sizes: a fixed size in bytes, or the simple IMIX.

A frame size counts the bytes on the wire from the destination MAC address
through the 4 B frame check sequence (FCS), as in RFC 2544 and FD.io CSIT:
a "64 B" frame is 60 B written by the generator plus 4 B of FCS the NIC
appends. Preamble, start-of-frame delimiter and inter-frame gap are not
part of the frame size (see ``ndrpdr.profiles.maxload``).

IMIX is the classic simple IMIX: 64 B, 570 B and 1518 B frames in the ratio
7:4:1 (CSIT's 28:16:4 is the same ratio).
"""

from __future__ import annotations

import re
from typing import Literal, TypeAlias

from ndrpdr.profiles.errors import ProfileError

#: A frame size: bytes including the FCS, or the simple IMIX.
FrameSize: TypeAlias = int | Literal["IMIX"]

IMIX: Literal["IMIX"] = "IMIX"

#: Smallest and largest fixed frame size [B, including FCS].
MIN_FRAME_SIZE = 64
MAX_FRAME_SIZE = 9018

#: Bytes of frame check sequence at the end of every frame [B].
FCS_SIZE = 4

#: The simple IMIX as (frame size [B], frames per cycle).
IMIX_MIX: tuple[tuple[int, int], ...] = ((64, 7), (570, 4), (1518, 1))

#: One IMIX cycle of 12 frames in sending order, the sizes spread evenly.
IMIX_SEQUENCE: tuple[int, ...] = (64, 570, 64, 64, 570, 64, 1518, 64, 570, 64, 64, 570)

_SIZE_TEXT = re.compile(r"\s*(\d+)\s*(?:b|bytes?)?\s*", re.IGNORECASE)
_ACCEPTED = f"an integer {MIN_FRAME_SIZE}..{MAX_FRAME_SIZE} [B, incl. FCS] or 'IMIX'"


def parse_frame_size(value: str | int) -> FrameSize:
    """A frame size from ``64``, ``"64"``, ``"64B"``, ``"IMIX"`` or ``"imix"``.

    Raises ProfileError (naming ``value``) for anything else, including
    sizes outside 64..9018 B.
    """
    if isinstance(value, bool):
        raise ProfileError(f"frame size {value!r} is not valid: give {_ACCEPTED}")
    if isinstance(value, int):
        size = value
    elif isinstance(value, str):
        if value.strip().upper() == IMIX:
            return IMIX
        match = _SIZE_TEXT.fullmatch(value)
        if match is None:
            raise ProfileError(f"frame size {value!r} is not valid: give {_ACCEPTED}")
        size = int(match.group(1))
    else:
        raise ProfileError(f"frame size {value!r} is not valid: give {_ACCEPTED}")
    if not MIN_FRAME_SIZE <= size <= MAX_FRAME_SIZE:
        raise ProfileError(f"frame size {value!r} is out of range: give {_ACCEPTED}")
    return size


def frame_size_label(frame_size: FrameSize) -> str:
    """As in CSIT test names and tags: ``64B``, ``9000B`` or ``IMIX``."""
    return frame_size if isinstance(frame_size, str) else f"{frame_size}B"


def frame_sizes(frame_size: FrameSize) -> tuple[int, ...]:
    """The sizes one cycle of ``frame_size`` sends [B]: ``(size,)`` or ``IMIX_SEQUENCE``."""
    size = parse_frame_size(frame_size)
    return IMIX_SEQUENCE if size == IMIX else (int(size),)


def average_frame_size(frame_size: FrameSize) -> float:
    """The mean frame size [B, including FCS]; IMIX gives 4246 / 12 = 353.83 B."""
    sizes = frame_sizes(frame_size)
    return sum(sizes) / len(sizes)
