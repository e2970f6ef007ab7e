"""mlr's optional intermediate-duration trial (``search(..., intermediate_trials=True)``)."""

from __future__ import annotations

import pytest
from search_duts import BufferDut, rfc_bounds, strict_goals

from ndrpdr.search import Goal, SearchInputError, TrialResult, search
from ndrpdr.search.mlr.controller import intermediate_duration
from ndrpdr.trafficgen.sim import SimulatedMeasurer, make_model

MIN_LOAD, MAX_LOAD = 1e4, 29.76e6


def sim_search(model: str, seed: int, goals: list[Goal], **options: bool) -> list[TrialResult]:
    measurer = SimulatedMeasurer(make_model(model, seed=seed), overhead_s=0.5, seed=seed)
    return search(measurer, goals, MIN_LOAD, MAX_LOAD, **options).trials


def test_intermediate_duration_is_mlrsearch_middle_target() -> None:
    assert intermediate_duration(strict_goals(30.0)[0]) == pytest.approx(30.0**0.5)
    assert intermediate_duration(strict_goals(60.0)[0]) == pytest.approx(7.746, abs=1e-3)
    # From the duration sum, not the final duration (MLRsearch's targets do the same).
    scouted = Goal(initial_trial_duration=1.0, final_trial_duration=10.0, duration_sum=30.0)
    assert intermediate_duration(scouted) == pytest.approx(30.0**0.5)
    # None where it would not lie between the initial and the final duration.
    assert intermediate_duration(Goal()) is None  # CSIT's: 1 s trials, 21 s sum
    assert intermediate_duration(Goal(final_trial_duration=10.0, duration_sum=210.0)) is None
    assert (
        intermediate_duration(
            Goal(initial_trial_duration=10.0, final_trial_duration=10.0, duration_sum=10.0)
        )
        is None
    )


@pytest.mark.parametrize(("model", "seed"), [("sharp", 1), ("transient", 3), ("spells", 2)])
@pytest.mark.parametrize("final", [10.0, 60.0])
def test_an_intermediate_trial_comes_before_the_first_full_length_one(
    model: str, seed: int, final: float
) -> None:
    goals = strict_goals(final)
    middle = intermediate_duration(goals[0])
    assert middle is not None
    trials = sim_search(model, seed, goals, intermediate_trials=True)
    full_loads = {t.load for t in trials if t.duration >= final}
    assert full_loads
    for load in full_loads:
        at_load = [t for t in trials if t.load == load and t.duration >= middle]
        assert at_load[0].duration == pytest.approx(middle), (load, at_load)
        assert at_load[0].reason is not None
        assert at_load[0].reason.phase == "intermediate"
        assert f"before the first {final:g} s trial here" in at_load[0].reason.detail
    # In particular at each goal's relevant lower bound: the intermediate trial first.
    for goal in goals:
        lower, _ = rfc_bounds(trials, goal)
        assert lower is not None
        at_lower = [t.duration for t in trials if t.load == lower and t.duration >= middle]
        assert at_lower[0] == pytest.approx(middle)
        assert at_lower[-1] >= final


def test_off_by_default_and_off_changes_nothing() -> None:
    goals = strict_goals(10.0)
    default = sim_search("spells", 2, goals)
    off = sim_search("spells", 2, goals, intermediate_trials=False)
    assert [(t.duration, t.load, t.reason) for t in off] == [
        (t.duration, t.load, t.reason) for t in default
    ]
    # The trials the engine ran before the option existed (this seed, this model).
    assert [(t.duration, t.load) for t in off] == [
        (1.0, 29760000.0),
        (1.0, 19243353.41742878),
        (10.0, 19147156.821481917),
        (10.0, 18579992.05345235),
        (10.0, 18673339.17568707),
        (10.0, 19051441.107680216),
    ]
    on = sim_search("spells", 2, goals, intermediate_trials=True)
    assert any(t.reason is not None and t.reason.phase == "intermediate" for t in on)


def test_nothing_changes_for_goals_without_an_intermediate_duration() -> None:
    csit = [Goal(loss_ratio=0.0), Goal(loss_ratio=0.005)]
    off = sim_search("noisyknee", 4, csit)
    on = sim_search("noisyknee", 4, csit, intermediate_trials=True)
    assert [(t.duration, t.load) for t in on] == [(t.duration, t.load) for t in off]


def test_a_failing_intermediate_trial_settles_the_load() -> None:
    # Short trials hide the overload in the buffer; 5.48 s ones show part of it.
    dut = BufferDut(capacity=1e6, buffer=2e4)
    goals = strict_goals(30.0)
    result = search(dut, goals, 1e4, 2e6, intermediate_trials=True)
    settled_short = [
        t.load
        for t in result.trials
        if t.reason is not None
        and t.reason.phase == "intermediate"
        and t.loss_ratio > 0.0
        and not any(o.load == t.load and o.duration >= 30.0 for o in result.trials)
    ]
    assert settled_short  # no full-length trial was needed there
    for goal, goal_result in zip(goals, result.goal_results, strict=True):
        assert goal_result.regular
        assert (goal_result.lower_bound, goal_result.upper_bound) == rfc_bounds(result.trials, goal)
        assert goal_result.lower_bound is not None
        fresh = dut.measure(30.0, goal_result.lower_bound)
        assert fresh.loss_ratio <= goal.loss_ratio  # still true at full length
    # NDR: the buffer hides 2e4 frames over 30 s, 667 fps of overload at most.
    ndr = result.goal_results[0].lower_bound
    assert ndr is not None
    assert 1e6 * 0.995 <= ndr <= 1e6 + 2e4 / 30.0


def test_intermediate_trials_must_be_a_bool() -> None:
    with pytest.raises(SearchInputError, match="intermediate_trials='yes' must be True or False"):
        search(BufferDut(1e6, 0.0), strict_goals(10.0), 1e4, 2e6, intermediate_trials="yes")  # type: ignore[arg-type]
