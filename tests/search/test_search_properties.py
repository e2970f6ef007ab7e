"""Properties of all three algorithms on monotone deterministic DUTs."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from search_duts import (
    AlwaysLosesDut,
    CapacityDut,
    LossCurveDut,
    NeverLosesDut,
    StepDut,
    rfc_bounds,
    threshold,
)

from ndrpdr.search import ALGORITHMS, Goal, GoalResult, SearchIrregularError, search

Dut = CapacityDut | StepDut | LossCurveDut
TOLERANCE = 1e-9
VARIANTS = [*((algorithm, False) for algorithm in ALGORITHMS), ("mlr", True)]
"""(algorithm, intermediate_trials): every algorithm, and mlr with intermediate trials."""


@st.composite
def goals(draw: st.DrawFn) -> Goal:
    # Whole seconds: sums of such durations are exact (see the xfail in
    # test_search_classify for what inexact sums do to conditional throughput).
    final = float(draw(st.one_of(st.sampled_from([1, 10, 30, 60]), st.integers(1, 60))))
    quarters = draw(st.integers(1, int(4 * final)))  # quarter seconds: exact sums too
    initial = draw(st.one_of(st.just(final), st.just(1.0), st.just(quarters / 4.0)))
    factor = draw(st.one_of(st.sampled_from([1.0, 2.0, 21.0]), st.floats(1.0, 21.0)))
    return Goal(
        loss_ratio=draw(st.sampled_from([0.0, 0.005, 0.01])),
        exceed_ratio=draw(st.sampled_from([0.0, 0.5])),
        relative_width=draw(st.one_of(st.just(0.005), st.floats(0.005, 0.05))),
        initial_trial_duration=min(initial, final),
        final_trial_duration=final,
        duration_sum=final * factor,
    )


goal_lists = st.lists(goals(), min_size=1, max_size=3, unique=True)
load_ranges = st.tuples(st.floats(1e3, 1e6), st.one_of(st.just(1e3), st.floats(1.5, 1e4))).map(
    lambda pair: (pair[0], pair[0] * pair[1])
)


@st.composite
def duts(draw: st.DrawFn, low: float, high: float) -> Dut:
    capacity = low * (high / low) ** draw(st.floats(0.0, 1.0))
    kind = draw(st.sampled_from(["capacity", "step", "curve"]))
    if kind == "capacity":
        return CapacityDut(capacity)
    if kind == "step":
        # A small step loss sends mlr down one grid step at a time: see
        # test_mlr_converges_on_a_small_loss_step in test_search_algorithms.
        return StepDut(capacity, draw(st.floats(0.1, 1.0)))
    return LossCurveDut(capacity, draw(st.floats(0.01, 10.0)), draw(st.floats(0.5, 3.0)))


def check_goal_result(dut: Dut, goal: Goal, result: GoalResult, low: float, high: float) -> None:
    """The bounds agree with the DUT at the goal's final trial duration."""
    final, loss = goal.final_trial_duration, goal.loss_ratio
    edge = threshold(dut.measure, final, loss, low, high)
    if edge == high:
        assert result.lower_bound == high
        assert result.upper_bound is None
        assert result.irregular_reason == "max load is a lower bound"
        return
    if edge == 0.0:
        assert result.lower_bound is None
        assert result.upper_bound == low
        assert result.irregular_reason == "min load is an upper bound"
        return
    lower, upper = result.lower_bound, result.upper_bound
    assert lower is not None, result
    assert upper is not None, result
    assert result.regular, result
    assert result.irregular_reason is None
    assert low <= lower < upper <= high
    assert lower >= upper * (1.0 - goal.relative_width) * (1.0 - TOLERANCE)
    assert dut.measure(final, lower).loss_ratio <= loss  # a fresh trial passes
    assert dut.measure(final, upper).loss_ratio > loss  # a fresh trial fails
    assert lower <= edge * (1.0 + TOLERANCE)
    assert lower >= edge * (1.0 - goal.relative_width) * (1.0 - TOLERANCE)


@pytest.mark.many_searches
@pytest.mark.parametrize(("algorithm", "intermediate"), VARIANTS)
@given(data=st.data(), goal_list=goal_lists, loads=load_ranges)
def test_bounds_are_true_for_monotone_duts(
    algorithm: str,
    intermediate: bool,
    data: st.DataObject,
    goal_list: list[Goal],
    loads: tuple[float, float],
) -> None:
    low, high = loads
    dut = data.draw(duts(low, high))
    result = search(dut, goal_list, low, high, algorithm, intermediate_trials=intermediate)
    assert result.algorithm == algorithm
    assert [r.goal for r in result.goal_results] == goal_list
    for trial in result.trials:
        assert low <= trial.load <= high
        assert trial.reason is not None
    for goal, goal_result in zip(goal_list, result.goal_results, strict=True):
        assert (goal_result.min_load, goal_result.max_load) == (low, high)
        check_goal_result(dut, goal, goal_result, low, high)
        if algorithm != "mlr":
            continue
        # Every trial counts for every goal: the bounds are the RFC's relevant
        # bounds over the whole trace, whoever nominated the trials.
        assert (goal_result.lower_bound, goal_result.upper_bound) == rfc_bounds(result.trials, goal)
        if goal_result.lower_bound is not None:
            throughput = goal_result.conditional_throughput
            assert throughput is not None
            assert throughput <= goal_result.lower_bound
            assert throughput >= goal_result.lower_bound * (1.0 - goal.loss_ratio) * (
                1.0 - TOLERANCE
            )


@pytest.mark.many_searches
@pytest.mark.parametrize(("algorithm", "intermediate"), VARIANTS)
@given(goal_list=goal_lists, loads=load_ranges)
def test_max_load_is_a_lower_bound_when_nothing_is_lost(
    algorithm: str, intermediate: bool, goal_list: list[Goal], loads: tuple[float, float]
) -> None:
    low, high = loads
    result = search(
        NeverLosesDut(), goal_list, low, high, algorithm, intermediate_trials=intermediate
    )
    for goal, goal_result in zip(goal_list, result.goal_results, strict=True):
        assert goal_result.lower_bound == high
        assert goal_result.upper_bound is None
        # A binary search measures one trial per load: its conditional throughput is
        # computed only when the trials there cover the quantile of the duration sum.
        full_s = sum(
            t.duration
            for t in result.trials
            if t.load == high and t.duration >= goal.final_trial_duration
        )
        covered = full_s >= goal.duration_sum * (1 - goal.exceed_ratio) * (1 - 1e-9)
        if algorithm == "mlr" or covered:
            assert goal_result.conditional_throughput == pytest.approx(high)
        else:
            assert goal_result.conditional_throughput is None
        assert not goal_result.regular
        assert goal_result.irregular_reason == "max load is a lower bound"
    assert all(trial.load == high for trial in result.trials)


@pytest.mark.many_searches
@pytest.mark.parametrize(("algorithm", "intermediate"), VARIANTS)
@given(goal_list=goal_lists, loads=load_ranges)
def test_min_load_is_an_upper_bound_when_everything_fails(
    algorithm: str, intermediate: bool, goal_list: list[Goal], loads: tuple[float, float]
) -> None:
    low, high = loads
    result = search(
        AlwaysLosesDut(), goal_list, low, high, algorithm, intermediate_trials=intermediate
    )
    for goal_result in result.goal_results:
        assert goal_result.lower_bound is None
        assert goal_result.upper_bound == low
        assert goal_result.conditional_throughput is None
        assert goal_result.irregular_reason == "min load is an upper bound"
    with pytest.raises(SearchIrregularError, match="is an upper bound") as info:
        search(
            AlwaysLosesDut(),
            goal_list,
            low,
            high,
            algorithm,
            fail_fast=True,
            intermediate_trials=intermediate,
        )
    partial = info.value.partial
    assert f"min_load={low!r}" in str(info.value)
    assert "goal 0" in str(info.value)
    assert partial.algorithm == algorithm
    assert len(partial.trials) == len(result.trials) > 0
    assert [(t.duration, t.load) for t in partial.trials] == [
        (t.duration, t.load) for t in result.trials
    ]
    assert partial.goal_results == result.goal_results


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_fail_fast_is_quiet_on_a_regular_search(algorithm: str) -> None:
    goal = Goal(exceed_ratio=0.0, duration_sum=1.0)
    result = search(CapacityDut(5e5), [goal], 1e4, 1e6, algorithm, fail_fast=True)
    assert result.goal_results[0].regular
