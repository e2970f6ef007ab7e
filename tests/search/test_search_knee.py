"""The noisy-knee estimate: pass/fail counts and a logistic fit: where half the trials fail.

The trials and DUTs here are scripted stand-ins (no real DUT behaves this
exactly): the fit is a pure function of pass/fail counts, and the DUT draws
its pass/fail from a seeded function of the load and the trial count, so
every search over it is reproducible trial by trial.
"""

from __future__ import annotations

import math
import random
from collections import Counter

import pytest

from ndrpdr.search import Goal, TrialResult, search
from ndrpdr.search.mlr.knee import PassFail, count, median_load, overlapping

WIDTH = 0.005


def _trial(load: float, loss_ratio: float, duration: float = 1.0) -> TrialResult:
    offered = load * duration
    return TrialResult(duration, load, offered_count=offered, loss_count=loss_ratio * offered)


def test_count_tallies_each_load_by_the_goal_loss_ratio_and_skips_short_trials() -> None:
    trials = [
        _trial(2e6, 0.0),
        _trial(1e6, 0.0),
        _trial(2e6, 0.01),
        _trial(2e6, 0.004),  # not above a 0.5 % goal: a pass
        _trial(1e6, 0.5, duration=0.5),  # shorter than 1 s: not counted
    ]
    assert count(trials, 0.005, min_duration=1.0) == [
        PassFail(1e6, passed=1, failed=0),
        PassFail(2e6, passed=2, failed=1),
    ]
    assert count(trials, 0.0) == [
        PassFail(1e6, passed=1, failed=1),
        PassFail(2e6, passed=1, failed=2),
    ]


@pytest.mark.parametrize(
    ("counts", "expected"),
    [
        ([], False),
        ([PassFail(1e6, 3, 0), PassFail(2e6, 0, 3)], False),  # a clean step
        ([PassFail(1e6, 3, 0)], False),  # passes only
        ([PassFail(1e6, 2, 1)], True),  # both at one load
        ([PassFail(1e6, 0, 1), PassFail(2e6, 1, 0)], True),  # a failure below a pass
    ],
    ids=["empty", "step", "passes", "same-load", "below"],
)
def test_overlapping_means_a_failure_at_or_below_a_pass(
    counts: list[PassFail], expected: bool
) -> None:
    assert overlapping(counts) is expected


@pytest.mark.parametrize("midpoint", [3e5, 2.5e6, 1.3e7])
@pytest.mark.parametrize("slope", [20.0, 80.0, 300.0])
def test_the_fit_recovers_a_logistic_midpoint(midpoint: float, slope: float) -> None:
    # Expected counts of 1000 trials per load from p = 1 / (1 + exp(-slope *
    # log(load / midpoint))), loads 1 % apart around the midpoint.
    counts = []
    for step in range(-15, 16):
        load = midpoint * 1.01**step
        failed = round(1000.0 / (1.0 + math.exp(-slope * math.log(load / midpoint))))
        counts.append(PassFail(load, 1000 - failed, failed))
    fitted = median_load(counts)
    assert fitted is not None
    assert fitted == pytest.approx(midpoint, rel=2e-3)


def test_the_fit_follows_where_failures_outnumber_passes() -> None:
    # Half the trials fail at 2e6, none below 1.9e6, all above 2.1e6.
    counts = [
        PassFail(1.8e6, 5, 0),
        PassFail(1.9e6, 4, 1),
        PassFail(2.0e6, 3, 3),
        PassFail(2.1e6, 1, 4),
        PassFail(2.2e6, 0, 5),
    ]
    fitted = median_load(counts)
    assert fitted is not None
    assert fitted == pytest.approx(2.0e6, rel=5e-3)
    # More failures at 2e6 move the estimate down.
    more = [*counts[:2], PassFail(2.0e6, 1, 5), *counts[3:]]
    lowered = median_load(more)
    assert lowered is not None and lowered < fitted


def test_no_estimate_without_noise_or_when_failures_fall_with_the_load() -> None:
    assert median_load([PassFail(1e6, 3, 0), PassFail(2e6, 0, 3)]) is None
    assert median_load([PassFail(1e6, 0, 3), PassFail(2e6, 3, 1)]) is None


def test_no_estimate_beyond_the_counted_loads() -> None:
    # Failures are rare at both loads: the fit reaches p = 0.5 only more
    # than twice as high (or, nearly flat, at a load too large to represent).
    assert median_load([PassFail(1e6, 90, 10), PassFail(1.05e6, 89, 11)]) is None
    assert median_load([PassFail(1e6, 1000, 1), PassFail(1.0001e6, 1000, 1)]) is None


class RampDut:
    """A trial fails (2 % loss) with probability rising linearly in log(load)
    from 0 at ``bottom`` to 1 at ``top``; the draw is a seeded function of
    the load and how many trials it already had."""

    def __init__(self, bottom: float, top: float) -> None:
        self.bottom = bottom
        self.top = top
        self.seen: Counter[float] = Counter()

    def probability(self, load: float) -> float:
        share = math.log(load / self.bottom) / math.log(self.top / self.bottom)
        return min(1.0, max(0.0, share))

    def measure(self, duration: float, load: float) -> TrialResult:
        self.seen[load] += 1
        draw = random.Random(f"{load!r}/{self.seen[load]}").random()
        lost = 0.02 if draw < self.probability(load) else 0.0
        return _trial(load, lost, duration)


@pytest.mark.parametrize("capacity", [2.45e6, 3.0e6, 3.68e6, 5.52e6])
def test_scouting_a_noisy_knee_heads_for_the_fitted_median_load(capacity: float) -> None:
    dut = RampDut(0.8 * capacity, capacity)
    result = search(dut, [Goal(loss_ratio=0.0), Goal(loss_ratio=0.005)], 1e4, 1e7)
    median = math.sqrt(dut.bottom * dut.top)  # where p = 0.5
    fitted = [
        t.load for t in result.trials if t.reason is not None and t.reason.strategy == "knee-fit"
    ]
    assert fitted, result.describe()
    # Each fitted load is at most one width beyond the scout bracket, so the
    # first may lie far off; the last is near the median.
    assert abs(math.log(fitted[-1] / median)) <= 8 * -math.log1p(-WIDTH), result.describe()
    for goal_result in result.goal_results:
        lower, upper = goal_result.lower_bound, goal_result.upper_bound
        assert lower is not None and upper is not None, result.describe()
        assert lower >= upper * (1.0 - WIDTH) * (1.0 - 1e-9)
        assert dut.bottom <= lower < upper <= dut.top
