"""SearchProgress: what the search knows after each trial, handed to a progress callback."""

from __future__ import annotations

import dataclasses

from ndrpdr.search.goal import Goal
from ndrpdr.search.trial import TrialResult


@dataclasses.dataclass(frozen=True)
class GoalProgress:
    """One goal's relevant bounds (RFC 9971) over the trials so far [loads as measured].

    ``lower`` / ``upper`` are None while no load is classified as a lower /
    upper bound. ``width`` is ``upper / lower - 1`` when both exist.
    """

    goal: Goal
    lower: float | None
    upper: float | None

    @property
    def width(self) -> float | None:
        """Relative width of the bracket, ``upper / lower - 1``; None without both bounds."""
        if self.lower is None or self.upper is None or self.lower <= 0:
            return None
        return self.upper / self.lower - 1.0

    @property
    def done(self) -> bool:
        """True when the bracket is within the goal width (RFC 9971's stop rule for a goal)."""
        if self.lower is None or self.upper is None:
            return False
        return self.lower >= self.upper * (1.0 - self.goal.relative_width)


@dataclasses.dataclass(frozen=True)
class SearchProgress:
    """A snapshot after one trial: the trial, its number, every goal's bounds, time spent.

    trial_number: 1 for the first trial of the search.
    goals: one GoalProgress per goal, in the order the search was given them.
    search_time: sum of effective trial durations so far [s].
    wall_time: seconds since the search started, read through its clock.
    """

    trial_number: int
    trial: TrialResult
    goals: tuple[GoalProgress, ...]
    search_time: float
    wall_time: float
