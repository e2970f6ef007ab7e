"""What a soak record leaves in a test's message and metadata (CSIT's soak display, our numbers).

CSIT shows a soak result as ``PLRsearch lower bound`` / ``upper bound``:
the critical load's average minus / plus one stdev. The message here says
the estimate, its stdev, those bounds (aggregate [pps] and bandwidth) and
the posterior's 95 % interval; the metadata carry the same numbers as
plain frames per second, for tools that read output.xml. Both are made
from the soak record (``ndrpdr.results.soakrecord``), so a record logged
again (`Log Result Record`) says what its test said.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ndrpdr.profiles import FrameSize, bandwidth_bps
from ndrpdr.report.summary import plain_number
from ndrpdr.results.soakbursts import bursts_text
from ndrpdr.results.soakrecord import estimate_of


def _rate(pps: float, frame_size: FrameSize) -> str:
    return f"{pps / 1e6:.4f} Mpps ({bandwidth_bps(pps, frame_size) / 1e9:.4f} Gbps)"


def soak_message(record: Mapping[str, Any]) -> str:
    """Two to five lines: the estimate and spread, the bounds, why it is limited, and a
    warning when loss came in bursts (``ndrpdr.results.soakbursts``)."""
    soak = record["soak"]
    frame_size: FrameSize = record["profile"]["frame_size"]
    run = (
        f"{soak['trial_count']} trials, {soak['search_time_s']:g} s of {soak['time_budget_s']:g} s"
    )
    estimate = soak["critical_load_pps"]
    if estimate is None:
        return f"SOAK: no trial measured for loss ratio {soak['loss_ratio']:g} ({run})"
    lines = [
        f"SOAK critical load: {_rate(estimate_of(estimate), frame_size)}, "
        f"stdev {estimate['stdev']:.4g} pps, for loss ratio {soak['loss_ratio']:g}",
        f"SOAK lower bound: {_rate(estimate['lower'], frame_size)}, "
        f"upper bound: {_rate(estimate['upper'], frame_size)} "
        f"(avg {estimate['mean'] / 1e6:.4f} Mpps -/+ stdev); "
        f"95 % interval {estimate['low'] / 1e6:.4f}..{estimate['high'] / 1e6:.4f} Mpps; {run}",
    ]
    if (limited := soak["limited_by"]) is not None:
        lines.append(
            f"the critical load may lie beyond {limited} ({soak[f'{limited}_pps']:.6g} pps)"
        )
    if soak["stopped"]:
        lines.append(f"stopped early: {soak['stopped']}")
    if soak.get("bursts"):  # since record format 1.9.0
        lines.append(f"WARNING: {bursts_text(soak['bursts'])}")
    return "\n".join(lines)


def soak_metadata(record: Mapping[str, Any]) -> dict[str, str]:
    """``SOAK_MEDIAN`` (the estimate), ``SOAK_AVG``, ``SOAK_STDEV``, ``SOAK_LOWER``,
    ``SOAK_UPPER`` [frames/s], and the run (the estimate's five are left out without a
    trial); ``SOAK_BURSTS``, the contradicted trials, when loss came in bursts."""
    soak = record["soak"]
    estimate = soak["critical_load_pps"]
    numbers = (
        {}
        if estimate is None
        else {
            "SOAK_MEDIAN": plain_number(estimate_of(estimate)),
            "SOAK_AVG": plain_number(estimate["mean"]),
            "SOAK_STDEV": plain_number(estimate["stdev"]),
            "SOAK_LOWER": plain_number(estimate["lower"]),
            "SOAK_UPPER": plain_number(estimate["upper"]),
        }
    )
    bursts = {"SOAK_BURSTS": str(soak["bursts"]["contradicted"])} if soak.get("bursts") else {}
    return {
        **numbers,
        **bursts,
        "SOAK_LOSS_RATIO": f"{soak['loss_ratio']:g}",
        "SOAK_TRIALS": str(soak["trial_count"]),
        "SOAK_TIME": f"{soak['search_time_s']:g}",
    }
