"""All trials of a search, grouped by load, classified per criterion."""

from __future__ import annotations

from collections.abc import Sequence

from ndrpdr.search.classify import Classification, Criterion, LoadStats, classify
from ndrpdr.search.trial import TrialResult


class TrialDatabase:
    """Trials by load, with per-criterion duration totals kept up to date.

    Every trial counts for every criterion (RFC 9971: any trial may inform
    any goal). Criteria are registered up front and referred to by index.
    """

    def __init__(self, criteria: Sequence[Criterion]) -> None:
        self.criteria = tuple(criteria)
        self._trials: dict[float, list[TrialResult]] = {}
        self._stats: list[dict[float, LoadStats]] = [{} for _ in self.criteria]
        self._sorted_loads: list[float] = []

    def add_criterion(self, criterion: Criterion) -> int:
        """Register one more criterion (counting the trials so far); its index."""
        stats: dict[float, LoadStats] = {}
        for load, trials in self._trials.items():
            for trial in trials:
                stats.setdefault(load, LoadStats()).add(trial, criterion)
        self.criteria += (criterion,)
        self._stats.append(stats)
        return len(self.criteria) - 1

    def add(self, trial: TrialResult) -> None:
        """Record one trial under its (intended) load."""
        load = trial.load
        if load not in self._trials:
            self._trials[load] = []
            self._sorted_loads = sorted(self._trials)
        self._trials[load].append(trial)
        for criterion, stats in zip(self.criteria, self._stats, strict=True):
            stats.setdefault(load, LoadStats()).add(trial, criterion)

    @property
    def loads(self) -> list[float]:
        """Every load measured so far, ascending."""
        return self._sorted_loads

    def trials_at(self, load: float) -> list[TrialResult]:
        """Trials measured at exactly ``load`` (empty if none)."""
        return self._trials.get(load, [])

    def stats(self, criterion_index: int, load: float) -> LoadStats:
        """The duration totals of ``load`` for a criterion (zeros if unmeasured)."""
        return self._stats[criterion_index].get(load, LoadStats())

    def classification(self, criterion_index: int, load: float) -> Classification:
        """RFC 9971 classification of ``load``; UNDECIDED if unmeasured."""
        stats = self._stats[criterion_index].get(load)
        if stats is None:
            return Classification.UNDECIDED
        return classify(stats, self.criteria[criterion_index])

    def relevant_bounds(self, criterion_index: int) -> tuple[float | None, float | None]:
        """(relevant lower bound, relevant upper bound) for a criterion.

        The upper bound is the lowest load classified as an upper bound; the
        lower bound is the highest load classified as a lower bound below it.
        Either may be None.
        """
        lower: float | None = None
        for load in self._sorted_loads:
            verdict = self.classification(criterion_index, load)
            if verdict is Classification.UPPER:
                return lower, load
            if verdict is Classification.LOWER:
                lower = load
        return lower, None
