"""Change points by minimum description length: exact optimum, quiet on noise, quick on steps."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ndrpdr.trend.changepoint import (
    MIN_SEGMENT,
    noise_sigma,
    optimal_starts,
    penalty,
    segments,
)


def _brute_force_cost(values: list[float], sigma: float) -> float:
    """The least description cost over every cutting, by plain O(n^2) dynamic programming."""
    count = len(values)
    beta = penalty(count)
    best = [math.inf] * (count + 1)
    best[0] = -beta
    for stop in range(1, count + 1):
        for start in range(0, stop - MIN_SEGMENT + 1):
            if best[start] == math.inf:
                continue
            part = values[start:stop]
            mean = sum(part) / len(part)
            cost = sum(((v - mean) / sigma) ** 2 for v in part)
            best[stop] = min(best[stop], best[start] + cost + beta)
    return best[count]


def _cost(values: list[float], bounds: list[tuple[int, int]], sigma: float) -> float:
    total = -penalty(len(values))
    for start, stop in bounds:
        part = values[start:stop]
        mean = sum(part) / len(part)
        total += sum(((v - mean) / sigma) ** 2 for v in part) + penalty(len(values))
    return total


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(min_value=0.0, max_value=10.0, allow_nan=False), min_size=4, max_size=40),
    st.floats(min_value=0.05, max_value=3.0),
)
def test_the_pruned_search_finds_the_same_least_cost_as_trying_every_cut(
    raw: list[float], sigma: float
) -> None:
    values = [1e6 + 1e5 * v for v in raw]
    starts = optimal_starts(values, 1e5 * sigma)
    bounds = list(zip(starts, [*starts[1:], len(values)], strict=True))
    assert bounds[0][0] == 0 and bounds[-1][1] == len(values)
    assert all(stop - start >= MIN_SEGMENT for start, stop in bounds)
    scaled = [(v - 1e6) / (1e5 * sigma) for v in values]
    assert _cost(scaled, bounds, 1.0) == pytest.approx(_brute_force_cost(scaled, 1.0), abs=1e-6)


def test_pure_gaussian_noise_of_a_year_is_one_segment_in_at_least_97_of_100_series() -> None:
    rng = random.Random(20261125)
    quiet = sum(
        len(segments([1e7 * (1 + rng.gauss(0, 0.01)) for _ in range(365)]).changes) == 0
        for _ in range(100)
    )
    assert quiet >= 97


def test_a_5_percent_step_is_found_at_its_run_once_two_runs_confirm_it() -> None:
    rng = random.Random(7)
    found = 0
    for _ in range(100):
        before = [1e7 * (1 + rng.gauss(0, 0.01)) for _ in range(90)]
        after = [0.95e7 * (1 + rng.gauss(0, 0.01)) for _ in range(MIN_SEGMENT)]
        changes = segments(before + after).changes
        found += any(c.index == 90 and c.relative < -0.03 and c.z < -4 for c in changes)
    assert found >= 95


def test_one_outlier_run_is_not_a_level_of_its_own() -> None:
    rng = random.Random(3)
    values = [1e7 * (1 + rng.gauss(0, 0.005)) for _ in range(60)]
    values[30] = 0.5e7
    assert segments(values).changes == ()


def test_a_deterministic_dut_changes_only_beyond_its_searches_own_width() -> None:
    same = [7.5e6] * 40
    widths = [7.5e6 * 0.005] * 40
    inside = same[:20] + [7.5e6 * 1.001] * 20  # 0.1 %: within the searches' 0.5 % width
    assert segments(inside, widths).changes == ()
    beyond = same[:20] + [7.5e6 * 0.97] * 20
    (change,) = segments(beyond, widths).changes
    assert change.index == 20 and change.relative == pytest.approx(-0.03)


def test_noise_sigma_follows_the_run_to_run_spread_not_a_step() -> None:
    rng = random.Random(11)
    noise = [1e7 + rng.gauss(0, 1e5) for _ in range(300)]
    stepped = noise[:150] + [v - 5e5 for v in noise[150:]]
    assert noise_sigma(noise) == pytest.approx(1e5, rel=0.15)
    assert noise_sigma(stepped) == pytest.approx(noise_sigma(noise), rel=0.05)
    assert noise_sigma([5.0] * 10, [2.0] * 10) == 1.0


def test_bad_input_is_named() -> None:
    with pytest.raises(ValueError, match="finite"):
        segments([1.0, math.nan, 2.0, 3.0])
    with pytest.raises(ValueError, match="3 noises for 4 values"):
        segments([1.0, 2.0, 3.0, 4.0], [1.0, 1.0, 1.0])
    assert segments([]).segments == ()
    assert len(segments([1.0, 9.0, 1.0]).segments) == 1
