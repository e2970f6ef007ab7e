"""Console lines: one per trial while a search runs, and the final bounds."""

from __future__ import annotations

from typing import Any, TextIO

from ndrpdr.search.trial import TrialResult
from ndrpdr.units import format_bitrate, format_rate


def trial_line(index: int, trial: TrialResult) -> str:
    """``#  7  1.234 Mpps x 1.0 s  loss 0.012 %  (mlr/final/bisect for goal 1)``."""
    reason = ""
    if trial.reason is not None:
        r = trial.reason
        who = "all" if r.goal is None else f"goal {r.goal}"
        reason = f"  ({r.phase}/{r.strategy}, {who})"
    warn = ""
    if trial.warnings:  # the first says the most; the record and the log keep them all
        more = len(trial.warnings) - 1
        warn = f"  WARNING: {trial.warnings[0]}" + (f" (+{more} more)" if more else "")
    return (
        f"#{index:>3}  {format_rate(trial.load):>13} x {trial.duration:g} s"
        f"  loss {100 * trial.loss_ratio:.4f} %{reason}{warn}"
    )


def bounds_lines(record: dict[str, Any]) -> list[str]:
    """NDR and PDR lines from a result record (aggregate over directions)."""
    lines = []
    for name in ("ndr", "pdr"):
        bounds = record.get(name)
        if not bounds:
            continue
        lower, upper = bounds["lower_bound"], bounds["upper_bound"]
        text = f"{name.upper()}: lower {_rate(lower)}"
        if bounds.get("lower_bound_bps") is not None:
            text += f" ({format_bitrate(bounds['lower_bound_bps'])})"
        text += f", upper {_rate(upper)}, conditional throughput "
        text += _rate(bounds["conditional_throughput"])
        lines.append(text)
    return lines


def _rate(value: float | None) -> str:
    return "none" if value is None else format_rate(value)


def print_to(stream: TextIO, text: str) -> None:
    """Print and flush (the console shows progress at once, also through pipes)."""
    stream.write(text + "\n")
    stream.flush()
