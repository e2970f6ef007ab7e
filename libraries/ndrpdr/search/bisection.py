"""The classic baselines: RFC 2544 binary search, and ETSI TST009 binary
search with loss verification ("bswlv").

One independent search per goal (no trial is shared between goals), every
trial at the goal's final duration, arithmetic midpoints, hard bounds: a
load passes when a trial's loss ratio is at most the goal loss ratio. With
loss verification a failing load is measured again up to ``repeats`` times
and passes if any repeat passes (TST009's z = infinity variant).
"""

from __future__ import annotations

from ndrpdr.search.goal import Goal
from ndrpdr.search.session import Bounds, Session
from ndrpdr.search.trial import TrialReason


def run_bisection(session: Session, *, repeats: int) -> None:
    """Search every goal in turn; the hard bounds become the goal results."""
    algorithm = session.algorithm
    bounds = [
        _search_goal(session, index, goal, repeats, algorithm)
        for index, goal in enumerate(session.goals)
    ]
    session.bounds_override = bounds


def _search_goal(session: Session, index: int, goal: Goal, repeats: int, algorithm: str) -> Bounds:
    keep = 1.0 - goal.relative_width

    def passes(load: float, strategy: str, lower: float | None, upper: float | None) -> bool:
        detail = f"lower={lower!r}, upper={upper!r}"
        for attempt in range(1 + repeats):
            reason = TrialReason(
                algorithm=algorithm,
                phase="binary",
                strategy=strategy if attempt == 0 else "repeat",
                goal=index,
                detail=detail if attempt == 0 else f"verification {attempt} of {repeats}",
            )
            trial = session.measure(goal.final_trial_duration, load, reason)
            if trial.loss_ratio <= goal.loss_ratio:
                return True
        return False

    if passes(session.max_load, "max-load", None, None):
        return session.max_load, None
    lower: float | None = None
    upper = session.max_load
    while lower is None or lower < upper * keep:
        if lower is None and session.min_load >= upper * keep:
            if passes(session.min_load, "min-load", lower, upper):
                return session.min_load, upper
            return None, session.min_load
        low_end = session.min_load if lower is None else lower
        middle = (low_end + upper) / 2.0
        if passes(middle, "bisect", lower, upper):
            lower = middle
        else:
            upper = middle
    return lower, upper
