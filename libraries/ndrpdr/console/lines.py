"""Console lines: one per trial while a search runs, and the final bounds."""

from __future__ import annotations

from typing import Any, TextIO

from ndrpdr.goals import PDR_LOSS_RATIO, goal_label
from ndrpdr.results.goalentries import named_goals
from ndrpdr.search.progress import GoalProgress, SearchProgress
from ndrpdr.search.trial import TrialResult
from ndrpdr.units import format_bitrate, format_percent, format_rate


def trial_line(number: int, trial: TrialResult) -> str:
    """``#  7  1.234 Mpps x 1.0 s  loss 0.012 %  (mlr/final/bisect for goal 1)``.

    ``number`` is 1 for a search's first trial: the number log.html's trial
    table and plot show too (``ndrpdr.report.trialfacts.trial_number``).
    """
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
        f"#{number:>3}  {format_rate(trial.load):>13} x {trial.duration:g} s"
        f"  loss {100 * trial.loss_ratio:.4f} %{reason}{warn}"
    )


def goal_bounds_text(goal: GoalProgress, pdr_loss_ratio: float = PDR_LOSS_RATIO) -> str:
    """``NDR 1.2..1.25 Mpps (4.17 %)``: a goal's bounds so far and their width.

    A bound not found yet shows as ``?``; the width is ``upper / lower - 1``.
    """
    label = goal_label(goal.goal.loss_ratio, pdr_loss_ratio)
    lower = "?" if goal.lower is None else format_rate(goal.lower)
    upper = "?" if goal.upper is None else format_rate(goal.upper)
    lower_number, _, lower_unit = lower.partition(" ")
    if lower_unit and upper.endswith(f" {lower_unit}"):  # one unit for both: 1.2..1.25 Mpps
        lower = lower_number
    width = goal.width
    text = f"{label} {lower}..{upper}"
    return text if width is None else f"{text} ({format_percent(width)} %)"


def progress_line(progress: SearchProgress, pdr_loss_ratio: float = PDR_LOSS_RATIO) -> str:
    """The trial's line (``trial_line``) followed by every goal's bounds so far.

    ``#  7  1.234 Mpps x 1 s  loss 0.0000 %  (...)  | NDR 1.2..1.25 Mpps (4.17 %)``
    ``  PDR 1.25 Mpps..?``
    """
    bounds = "  ".join(goal_bounds_text(g, pdr_loss_ratio) for g in progress.goals)
    return f"{trial_line(progress.trial_number, progress.trial)}  | {bounds}"


def bounds_lines(record: dict[str, Any]) -> list[str]:
    """A line per goal (NDR, PDR, other loss ratios) from a result record (aggregate).

    A conditional throughput the search did not compute (no lower bound, or a
    binary search's lower bound without the duration sum's full-length
    seconds) reads ``not computed``, never 0.
    """
    lines = []
    for goal in named_goals(record):
        bounds = goal.entry
        lower, upper = bounds["lower_bound"], bounds["upper_bound"]
        text = f"{goal.label}: lower {_rate(lower)}"
        if bounds.get("lower_bound_bps") is not None:
            text += f" ({format_bitrate(bounds['lower_bound_bps'])})"
        conditional = bounds["conditional_throughput"]
        text += f", upper {_rate(upper)}, conditional throughput "
        text += "not computed" if conditional is None else format_rate(conditional)
        lines.append(text)
    return lines


def _rate(value: float | None) -> str:
    return "none" if value is None else format_rate(value)


def print_to(stream: TextIO, text: str) -> None:
    """Print and flush (the console shows progress at once, also through pipes)."""
    stream.write(text + "\n")
    stream.flush()
