"""How far a found bound is from the DUT model's truth."""

from __future__ import annotations

import dataclasses
import math
import statistics
from collections.abc import Hashable, Iterable, Sequence

MISSING_ERROR = -1.0
"""Relative error recorded for a missing lower bound (as if 0 was found)."""


def relative_error(found: float | None, truth: float) -> float:
    """(found - truth) / truth; MISSING_ERROR when nothing was found. For a truth
    of 0 (a dead DUT): 0 when nothing was found (right), inf when a bound was."""
    if truth == 0.0:
        return 0.0 if found is None else math.inf
    if found is None:
        return MISSING_ERROR
    return (found - truth) / truth


def within_one_width_below(found: float | None, truth: float, width: float) -> bool:
    """True when truth * (1 - width) <= found <= truth (with float slack); for a
    truth of 0 (a DUT that forwards nothing) when nothing was found: no load
    meets the goal, so any lower bound is wrong."""
    if truth == 0.0:
        return found is None
    if found is None:
        return False
    slack = truth * 1e-9
    return truth * (1.0 - width) - slack <= found <= truth + slack


def median(values: Iterable[float]) -> float:
    """The median; NaN for no values."""
    data = list(values)
    return statistics.median(data) if data else float("nan")


def worst(errors: Iterable[float]) -> float:
    """The error with the largest magnitude (sign kept); NaN for no values."""
    data = list(errors)
    return max(data, key=abs) if data else float("nan")


def mean_abs(errors: Iterable[float]) -> float:
    """The mean magnitude of the errors; NaN for no values."""
    data = [abs(error) for error in errors]
    return statistics.fmean(data) if data else float("nan")


def paired_mean_difference(
    pairs: Iterable[tuple[float, float]], seeds: Sequence[Hashable] | None = None
) -> tuple[float, float]:
    """Mean of |ours| - |theirs| over (ours, theirs) error pairs of the same
    cases, and its 95 % half-width.

    The half-width is 1.96 standard errors of that mean (normal approximation;
    0 for fewer than two samples): the interval mean +- half-width is what
    ``AccuracyTie`` judges. ``seeds`` (one per pair): the DUT each case ran on.
    The samples are then the seeds' mean differences, not the cases': the cases
    of one seed (its final durations) face one DUT and are no independent
    samples (on a DUT whose trials do not depend on their duration they are
    the same search three times, and counting them thrice narrows the
    interval by sqrt(3) for nothing). The mean is the cases' (one per case).
    """
    diffs = [abs(ours) - abs(theirs) for ours, theirs in pairs]
    if not diffs:
        return float("nan"), float("nan")
    samples = diffs
    if seeds is not None:
        by_seed: dict[Hashable, list[float]] = {}
        for seed, diff in zip(seeds, diffs, strict=True):
            by_seed.setdefault(seed, []).append(diff)
        samples = [statistics.fmean(group) for group in by_seed.values()]
    if len(samples) < 2:
        return statistics.fmean(diffs), 0.0
    return statistics.fmean(diffs), 1.96 * statistics.stdev(samples) / len(samples) ** 0.5


@dataclasses.dataclass(frozen=True)
class AccuracyTie:
    """The tie rule: is our accuracy no worse than the other algorithm's?

    Over (ours, theirs) error pairs of the same cases (paired by seed):
    no worse when the paired 95 % interval of the difference in mean
    |error| (``paired_mean_difference``, ours minus theirs) does not lie
    wholly above zero, and our worst |error| exceeds theirs by at most
    ``worst_slack`` (relative error, 0.02 = 2 percentage points).
    """

    difference: float
    half_width: float
    ours_mean: float
    their_mean: float
    ours_worst: float
    their_worst: float
    worst_slack: float

    @staticmethod
    def of(
        pairs: Sequence[tuple[float, float]],
        worst_slack: float,
        seeds: Sequence[Hashable] | None = None,
    ) -> AccuracyTie:
        """Judge ``pairs`` ((our error, their error) per case) with ``worst_slack``; ``seeds``:
        the DUT of each case (``paired_mean_difference``)."""
        difference, half_width = paired_mean_difference(pairs, seeds)
        return AccuracyTie(
            difference=difference,
            half_width=half_width,
            ours_mean=mean_abs(ours for ours, _ in pairs),
            their_mean=mean_abs(theirs for _, theirs in pairs),
            ours_worst=abs(worst(ours for ours, _ in pairs)),
            their_worst=abs(worst(theirs for _, theirs in pairs)),
            worst_slack=worst_slack,
        )

    @property
    def mean_ok(self) -> bool:
        """The interval of the mean difference reaches zero or below."""
        return self.difference - self.half_width <= 0.0

    @property
    def worst_ok(self) -> bool:
        """Our worst |error| is at most ``worst_slack`` above theirs."""
        return self.ours_worst <= self.their_worst + self.worst_slack

    @property
    def no_worse(self) -> bool:
        """Both halves of the rule hold (False for no pairs)."""
        return self.mean_ok and self.worst_ok
