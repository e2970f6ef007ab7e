"""What the result views say about one trial: its number, loss class, length, time, reason.

The trace plot, the trial table and the TG-limit marks all read trials of
a result record (``ndrpdr.results.record``) through these functions, so
they agree with each other and with the console. Pure functions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ndrpdr.goals import PDR_LOSS_RATIO, goal_label
from ndrpdr.units import format_percent

__all__ = [
    "HIGH_LOSS",
    "LOSS_COLOURS",
    "LOSS_TINTS",
    "LOW_LOSS",
    "ZERO_LOSS",
    "format_percent",
    "goal_names",
    "is_full_length",
    "loss_class",
    "phase_text",
    "trial_number",
    "trial_number_text",
    "trial_time",
]

#: Loss classes of a trial: no loss, loss ratio <= PDR_LOSS_RATIO, more.
ZERO_LOSS, LOW_LOSS, HIGH_LOSS = "zero", "low", "high"
#: Marker colour of each loss class.
LOSS_COLOURS: Mapping[str, str] = {ZERO_LOSS: "#2ca02c", LOW_LOSS: "#e6a100", HIGH_LOSS: "#d62728"}
#: Light background tint of each loss class (table rows).
LOSS_TINTS: Mapping[str, str] = {ZERO_LOSS: "#e8f5e9", LOW_LOSS: "#fff5d6", HIGH_LOSS: "#fde4e4"}


def trial_number(trial: Mapping[str, Any]) -> int | None:
    """The number people see for a trial: 1 for the search's first, as the console prints it.

    The record's ``index`` counts from 0 (its position in ``trials``); the
    console's progress line (``ndrpdr.console.lines``), the trial table and
    the plot all show ``index + 1``.

    Args:
        trial: One entry of the record's ``trials``.

    Returns:
        ``index + 1``, or None when the entry has no integer index.
    """
    index = trial.get("index")
    if isinstance(index, bool) or not isinstance(index, int):
        return None
    return index + 1


def trial_number_text(trial: Mapping[str, Any]) -> str:
    """``trial_number`` as text, "?" without one."""
    number = trial_number(trial)
    return "?" if number is None else str(number)


def loss_class(loss_ratio: float) -> str:
    """The loss class of a trial: ZERO_LOSS, LOW_LOSS (<= PDR_LOSS_RATIO) or HIGH_LOSS.

    Args:
        loss_ratio: The trial's loss ratio, 0 to 1.

    Returns:
        One of ZERO_LOSS, LOW_LOSS, HIGH_LOSS (keys of LOSS_COLOURS and LOSS_TINTS).
    """
    if loss_ratio <= 0:
        return ZERO_LOSS
    return LOW_LOSS if loss_ratio <= PDR_LOSS_RATIO else HIGH_LOSS


def goal_names(
    goals: Sequence[Mapping[str, Any]], pdr_loss_ratio: float = PDR_LOSS_RATIO
) -> list[str]:
    """The names of a record's goals, made unique with the goal index when needed.

    Args:
        goals: The record's ``goals`` entries.
        pdr_loss_ratio: The loss ratio the record calls PDR (``record_pdr_loss_ratio``).

    Returns:
        One name per goal, e.g. ["NDR", "PDR"] or ["NDR (goal 0)", "NDR (goal 1)"].
    """
    names = [goal_label(float(goal.get("loss_ratio", 0.0)), pdr_loss_ratio) for goal in goals]
    return [f"{name} (goal {i})" if names.count(name) > 1 else name for i, name in enumerate(names)]


def phase_text(trial: Mapping[str, Any], names: Sequence[str]) -> str:
    """Why a trial was measured: "phase/strategy", plus the goal's name when known.

    Args:
        trial: One entry of the record's ``trials``.
        names: The goal names (``goal_names`` of the record's goals).

    Returns:
        e.g. "final/expect-fail (NDR)", "probe/probe", or "" without a reason.
    """
    reason = trial.get("reason")
    if not isinstance(reason, Mapping):
        return ""
    text = f"{reason.get('phase', '?')}/{reason.get('strategy', '?')}"
    goal = reason.get("goal")
    if isinstance(goal, int) and 0 <= goal < len(names):
        text += f" ({names[goal]})"
    return text


def trial_time(trial: Mapping[str, Any]) -> float:
    """The seconds a trial adds to the search time (effective duration, else duration).

    Args:
        trial: One entry of the record's ``trials``.

    Returns:
        The trial's effective duration [s] when positive, else its duration [s].
    """
    effective = trial.get("effective_duration_s")
    if isinstance(effective, (int, float)) and effective > 0:
        return float(effective)
    return float(trial.get("duration_s") or 0.0)


def is_full_length(trial: Mapping[str, Any], goals: Sequence[Mapping[str, Any]]) -> bool:
    """Whether a trial lasted its goal's final trial duration.

    The goal is the one that nominated the trial; for trials serving all
    goals (or without a reason) the shortest final duration of all goals.

    Args:
        trial: One entry of the record's ``trials``.
        goals: The record's ``goals``.

    Returns:
        True for a full-length trial, False for a shorter one (and when
        there are no goals to compare with, True).
    """
    finals = [float(goal["final_trial_duration_s"]) for goal in goals]
    if not finals:
        return True
    reason = trial.get("reason")
    index = reason.get("goal") if isinstance(reason, Mapping) else None
    final = finals[index] if isinstance(index, int) and 0 <= index < len(finals) else min(finals)
    return float(trial.get("duration_s") or 0.0) >= final * (1 - 1e-9)
