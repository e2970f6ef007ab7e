"""RFC 9971 load classification and conditional throughput (sections 4.4, 4.5)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st
from search_duts import NeverLosesDut, rfc_classify

from ndrpdr.search import (
    Classification,
    Criterion,
    Goal,
    GoalResult,
    LoadStats,
    TrialResult,
    classify,
    search,
)
from ndrpdr.search.classify import conditional_throughput
from ndrpdr.search.database import TrialDatabase
from ndrpdr.search.grid import LoadGrid

LOWER = Classification.LOWER
UPPER = Classification.UPPER
UNDECIDED = Classification.UNDECIDED

# CSIT's production goals: 1 s trials, duration sum 21 s, exceed ratio 0.5.
CSIT = Criterion(loss_ratio=0.0, exceed_ratio=0.5, final_duration=1.0, duration_sum=21.0)
# RFC 2544 style: one 30 s trial decides, no exceeding allowed.
STRICT = Criterion(loss_ratio=0.0, exceed_ratio=0.0, final_duration=30.0, duration_sum=30.0)


def trial(
    duration: float, loss_ratio: float, load: float = 1000.0, effective: float | None = None
) -> TrialResult:
    """A trial at ``load`` with the given loss ratio (counts as floats)."""
    offered = load * duration
    return TrialResult(
        duration,
        load,
        offered_count=offered,
        loss_count=offered * loss_ratio,
        effective_duration=effective,
    )


# -- classification: hand-computed cases ----------------------------------------------


@pytest.mark.parametrize(
    ("stats", "expected"),
    [
        (LoadStats(), UNDECIDED),
        (LoadStats(full_low_s=10.0), UNDECIDED),  # 10 of 21 s: not yet half
        (LoadStats(full_low_s=11.0), LOWER),  # 11 good s: the bad 10 could not exceed 10.5
        (LoadStats(full_high_s=11.0), UPPER),  # 11 bad s: more than half of 21 s
        (LoadStats(full_high_s=10.0), UNDECIDED),
        (LoadStats(full_low_s=10.0, full_high_s=10.0), UNDECIDED),
        (LoadStats(full_low_s=11.0, full_high_s=10.0), LOWER),
        (LoadStats(full_low_s=10.0, full_high_s=11.0), UPPER),
        (LoadStats(full_low_s=11.0, full_high_s=11.0), LOWER),  # tie: 11 <= 22 * 0.5
        (LoadStats(full_low_s=30.0, full_high_s=31.0), UPPER),  # beyond the sum: 31 > 30.5
        # Short seconds, weight exceed / (1 - exceed) = 1: one short low-loss
        # second balances one short high-loss second.
        (LoadStats(short_high_s=11.0), UPPER),
        (LoadStats(short_high_s=11.0, short_low_s=1.0), UNDECIDED),
        (LoadStats(short_high_s=11.0, short_low_s=0.4), UPPER),
        (LoadStats(short_high_s=30.0, short_low_s=19.0), UPPER),
        (LoadStats(short_high_s=30.0, short_low_s=20.0), UNDECIDED),
        # Short low-loss seconds alone never make a lower bound.
        (LoadStats(short_low_s=1000.0), UNDECIDED),
        (LoadStats(full_low_s=10.0, short_low_s=1000.0), UNDECIDED),
        # Excess short high-loss seconds count as full-length high-loss ones.
        (LoadStats(full_low_s=11.0, short_high_s=12.0, short_low_s=1.0), LOWER),
        (LoadStats(full_low_s=10.0, short_high_s=12.0, short_low_s=1.0), UPPER),
    ],
)
def test_classify_exceed_half(stats: LoadStats, expected: Classification) -> None:
    assert classify(stats, CSIT) is expected


@pytest.mark.parametrize(
    ("stats", "expected"),
    [
        (LoadStats(), UNDECIDED),
        (LoadStats(short_high_s=1.0), UPPER),  # a single short high-loss trial
        (LoadStats(short_high_s=1.0, short_low_s=1000.0), UPPER),  # no balancing at exceed 0
        (LoadStats(full_high_s=30.0), UPPER),
        (LoadStats(full_low_s=29.0), UNDECIDED),
        (LoadStats(full_low_s=30.0), LOWER),
        (LoadStats(full_low_s=60.0), LOWER),
        (LoadStats(full_low_s=30.0, full_high_s=1e-9), UPPER),
        (LoadStats(full_low_s=30.0, short_high_s=1.0), UPPER),
        (LoadStats(short_low_s=1000.0), UNDECIDED),
        (LoadStats(full_low_s=29.0, short_low_s=1000.0), UNDECIDED),
        (LoadStats(full_low_s=30.0, short_low_s=5.0), LOWER),
    ],
)
def test_classify_exceed_zero(stats: LoadStats, expected: Classification) -> None:
    assert classify(stats, STRICT) is expected


def test_classify_short_weight_three_at_exceed_three_quarters() -> None:
    # exceed 0.75: coefficient 3, one short low-loss second balances three
    # short high-loss ones; quantile = 0.75 * max(4, effective seconds).
    criterion = Criterion(loss_ratio=0.0, exceed_ratio=0.75, final_duration=10.0, duration_sum=4.0)
    assert classify(LoadStats(short_high_s=4.0), criterion) is UPPER
    assert classify(LoadStats(short_high_s=6.0, short_low_s=1.0), criterion) is UNDECIDED
    assert classify(LoadStats(short_high_s=7.0, short_low_s=1.0), criterion) is UPPER
    assert classify(LoadStats(full_low_s=1.0), criterion) is LOWER
    assert classify(LoadStats(full_low_s=1.0, full_high_s=3.0), criterion) is LOWER
    assert classify(LoadStats(full_low_s=1.0, full_high_s=3.5), criterion) is UPPER


def test_load_stats_add_splits_by_duration_and_loss() -> None:
    criterion = Criterion(loss_ratio=0.25, exceed_ratio=0.5, final_duration=10.0, duration_sum=20.0)
    stats = LoadStats()
    stats.add(trial(10.0, 0.25), criterion)  # loss == goal loss ratio: low-loss
    stats.add(trial(20.0, 0.5), criterion)  # longer than final: full-length
    stats.add(trial(9.5, 0.0, effective=12.0), criterion)  # short; effective seconds count
    stats.add(trial(1.0, 0.5), criterion)
    assert stats == LoadStats(full_low_s=10.0, full_high_s=20.0, short_low_s=12.0, short_high_s=1.0)


def test_unsent_frames_make_a_trial_high_loss() -> None:
    # Nothing lost in the DUT, but the tester sent only 99 of 100 frames.
    stats = LoadStats()
    sent = TrialResult(1.0, 100.0, offered_count=99.0, loss_count=0.0, intended_count=100.0)
    stats.add(sent, CSIT)
    assert stats == LoadStats(full_high_s=1.0)


# -- classification: the RFC pseudocode, transcribed, on random inputs -------------------

seconds = st.one_of(
    st.sampled_from([0.0, 1.0, 10.0, 10.5, 11.0, 21.0, 30.0]),
    st.floats(min_value=0.0, max_value=1e4, allow_nan=False, allow_infinity=False),
)
ratios = st.one_of(
    st.sampled_from([0.0, 0.5, 0.25, 0.75, 0.9]),
    st.floats(min_value=0.0, max_value=0.999, allow_nan=False),
)


@given(
    full_low=seconds,
    full_high=seconds,
    short_low=seconds,
    short_high=seconds,
    loss=st.sampled_from([0.0, 0.005, 0.5]),
    exceed=ratios,
    final=st.floats(min_value=0.001, max_value=120.0),
    extra=seconds,
)
def test_classify_matches_rfc_pseudocode(
    full_low: float,
    full_high: float,
    short_low: float,
    short_high: float,
    loss: float,
    exceed: float,
    final: float,
    extra: float,
) -> None:
    total = final + extra
    criterion = Criterion(
        loss_ratio=loss, exceed_ratio=exceed, final_duration=final, duration_sum=total
    )
    stats = LoadStats(full_low, full_high, short_low, short_high)
    expected = rfc_classify(full_low, full_high, short_low, short_high, loss, exceed, total)
    assert classify(stats, criterion) is expected
    if full_low == 0.0:
        assert expected is not LOWER  # a lower bound needs full-length low-loss seconds
    if exceed == 0.0 and full_high + short_high > 1e-6:
        assert expected is UPPER  # any high-loss second is too many


# -- conditional throughput -------------------------------------------------------------


def test_conditional_throughput_single_full_length_trial() -> None:
    criterion = Criterion(loss_ratio=0.2, exceed_ratio=0.0, final_duration=30.0, duration_sum=30.0)
    got = conditional_throughput([trial(30.0, 0.1, load=1000.0)], 1000.0, criterion)
    assert got == pytest.approx(900.0)


def test_conditional_throughput_exceed_half_picks_the_median() -> None:
    criterion = Criterion(loss_ratio=0.5, exceed_ratio=0.5, final_duration=1.0, duration_sum=4.0)
    trials = [trial(1.0, r) for r in (0.3, 0.0, 0.2, 0.1)]
    # 2 s of 4 s to use up, lowest loss first: 0.0 then 0.1 (ties take the lower value).
    assert conditional_throughput(trials, 1000.0, criterion) == pytest.approx(900.0)
    # A fifth trial widens the whole to 5 s: 2.5 s to use, the third lowest (0.2).
    trials.append(trial(1.0, 0.4))
    assert conditional_throughput(trials, 1000.0, criterion) == pytest.approx(800.0)


def test_conditional_throughput_exceed_zero_takes_the_worst_trial() -> None:
    criterion = Criterion(loss_ratio=0.5, exceed_ratio=0.0, final_duration=1.0, duration_sum=3.0)
    trials = [trial(1.0, r) for r in (0.0, 0.25, 0.125)]
    assert conditional_throughput(trials, 1000.0, criterion) == pytest.approx(750.0)


def test_conditional_throughput_missing_seconds_are_full_loss() -> None:
    # CSIT: 21 s sum, exceed 0.5: 10.5 s must be walked.
    assert conditional_throughput([trial(1.0, 0.0)] * 10, 1000.0, CSIT) == 0.0
    assert conditional_throughput([trial(1.0, 0.0)] * 11, 1000.0, CSIT) == pytest.approx(1000.0)
    strict_half = Criterion(
        loss_ratio=0.0, exceed_ratio=0.0, final_duration=30.0, duration_sum=60.0
    )
    assert conditional_throughput([trial(30.0, 0.0)], 1000.0, strict_half) == 0.0


def test_conditional_throughput_uses_effective_durations_and_ignores_short_trials() -> None:
    criterion = Criterion(loss_ratio=0.0, exceed_ratio=0.5, final_duration=1.0, duration_sum=4.0)
    # One trial worth 3 effective seconds covers the 2 s quantile alone.
    trials = [trial(1.0, 0.1, effective=3.0), trial(1.0, 0.3), trial(0.5, 0.0)]
    assert conditional_throughput(trials, 1000.0, criterion) == pytest.approx(900.0)


@pytest.mark.parametrize(("seconds", "count"), [(0.9, 3), (0.1, 3), (2.7, 21)])
def test_conditional_throughput_at_a_lower_bound_survives_rounding(
    seconds: float, count: int
) -> None:
    criterion = Criterion(
        loss_ratio=0.0, exceed_ratio=0.0, final_duration=seconds, duration_sum=seconds * count
    )
    trials = [trial(seconds, 0.0)] * count
    stats = LoadStats()
    for one in trials:
        stats.add(one, criterion)
    assert classify(stats, criterion) is LOWER  # every second low-loss, the sum reached
    assert conditional_throughput(trials, 1000.0, criterion) == pytest.approx(1000.0)


def test_search_reports_conditional_throughput_at_max_load_with_inexact_durations() -> None:
    goal = Goal(
        loss_ratio=0.0,
        exceed_ratio=0.0,
        initial_trial_duration=0.9,
        final_trial_duration=0.9,
        duration_sum=2.7,
    )
    result = search(NeverLosesDut(), [goal], 1e3, 1e6)
    assert result.goal_results[0].lower_bound == 1e6
    assert result.goal_results[0].conditional_throughput == pytest.approx(1e6)


def test_conditional_throughput_none_without_full_length_trials() -> None:
    assert conditional_throughput([], 1000.0, STRICT) is None
    assert conditional_throughput([trial(29.0, 0.0), trial(1.0, 0.0)], 1000.0, STRICT) is None


# -- the trial database -----------------------------------------------------------------


def test_database_relevant_bounds_resolve_loss_inversion_conservatively() -> None:
    strict_1s = Criterion(loss_ratio=0.0, exceed_ratio=0.0, final_duration=1.0, duration_sum=1.0)
    db = TrialDatabase([strict_1s])
    assert db.relevant_bounds(0) == (None, None)
    assert db.classification(0, 5.0) is UNDECIDED
    for load, loss in ((100.0, 0.0), (300.0, 0.0), (200.0, 0.1), (400.0, 0.2)):
        db.add(trial(1.0, loss, load=load))
    # 300 passes but sits above the upper bound 200: the relevant lower bound is 100.
    assert db.loads == [100.0, 200.0, 300.0, 400.0]
    assert db.relevant_bounds(0) == (100.0, 200.0)
    assert db.stats(0, 200.0) == LoadStats(full_high_s=1.0)
    assert db.stats(0, 250.0) == LoadStats()
    assert len(db.trials_at(300.0)) == 1
    assert db.trials_at(250.0) == []
    # A criterion added later counts the trials so far.
    lenient = Criterion(loss_ratio=0.15, exceed_ratio=0.0, final_duration=1.0, duration_sum=1.0)
    assert db.add_criterion(lenient) == 1
    assert db.relevant_bounds(1) == (300.0, 400.0)


# -- goal results -----------------------------------------------------------------------


def goal_result(lower: float | None, upper: float | None, width: float = 0.01) -> GoalResult:
    goal = Goal(relative_width=width)
    return GoalResult(goal, lower, upper, None, min_load=10.0, max_load=1000.0)


@pytest.mark.parametrize(
    ("lower", "upper", "reason"),
    [
        (99.0, 100.0, None),
        (100.0, 100.0, None),
        (98.9, 100.0, "bounds are wider than the goal width"),
        (1000.0, None, "max load is a lower bound"),
        (999.0, None, "no upper bound found"),
        (None, 10.0, "min load is an upper bound"),
        (None, 11.0, "no lower bound found"),
        (None, None, "no bounds found"),
    ],
)
def test_goal_result_regularity(
    lower: float | None, upper: float | None, reason: str | None
) -> None:
    result = goal_result(lower, upper)
    assert result.regular is (reason is None)
    assert result.irregular_reason == reason


# -- the load grid ----------------------------------------------------------------------


def test_load_grid_maps_indices_and_loads_both_ways() -> None:
    grid = LoadGrid(1000.0, 1e6, [0.05, 0.005])
    assert grid.load(-3) == grid.load(0) == 1000.0
    assert grid.load(grid.top) == grid.load(grid.top + 5) == 1e6
    # Steps no wider than the narrowest width, evenly dividing the range.
    assert 1.0 - math.exp(-grid.step) <= 0.005
    assert grid.step * grid.top == pytest.approx(math.log(1000.0))
    assert grid.width_steps(0.005) == 1
    assert grid.width_steps(0.05) == math.floor(-math.log1p(-0.05) / grid.step + 1e-9)
    assert grid.width_steps(1e-6) == 1
    for index in (0, 1, 7, grid.top // 2, grid.top - 1, grid.top):
        load = grid.load(index)
        assert grid.floor_index(load) == index
        assert grid.floor_index(load * 1.000001) == index
    assert grid.floor_index(999.0) == -1
    assert grid.floor_index(1e6) == grid.top
    assert grid.floor_index(2e6) == grid.top
    assert [grid.load(i) for i in range(grid.top + 1)] == sorted(
        grid.load(i) for i in range(grid.top + 1)
    )


def test_a_tiny_high_loss_time_is_not_rounded_into_a_lower_bound() -> None:
    # In floats 1.0 + 1.5e-171 == 1.0: the pessimistic test alone would
    # pass, but the optimistic one (1.5e-171 s of high loss > 0) does not.
    stats = LoadStats(full_low_s=1.0, full_high_s=0.0, short_low_s=0.0, short_high_s=1.5e-171)
    criterion = Criterion(loss_ratio=0.0, exceed_ratio=0.0, final_duration=1.0, duration_sum=1.0)
    assert classify(stats, criterion) is Classification.UNDECIDED
