"""How far a found bound is from the DUT model's truth."""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable

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


def paired_mean_difference(pairs: Iterable[tuple[float, float]]) -> tuple[float, float]:
    """Mean of |ours| - |theirs| over (ours, theirs) error pairs of the same
    cases, and its 95 % half-width.

    The half-width is 1.96 standard errors of that mean (normal approximation;
    0 for fewer than two pairs): a mean |error| target missed by less than it
    is within what the seeds' luck explains.
    """
    diffs = [abs(ours) - abs(theirs) for ours, theirs in pairs]
    if not diffs:
        return float("nan"), float("nan")
    if len(diffs) < 2:
        return diffs[0], 0.0
    return statistics.fmean(diffs), 1.96 * statistics.stdev(diffs) / len(diffs) ** 0.5
