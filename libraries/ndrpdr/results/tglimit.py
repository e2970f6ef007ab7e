"""Whether the traffic generator, not the DUT, limited a search's bounds.

A trial is *TG-limited* when the TG offered (sent) less than
``TG_LIMIT_TOLERANCE`` of the frames the trial intended: its loss ratio
then counts frames never sent (RFC 9971 "unsent"), so a bound classified
from such trials says as much about the TG as about the DUT. A goal is
TG-limited when any trial at its relevant lower or upper bound is; the
search is when any goal is. Works on record entries (``ndrpdr.results.record``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

#: The one tolerance: a trial that offered less than this share of its intended frames
#: was limited by the TG (98 %, the local TG's own "achieved < 98 % of intended" warning).
TG_LIMIT_TOLERANCE = 0.98


def trial_tg_limited(trial: Mapping[str, Any]) -> bool:
    """True when the trial entry offered less than TG_LIMIT_TOLERANCE of its intended frames."""
    intended = float(trial.get("intended_count") or 0.0)
    offered = float(trial.get("offered_count") or 0.0)
    return intended > 0 and offered < TG_LIMIT_TOLERANCE * intended


def offered_rate_pps(trial: Mapping[str, Any]) -> float:
    """Frames the TG got out per second of the trial's (intended) duration [pps]."""
    return float(trial.get("offered_count") or 0.0) / float(trial["duration_s"])


def goal_tg_limited(goal: Mapping[str, Any], trials: Sequence[Mapping[str, Any]]) -> bool:
    """True when a trial at the goal entry's lower or upper bound was TG-limited."""
    loads = {goal.get("lower_bound"), goal.get("upper_bound")} - {None}
    return any(trial_tg_limited(t) for t in trials if t.get("load_pps") in loads)


def tg_limit_summary(
    goals: Sequence[Mapping[str, Any]], trials: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    """The record's ``tg_limit`` object.

    ``limited``: some goal's bound rests on TG-limited trials;
    ``tolerance``: TG_LIMIT_TOLERANCE; ``limited_trials``: how many trials
    were TG-limited; ``max_offered_pps``: the highest rate the TG sent in any
    trial (None without trials), the "sent at most" of the test message.
    """
    rates = [offered_rate_pps(t) for t in trials]
    return {
        "limited": any(goal_tg_limited(goal, trials) for goal in goals),
        "tolerance": TG_LIMIT_TOLERANCE,
        "limited_trials": sum(1 for t in trials if trial_tg_limited(t)),
        "max_offered_pps": max(rates) if rates else None,
    }
