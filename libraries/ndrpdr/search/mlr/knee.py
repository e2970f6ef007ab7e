"""Where a noisy DUT's median trial starts failing a goal, from pass/fail counts.

On a noisy knee a load's trials pass or fail a goal at random, with a
failure probability p(load) rising with the load; for a goal with exceed
ratio 0.5 the threshold is where p = 0.5. The estimate here is a maximum
likelihood logistic fit of p over log(load) to every trial's pass/fail,
p = 1 / (1 + exp(-(a + b * x))), x = log(load / reference), fitted by
Newton's method (deterministic). It only steers the controller; bounds
always come from classification.

The fit is used only once the data shows noise (``overlapping``): a failure
at or below a load that passed. Without it the pass/fail data are separable
and a logistic fit has no finite maximum.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable

from ndrpdr.search.trial import TrialResult

_REACH = 2.0
"""How far beyond the counted loads (a factor) the fitted median may lie."""
_ITERATIONS = 30
_TOLERANCE = 1e-9
_RIDGE = 1e-6
"""A tiny penalty on the parameters' squares: keeps Newton's step finite on flat data."""


@dataclasses.dataclass(frozen=True)
class PassFail:
    """How many trials at one load [fps] passed and failed a goal."""

    load: float
    passed: int
    failed: int


def count(
    trials: Iterable[TrialResult], loss_ratio: float, min_duration: float = 0.0
) -> list[PassFail]:
    """Per load (ascending), trials of at least ``min_duration`` [s] that passed /
    failed ``loss_ratio`` (failed: loss ratio above it)."""
    tally: dict[float, list[int]] = {}
    for trial in trials:
        if trial.duration >= min_duration:
            counts = tally.setdefault(trial.load, [0, 0])
            counts[1 if trial.loss_ratio > loss_ratio else 0] += 1
    return [PassFail(load, *tally[load]) for load in sorted(tally)]


def overlapping(counts: list[PassFail]) -> bool:
    """Did some trial fail at or below a load where another trial passed?"""
    highest_pass = max((c.load for c in counts if c.passed), default=None)
    lowest_fail = min((c.load for c in counts if c.failed), default=None)
    return highest_pass is not None and lowest_fail is not None and lowest_fail <= highest_pass


def median_load(counts: list[PassFail]) -> float | None:
    """The load [fps] where the fitted failure probability is 0.5.

    None unless the counts overlap (see ``overlapping``), the fit has a
    failure probability rising with the load, and it reaches 0.5 within the
    counted loads' range widened by a factor of ``_REACH`` each way (a
    nearly flat fit would put it anywhere).
    """
    if not overlapping(counts):
        return None
    reference = math.sqrt(counts[0].load * counts[-1].load)
    points = [(math.log(c.load / reference), c.passed, c.failed) for c in counts]
    a, b = 0.0, 0.0
    for _ in range(_ITERATIONS):
        # Gradient and Hessian of the penalized log-likelihood.
        g0, g1 = -_RIDGE * a, -_RIDGE * b
        h00, h01, h11 = _RIDGE, 0.0, _RIDGE
        for x, passed, failed in points:
            p = _sigmoid(a + b * x)
            residual = failed - (passed + failed) * p
            weight = (passed + failed) * p * (1.0 - p)
            g0 += residual
            g1 += residual * x
            h00 += weight
            h01 += weight * x
            h11 += weight * x * x
        # Positive: the ridge makes the Hessian positive definite.
        determinant = h00 * h11 - h01 * h01
        step_a = (h11 * g0 - h01 * g1) / determinant
        step_b = (h00 * g1 - h01 * g0) / determinant
        a, b = a + step_a, b + step_b
        if abs(step_a) + abs(step_b) < _TOLERANCE:
            break
    # b > 0 and -a / b within a factor of _REACH of the counted loads,
    # without dividing by a tiny b.
    reach = math.log(_REACH)
    if b <= 0.0 or not b * (points[0][0] - reach) <= -a <= b * (points[-1][0] + reach):
        return None
    return reference * math.exp(-a / b)


def _sigmoid(z: float) -> float:
    if z >= 0.0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)
