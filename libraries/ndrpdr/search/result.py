"""What a search returns: per-goal results and the whole trace."""

from __future__ import annotations

import dataclasses
import enum

from ndrpdr.search.goal import Goal
from ndrpdr.search.trial import TrialResult

_TOLERANCE = 1e-9


class GoalIrregularity(str, enum.Enum):
    """Why one goal's result is irregular (RFC 9971: not both bounds within the goal width).

    A ``str`` enum, so the record keeps the value as plain text.
    """

    MAX_LOAD_IS_LOWER = "max load is a lower bound"
    NO_UPPER = "no upper bound found"
    MIN_LOAD_IS_UPPER = "min load is an upper bound"
    NO_LOWER = "no lower bound found"
    NO_BOUNDS = "no bounds found"
    TOO_WIDE = "bounds are wider than the goal width"
    #: Only in result records: the search ended without a result for the goal.
    NO_RESULT = "no result"


@dataclasses.dataclass(frozen=True)
class GoalResult:
    """The outcome for one goal (RFC 9971 Goal Result).

    lower_bound: Relevant Lower Bound [load], or None.
    upper_bound: Relevant Upper Bound [load], or None (e.g. the max load is
        a lower bound).
    conditional_throughput: at the relevant lower bound, or None.
    """

    goal: Goal
    lower_bound: float | None
    upper_bound: float | None
    conditional_throughput: float | None
    min_load: float
    max_load: float

    @property
    def regular(self) -> bool:
        """Both bounds exist and lie within the goal width."""
        if self.lower_bound is None or self.upper_bound is None:
            return False
        width = self.goal.relative_width
        return self.lower_bound >= self.upper_bound * (1.0 - width) * (1.0 - _TOLERANCE)

    @property
    def irregular_reason(self) -> GoalIrregularity | None:
        """Why the result is irregular, or None if it is regular."""
        if self.regular:
            return None
        if self.upper_bound is None and self.lower_bound is not None:
            if self.lower_bound >= self.max_load * (1.0 - _TOLERANCE):
                return GoalIrregularity.MAX_LOAD_IS_LOWER
            return GoalIrregularity.NO_UPPER
        if self.lower_bound is None and self.upper_bound is not None:
            if self.upper_bound <= self.min_load * (1.0 + _TOLERANCE):
                return GoalIrregularity.MIN_LOAD_IS_UPPER
            return GoalIrregularity.NO_LOWER
        if self.lower_bound is None:
            return GoalIrregularity.NO_BOUNDS
        return GoalIrregularity.TOO_WIDE


@dataclasses.dataclass(frozen=True)
class SearchResult:
    """The Controller Output: one GoalResult per goal, in goal order.

    trials: every trial, in the order measured, each with its reason.
    search_time: sum of effective trial durations [s].
    """

    algorithm: str
    goal_results: tuple[GoalResult, ...]
    trials: tuple[TrialResult, ...]
    search_time: float
    wall_time: float

    def describe(self) -> str:
        """A few human-readable lines: one per goal, plus totals."""
        lines = [
            f"{self.algorithm}: {len(self.trials)} trials, {self.search_time:.1f} s of trial time"
        ]
        for index, res in enumerate(self.goal_results):
            text = f"goal {index} ({res.goal.describe()}): lower {_fmt(res.lower_bound)}, "
            text += f"upper {_fmt(res.upper_bound)}, "
            conditional = res.conditional_throughput
            text += "conditional throughput "
            text += "not computed" if conditional is None else f"{conditional:.6g}"
            if res.irregular_reason:
                text += f" [irregular: {res.irregular_reason.value}]"
            lines.append(text)
        return "\n".join(lines)


def _fmt(value: float | None) -> str:
    return "none" if value is None else f"{value:.6g}"
