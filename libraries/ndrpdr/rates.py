"""A frame rate as users give it, for a frame size: frames/s, a bit rate on the wire, or a share.

The text is read by ``ndrpdr.units``, which knows nothing of frames; a bit
rate becomes frames/s here, with the frame size's bits on the wire
(``ndrpdr.profiles.maxload``): bit rates count 20 B of L1 overhead per
frame (preamble and inter-frame gap), as line rates do, so 10 Gbps of 64 B
frames is 14.88 Mpps. ``above_max`` is the one comparison of a load with a
maximum, with one slack (``LOAD_SLACK``), for every caller.
"""

from __future__ import annotations

from ndrpdr.profiles.framesize import FrameSize
from ndrpdr.profiles.maxload import max_load_pps
from ndrpdr.units import parse_frame_rate


def parse_rate(
    text: str | float,
    *,
    max_rate_pps: float | None = None,
    frame_size: FrameSize | None = None,
) -> float:
    """A frame rate [frames/s] from a number (pps) or a text such as "10Mpps".

    Bit rates ("10Gbps") are converted with ``frame_size``: pps = bit/s /
    ((average frame size + 20 B) * 8). Percentages ("50%", at most 100 %)
    are of ``max_rate_pps`` [frames/s]. Raises UnitError (naming ``text``)
    when the text is not understood, the needed argument is missing, or the
    rate is not finite and > 0; ProfileError when a bit rate meets a frame
    size that is not one.
    """
    if frame_size is None:
        return parse_frame_rate(text, max_rate_pps=max_rate_pps)
    return parse_frame_rate(
        text, max_rate_pps=max_rate_pps, pps_of_bps=lambda bps: max_load_pps(bps, frame_size)
    )


#: How far above a maximum a load may be [relative]: float rounding, not a request.
LOAD_SLACK = 1e-9


def above_max(load_pps: float, max_pps: float) -> bool:
    """True when ``load_pps`` is above ``max_pps`` by more than float rounding (LOAD_SLACK).

    The one comparison of a load with a TG's maximum: a user's rate (the
    keywords, the CLI) and a trial's load (every TG driver) alike.
    """
    return load_pps > max_pps * (1 + LOAD_SLACK)
