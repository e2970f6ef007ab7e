"""What a soak search leaves in a test's message and metadata (CSIT's soak display, our numbers).

CSIT shows a soak result as ``PLRsearch lower bound`` / ``upper bound``:
the critical load's average minus / plus one stdev. The message here says
the estimate, its stdev, those bounds (aggregate [pps] and bandwidth) and
the posterior's 95 % interval; the metadata carry the same numbers as
plain frames per second, for tools that read output.xml.
"""

from __future__ import annotations

from ndrpdr.profiles import FrameSize, bandwidth_bps
from ndrpdr.results.report.summary import plain_number
from ndrpdr.search.soak import SoakResult


def _rate(pps: float, frame_size: FrameSize) -> str:
    return f"{pps / 1e6:.4f} Mpps ({bandwidth_bps(pps, frame_size) / 1e9:.4f} Gbps)"


def soak_message(result: SoakResult, frame_size: FrameSize) -> str:
    """Two or three lines: the estimate and spread, the bounds, and why it is limited."""
    lines = [
        f"SOAK critical load: {_rate(result.critical_load, frame_size)}, "
        f"stdev {result.stdev:.4g} pps, for loss ratio {result.loss_ratio:g}",
        f"SOAK lower bound: {_rate(result.lower, frame_size)}, "
        f"upper bound: {_rate(result.upper, frame_size)} (avg -/+ stdev); "
        f"95 % interval {result.low / 1e6:.4f}..{result.high / 1e6:.4f} Mpps; "
        f"{len(result.trials)} trials, {result.search_time:g} s of {result.time_budget:g} s",
    ]
    if result.limited_by is not None:
        lines.append(
            f"the critical load may lie beyond {result.limited_by} "
            f"({result.min_load if result.limited_by == 'min_load' else result.max_load:.6g} pps)"
        )
    if result.stopped:
        lines.append(f"stopped early: {result.stopped}")
    return "\n".join(lines)


def soak_metadata(result: SoakResult) -> dict[str, str]:
    """``SOAK_AVG``, ``SOAK_STDEV``, ``SOAK_LOWER``, ``SOAK_UPPER`` [frames/s], and the run."""
    return {
        "SOAK_AVG": plain_number(result.critical_load),
        "SOAK_STDEV": plain_number(result.stdev),
        "SOAK_LOWER": plain_number(result.lower),
        "SOAK_UPPER": plain_number(result.upper),
        "SOAK_LOSS_RATIO": f"{result.loss_ratio:g}",
        "SOAK_TRIALS": str(len(result.trials)),
        "SOAK_TIME": f"{result.search_time:g}",
    }
