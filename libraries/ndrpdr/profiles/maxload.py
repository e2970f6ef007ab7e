"""Line rate: frames per second a link carries, and the bandwidth of a frame rate.

Every frame costs 20 B on the wire beyond its frame size: 8 B of preamble
and start-of-frame delimiter and 12 B of minimum inter-frame gap. The
bandwidth figures here include that overhead, as CSIT's "Gbps" do, so
64 B frames at 14.88 Mpps fill a 10 Gb/s link exactly.
"""

from __future__ import annotations

import math

from ndrpdr.profiles.errors import ProfileError
from ndrpdr.profiles.framesize import FrameSize, average_frame_size

#: Preamble and start-of-frame delimiter [B].
PREAMBLE_SIZE = 8
#: Minimum inter-frame gap [B].
INTER_FRAME_GAP = 12
#: Layer-1 overhead per frame [B].
L1_OVERHEAD = PREAMBLE_SIZE + INTER_FRAME_GAP


def _wire_bits(frame_size: FrameSize) -> float:
    """Bits one (average) frame occupies on the wire, L1 overhead included [bit]."""
    return (average_frame_size(frame_size) + L1_OVERHEAD) * 8


def _check(name: str, value: float, unit: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ProfileError(f"{name} {value!r} is not a number [{unit}]")
    if not math.isfinite(value) or value < 0:
        raise ProfileError(f"{name} {value!r} must be finite and >= 0 [{unit}]")
    return float(value)


def max_load_pps(link_speed_bps: float, frame_size: FrameSize) -> float:
    """Line rate of one direction of a link [frames/s] for ``link_speed_bps`` [bit/s].

    ``speed / ((average frame size + 20 B) * 8)``: 14 880 952.38 pps for 64 B
    frames on 10 GbE. A speed of 0 gives 0.
    """
    return _check("link speed", link_speed_bps, "bit/s") / _wire_bits(frame_size)


def bandwidth_bps(pps: float, frame_size: FrameSize) -> float:
    """The bandwidth [bit/s, L1 overhead included] of ``pps`` [frames/s] of ``frame_size``."""
    return _check("frame rate", pps, "frames/s") * _wire_bits(frame_size)
