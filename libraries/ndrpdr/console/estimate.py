"""An estimate of what is left of a search, from where its bounds stand now.

Based on, per goal: how many times the bracket (relevant upper / lower
bound) must still be halved to reach the goal width, each halving settling
one new load with full-length trials (a lower bound needs (1 - exceed
ratio) x duration sum seconds of them, an upper bound exceed ratio x
duration sum, at least one full-length trial; the estimate takes the mean
of the two); trial seconds are turned into wall seconds at the ratio seen so
far. Goals share no loads in this estimate, so it leans high where their
brackets overlap; a goal without both bounds yet counts one load per
missing bound and makes the estimate a lower limit. It is a rough guide,
printed as such.
"""

from __future__ import annotations

import dataclasses
import math

from ndrpdr.goals import PDR_LOSS_RATIO, goal_label
from ndrpdr.search.progress import GoalProgress, SearchProgress
from ndrpdr.units import format_percent


@dataclasses.dataclass(frozen=True)
class GoalEstimate:
    """What is left for one goal: halvings (None while a bound is missing), new loads, seconds."""

    progress: GoalProgress
    halvings: int | None
    loads: int
    seconds: float


def halvings_left(goal: GoalProgress) -> int | None:
    """Bisections of the bracket still needed to reach the goal width (None without both bounds).

    The goal is met when lower >= upper x (1 - width), i.e. when
    ln(upper / lower) <= -ln(1 - width); each halving halves ln(upper / lower).
    """
    if goal.lower is None or goal.upper is None:
        return None
    if goal.done:
        return 0
    spread = math.log(goal.upper / goal.lower)
    target = -math.log1p(-goal.goal.relative_width)
    return max(1, math.ceil(math.log2(spread / target)))


def seconds_per_load(goal: GoalProgress) -> float:
    """Full-length trial seconds a new load is expected to take to settle (mean of the verdicts)."""
    g = goal.goal
    as_lower = max(g.final_trial_duration, (1.0 - g.exceed_ratio) * g.duration_sum)
    as_upper = max(g.final_trial_duration, g.exceed_ratio * g.duration_sum)
    return (as_lower + as_upper) / 2


def estimate_goals(progress: SearchProgress) -> list[GoalEstimate]:
    """One GoalEstimate per goal of the snapshot."""
    out = []
    for goal in progress.goals:
        left = halvings_left(goal)
        loads = (goal.lower is None) + (goal.upper is None) if left is None else left
        out.append(GoalEstimate(goal, left, loads, loads * seconds_per_load(goal)))
    return out


def estimate_line(progress: SearchProgress, pdr_loss_ratio: float = PDR_LOSS_RATIO) -> str:
    """One console line: the estimate, what it rests on, and each goal's share."""
    goals = estimate_goals(progress)
    parts = []
    for estimate in goals:
        label = goal_label(estimate.progress.goal.loss_ratio, pdr_loss_ratio)
        width = estimate.progress.width
        goal_width = format_percent(estimate.progress.goal.relative_width)
        if estimate.halvings is None:
            found = estimate.progress
            missing = [n for n, v in (("lower", found.lower), ("upper", found.upper)) if v is None]
            parts.append(f"{label}: no {' or '.join(missing)} bound yet")
        elif estimate.halvings == 0:
            parts.append(f"{label}: done")
        else:
            assert width is not None
            parts.append(
                f"{label}: width {format_percent(width)} % vs goal {goal_width} %, "
                f"{estimate.loads} more loads x {seconds_per_load(estimate.progress):g} s"
            )
    trial_s = sum(e.seconds for e in goals)
    unknown = any(e.halvings is None for e in goals)
    ratio = progress.wall_time / progress.search_time if progress.search_time > 0 else None
    left = f"{'at least ' if unknown else ''}{trial_s:.0f} s of trials"
    if ratio is not None:
        left += f" (~{trial_s * ratio:.0f} s wall at {ratio:.2f} s wall per trial second so far)"
    return f"      estimate after {progress.trial_number} trials: {left} left; " + "; ".join(parts)
