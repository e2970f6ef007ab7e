"""Behaviour of the controllers: determinism, mlr specifics, baselines, limits, output."""

from __future__ import annotations

import math

import pytest
from search_duts import (
    AlwaysLosesDut,
    BufferDut,
    CapacityDut,
    ClockedDut,
    LossCurveDut,
    NeverLosesDut,
    OverheadDut,
    RecordingMeasurer,
    StepDut,
    TransientDut,
    rfc_bounds,
    threshold,
)

from ndrpdr.search import (
    ALGORITHMS,
    Goal,
    GoalProgress,
    SearchError,
    SearchProgress,
    SearchResult,
    SearchTimeLimitError,
    TrialReason,
    TrialResult,
    search,
)
from ndrpdr.search.database import TrialDatabase
from ndrpdr.search.session import goal_criterion

MIN_LOAD = 1e4
MAX_LOAD = 1e7
# CSIT-like goals with strict classification: one 30 s trial decides a load.
NDR = Goal(loss_ratio=0.0, exceed_ratio=0.0, final_trial_duration=30.0, duration_sum=30.0)
PDR = Goal(loss_ratio=0.005, exceed_ratio=0.0, final_trial_duration=30.0, duration_sum=30.0)
# CSIT production goals: 1 s trials, exceed ratio 0.5, 21 s sum.
CSIT_NDR = Goal(loss_ratio=0.0)
CSIT_PDR = Goal(loss_ratio=0.005)


def inputs(result: SearchResult) -> list[tuple[float, float]]:
    return [(t.duration, t.load) for t in result.trials]


def reasons(result: SearchResult) -> list[TrialReason]:
    out = []
    for trial in result.trials:
        assert trial.reason is not None
        out.append(trial.reason)
    return out


def assert_true_bounds(
    result: SearchResult, measure: CapacityDut | BufferDut | StepDut | LossCurveDut
) -> None:
    """Every goal is regular, its lower bound passes and its upper bound fails at
    the final trial duration, and the lower bound is within a width of the edge."""
    for res in result.goal_results:
        goal = res.goal
        lower, upper = res.lower_bound, res.upper_bound
        assert res.regular, res
        assert lower is not None and upper is not None
        final, loss = goal.final_trial_duration, goal.loss_ratio
        assert measure.measure(final, lower).loss_ratio <= loss
        assert measure.measure(final, upper).loss_ratio > loss
        edge = threshold(measure.measure, final, loss, MIN_LOAD, MAX_LOAD)
        assert edge * (1.0 - goal.relative_width) * (1.0 - 1e-9) <= lower <= edge


# -- determinism and reasons ------------------------------------------------------------


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("goals", [[NDR, PDR], [CSIT_NDR, CSIT_PDR]], ids=["strict", "csit"])
def test_equal_measurers_give_equal_searches(algorithm: str, goals: list[Goal]) -> None:
    first = search(LossCurveDut(2.7e6, 2.0, 1.5), goals, MIN_LOAD, MAX_LOAD, algorithm)
    second = search(LossCurveDut(2.7e6, 2.0, 1.5), goals, MIN_LOAD, MAX_LOAD, algorithm)
    assert len(first.trials) > 1
    assert inputs(first) == inputs(second)
    assert reasons(first) == reasons(second)
    assert first.goal_results == second.goal_results
    assert first.search_time == second.search_time
    assert first.search_time == pytest.approx(sum(t.duration for t in first.trials))
    for reason in reasons(first):
        assert reason.algorithm == algorithm
        assert reason.phase and reason.strategy
        assert reason.goal is None or reason.goal in range(len(goals))
        assert str(reason).startswith(f"{algorithm}/")


def test_bswlv_without_repeats_still_names_itself() -> None:
    result = search(CapacityDut(3e6), [NDR], MIN_LOAD, MAX_LOAD, "bswlv", bswlv_repeats=0)
    assert result.algorithm == "bswlv"
    assert {reason.algorithm for reason in reasons(result)} == {"bswlv"}


def test_bswlv_without_repeats_measures_like_binary() -> None:
    binary = search(CapacityDut(3e6), [NDR, PDR], MIN_LOAD, MAX_LOAD, "binary")
    bswlv = search(CapacityDut(3e6), [NDR, PDR], MIN_LOAD, MAX_LOAD, "bswlv", bswlv_repeats=0)
    assert inputs(binary) == inputs(bswlv)
    assert binary.goal_results == bswlv.goal_results


# -- mlr --------------------------------------------------------------------------------


@pytest.mark.parametrize("capacity", [1.1e4, 3.3e5, 1.23456e6, 3.3e6, 9.9e6])
def test_mlr_is_frugal_on_a_capacity_cliff(capacity: float) -> None:
    dut = CapacityDut(capacity)
    result = search(dut, [NDR, PDR], MIN_LOAD, MAX_LOAD)
    full_length = [t for t in result.trials if t.duration >= 30.0]
    assert len(full_length) <= 2, result.describe()
    assert len(result.trials) <= 7, result.describe()
    assert_true_bounds(result, dut)


@pytest.mark.parametrize("overstatement", [0.3, 1.0, 2.0])
def test_mlr_lower_bounds_hold_when_short_trials_overstate_capacity(overstatement: float) -> None:
    # A 1 s trial hides ``overstatement`` x 3 Mframes in the buffer: short trials
    # pass up to (1 + overstatement) x 3 Mfps, 30 s trials only up to 1/30 of that
    # excess above 3 Mfps.
    dut = BufferDut(3e6, overstatement * 3e6)
    short_edge = threshold(dut.measure, 1.0, 0.0, MIN_LOAD, MAX_LOAD)
    final_edge = threshold(dut.measure, 30.0, 0.0, MIN_LOAD, MAX_LOAD)
    assert short_edge > (1.0 + overstatement * 0.9) * final_edge
    result = search(dut, [NDR, PDR], MIN_LOAD, MAX_LOAD)
    assert any(t.duration < 30.0 for t in result.trials)  # short trials were used
    assert_true_bounds(result, dut)


@pytest.mark.parametrize("dut", [CapacityDut(2e6), LossCurveDut(2e6, 0.5, 2.0), StepDut(2e6)])
def test_mlr_measures_exactly_what_it_reports_within_the_load_range(
    dut: CapacityDut | LossCurveDut | StepDut,
) -> None:
    recorder = RecordingMeasurer(dut)
    result = search(recorder, [NDR, PDR, CSIT_NDR], MIN_LOAD, MAX_LOAD)
    assert recorder.calls == inputs(result)
    assert all(MIN_LOAD <= load <= MAX_LOAD for _, load in recorder.calls)
    assert_true_bounds(result, dut)


def test_mlr_shares_every_trial_between_goals() -> None:
    # On a step the NDR and PDR thresholds coincide: the PDR result can come
    # from trials the NDR goal nominated.
    dut = StepDut(3.3e6)
    result = search(dut, [NDR, PDR], MIN_LOAD, MAX_LOAD)
    ndr, pdr = result.goal_results
    assert (pdr.lower_bound, pdr.upper_bound) == (ndr.lower_bound, ndr.upper_bound)
    nominated_by_pdr = {t.load for t in result.trials if t.reason and t.reason.goal == 1}
    assert not {pdr.lower_bound, pdr.upper_bound} <= nominated_by_pdr
    for goal, res in zip((NDR, PDR), result.goal_results, strict=True):
        assert (res.lower_bound, res.upper_bound) == rfc_bounds(result.trials, goal)
    assert_true_bounds(result, dut)


def test_mlr_csit_goals_use_the_duration_sum() -> None:
    dut = CapacityDut(4.2e6)
    result = search(dut, [CSIT_NDR, CSIT_PDR], MIN_LOAD, MAX_LOAD)
    assert_true_bounds(result, dut)
    for res in result.goal_results:
        assert res.lower_bound is not None
        at_lower = [t for t in result.trials if t.load == res.lower_bound]
        assert sum(t.duration for t in at_lower if t.loss_ratio <= res.goal.loss_ratio) >= 11.0
        assert res.conditional_throughput == pytest.approx(
            res.lower_bound * (1.0 - dut.measure(1.0, res.lower_bound).loss_ratio)
        )


def test_mlr_gives_up_after_max_trials(monkeypatch: pytest.MonkeyPatch) -> None:
    import ndrpdr.search.mlr.controller as mlr_module

    monkeypatch.setattr(mlr_module, "MAX_TRIALS", 2)
    with pytest.raises(SearchError, match="did not converge in 2 trials"):
        search(CapacityDut(3e6), [NDR, PDR], MIN_LOAD, MAX_LOAD)


def test_mlr_converges_on_a_small_loss_step() -> None:
    # The 30 s probe at max load (0.1 % loss) is full-length for the 8 s goal too.
    goals = [
        Goal(
            loss_ratio=0.005,
            initial_trial_duration=30.0,
            final_trial_duration=30.0,
            duration_sum=30.0,
        ),
        Goal(loss_ratio=0.0, final_trial_duration=8.0, duration_sum=168.0),
    ]
    dut = StepDut(6512.671799957982, 0.001)
    # 4000 s of trials: about 45 loads at 88 s each; bisecting 1e3..1e6 takes ~10.
    result = search(dut, goals, 1e3, 1e6, max_search_time=4000.0)
    pdr, ndr = result.goal_results
    assert pdr.lower_bound == 1e6
    assert ndr.regular
    assert ndr.lower_bound is not None
    assert dut.capacity * (1.0 - 0.005) <= ndr.lower_bound <= dut.capacity


@pytest.mark.parametrize("capacity", [1000.0, 1002.0, 1004.9])
def test_mlr_wide_goal_near_min_load_gets_a_lower_bound(capacity: float) -> None:
    # The wider goal's width spans several grid steps of the narrower one; its
    # upper bound lands within one width of the min load, which still has to
    # be measured for the wider goal's duration sum.
    narrow = Goal(loss_ratio=0.0, exceed_ratio=0.0, duration_sum=1.0)
    wide = Goal(loss_ratio=0.0, exceed_ratio=0.0, relative_width=0.03125, duration_sum=2.0)
    result = search(CapacityDut(capacity), [narrow, wide], 1000.0, 1e6)
    for res in result.goal_results:
        assert res.lower_bound == 1000.0
        assert res.regular


def test_mlr_wide_goal_reports_min_load_as_upper_bound() -> None:
    narrow = Goal(loss_ratio=0.0, exceed_ratio=0.0, duration_sum=1.0)
    wide = Goal(loss_ratio=0.0, exceed_ratio=0.5, relative_width=0.05, duration_sum=2.0)
    result = search(AlwaysLosesDut(), [narrow, wide], 1000.0, 1e6)
    for res in result.goal_results:
        assert res.upper_bound == 1000.0
        assert res.irregular_reason == "min load is an upper bound"


def test_mlr_load_range_narrower_than_the_goal_width() -> None:
    goal = Goal(loss_ratio=0.0, exceed_ratio=0.0, duration_sum=1.0)
    passing = search(CapacityDut(1000.5), [goal], 1000.0, 1001.0)
    assert (passing.goal_results[0].lower_bound, passing.goal_results[0].upper_bound) == (
        1000.0,
        1001.0,
    )
    failing = search(AlwaysLosesDut(), [goal], 1000.0, 1001.0)
    assert failing.goal_results[0].irregular_reason == "min load is an upper bound"


# -- binary and bswlv -------------------------------------------------------------------


def replay_bisection(result: SearchResult, goal_index: int) -> list[list[TrialResult]]:
    """Check that one goal's trials are a binary search at the final duration with
    arithmetic midpoints between hard bounds; return them grouped per load."""
    res = result.goal_results[goal_index]
    goal = res.goal
    groups: list[list[TrialResult]] = []
    for trial in result.trials:
        if trial.reason is None or trial.reason.goal != goal_index:
            continue
        assert trial.duration == goal.final_trial_duration
        if groups and groups[-1][0].load == trial.load:
            groups[-1].append(trial)  # a verification repeat (bswlv)
        else:
            groups.append([trial])
    lower: float | None = None
    upper: float | None = None
    for group in groups:
        load = group[0].load
        if upper is None:
            assert lower is None and load == MAX_LOAD
        else:
            middle = ((MIN_LOAD if lower is None else lower) + upper) / 2.0
            assert load == middle or (lower is None and load == MIN_LOAD)
        if any(t.loss_ratio <= goal.loss_ratio for t in group):
            lower = load
        else:
            upper = load
    assert (res.lower_bound, res.upper_bound) == (lower, upper)
    return groups


@pytest.mark.parametrize("capacity", [2.2e4, 1.5e6, 3.3e6, 7.7e6])
def test_binary_bisects_at_final_duration(capacity: float) -> None:
    goal = Goal(
        loss_ratio=0.0,
        exceed_ratio=0.0,
        relative_width=0.005,
        initial_trial_duration=1.0,
        final_trial_duration=60.0,
        duration_sum=60.0,
    )
    dut = CapacityDut(capacity)
    result = search(dut, [goal], MIN_LOAD, MAX_LOAD, "binary")
    groups = replay_bisection(result, 0)
    assert len(groups) == len(result.trials)
    expected = 1 + math.log2((MAX_LOAD - MIN_LOAD) / (goal.relative_width * capacity))
    assert abs(len(result.trials) - expected) <= 2
    assert_true_bounds(result, dut)


def test_binary_searches_each_goal_on_its_own() -> None:
    result = search(CapacityDut(3.3e6), [NDR, PDR], MIN_LOAD, MAX_LOAD, "binary")
    ndr_loads = [group[0].load for group in replay_bisection(result, 0)]
    pdr_loads = [group[0].load for group in replay_bisection(result, 1)]
    assert len(ndr_loads) + len(pdr_loads) == len(result.trials)
    assert ndr_loads[:3] == pdr_loads[:3]  # same start, measured again
    assert_true_bounds(result, CapacityDut(3.3e6))


@pytest.mark.parametrize("repeats", [1, 2, 3])
def test_bswlv_repeats_failing_loads(repeats: int) -> None:
    dut = StepDut(3.3e6)
    result = search(dut, [NDR, PDR], MIN_LOAD, MAX_LOAD, "bswlv", bswlv_repeats=repeats)
    for index in range(2):
        for group in replay_bisection(result, index):
            failed = group[0].loss_ratio > result.goal_results[index].goal.loss_ratio
            assert len(group) == (1 + repeats if failed else 1)
            assert [t.reason.strategy for t in group[1:] if t.reason] == ["repeat"] * (
                len(group) - 1
            )
    assert_true_bounds(result, dut)


@pytest.mark.parametrize("goals", [[NDR], [NDR, PDR]])
def test_bswlv_recovers_from_transient_failures_that_fool_binary(goals: list[Goal]) -> None:
    capacity = 3.3e6
    binary = search(TransientDut(capacity), goals, MIN_LOAD, MAX_LOAD, "binary")
    bswlv = search(TransientDut(capacity), goals, MIN_LOAD, MAX_LOAD, "bswlv", bswlv_repeats=1)
    for res in binary.goal_results:
        # Every first trial fails: binary walks all the way down to min load.
        assert res.upper_bound is not None
        assert res.upper_bound < capacity * (1.0 - res.goal.relative_width)
    for res in bswlv.goal_results:
        assert res.regular
        assert res.lower_bound is not None
        assert capacity * (1.0 - res.goal.relative_width) <= res.lower_bound <= capacity
    assert_true_bounds(bswlv, StepDut(capacity))


# -- limits -----------------------------------------------------------------------------


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_max_search_time_stops_before_the_cap(algorithm: str) -> None:
    goals = [
        Goal(loss_ratio=0.0, exceed_ratio=0.0, final_trial_duration=10.0, duration_sum=10.0),
        Goal(loss_ratio=0.01, exceed_ratio=0.0, final_trial_duration=10.0, duration_sum=10.0),
    ]
    full = search(CapacityDut(3e6), goals, MIN_LOAD, MAX_LOAD, algorithm)
    cap = full.search_time / 2.0 + 0.5
    recorder = RecordingMeasurer(CapacityDut(3e6))
    with pytest.raises(SearchTimeLimitError) as info:
        search(recorder, goals, MIN_LOAD, MAX_LOAD, algorithm, max_search_time=cap)
    partial = info.value.partial
    count = len(partial.trials)
    assert f"max_search_time={cap:g}" in str(info.value)
    assert count > 0
    assert partial.search_time <= cap
    assert len(recorder.calls) == count  # nothing measured beyond the cap
    assert inputs(partial) == inputs(full)[:count]
    assert partial.search_time + full.trials[count].duration > cap
    assert partial.algorithm == algorithm
    assert len(partial.goal_results) == 2


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_max_search_time_not_reached(algorithm: str) -> None:
    full = search(CapacityDut(3e6), [NDR], MIN_LOAD, MAX_LOAD, algorithm)
    capped = search(
        CapacityDut(3e6), [NDR], MIN_LOAD, MAX_LOAD, algorithm, max_search_time=full.search_time
    )
    assert inputs(capped) == inputs(full)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_max_search_time_counts_effective_durations(algorithm: str) -> None:
    # Every 10 s trial costs 15 effective seconds.
    goal = Goal(
        loss_ratio=0.0,
        exceed_ratio=0.0,
        initial_trial_duration=10.0,
        final_trial_duration=10.0,
        duration_sum=10.0,
    )
    full = search(OverheadDut(3e6, 5.0), [goal], MIN_LOAD, MAX_LOAD, algorithm)
    assert full.search_time == 15.0 * len(full.trials)
    cap = full.search_time - 1.0
    with pytest.raises(SearchTimeLimitError, match=f"max_search_time={cap:g}") as info:
        search(OverheadDut(3e6, 5.0), [goal], MIN_LOAD, MAX_LOAD, algorithm, max_search_time=cap)
    partial = info.value.partial
    assert 0 < len(partial.trials) < len(full.trials)
    assert partial.search_time <= cap


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_max_wall_time_reads_the_injected_clock(algorithm: str) -> None:
    goals = [NDR, PDR]
    timed = ClockedDut(3e6)
    full = search(timed, goals, MIN_LOAD, MAX_LOAD, algorithm, clock=timed.clock)
    assert full.wall_time == timed.now == full.search_time
    starts = [sum(t.duration for t in full.trials[:k]) for k in range(len(full.trials))]
    cap = starts[-1] - 0.5  # the last trial would start too late
    expected = sum(1 for start in starts if start <= cap)
    assert expected > 0
    timed = ClockedDut(3e6)
    with pytest.raises(SearchTimeLimitError, match=f"max_wall_time={cap:g}") as info:
        search(timed, goals, MIN_LOAD, MAX_LOAD, algorithm, clock=timed.clock, max_wall_time=cap)
    partial = info.value.partial
    assert len(partial.trials) == expected
    assert partial.wall_time == timed.now == starts[expected]
    assert inputs(partial) == inputs(full)[:expected]


# -- progress and output ----------------------------------------------------------------


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_progress_sees_every_trial_once_in_order(algorithm: str) -> None:
    seen: list[SearchProgress] = []
    result = search(
        LossCurveDut(2e6, 1.0, 1.0), [NDR, PDR], MIN_LOAD, MAX_LOAD, algorithm, progress=seen.append
    )
    assert len(seen) == len(result.trials)
    assert [p.trial_number for p in seen] == list(range(1, len(result.trials) + 1))
    assert all(p.trial is t for p, t in zip(seen, result.trials, strict=True))
    assert all(p.trial.reason is not None for p in seen)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_progress_bounds_are_the_relevant_bounds_of_the_trials_so_far(algorithm: str) -> None:
    goals = [CSIT_NDR, CSIT_PDR]
    seen: list[SearchProgress] = []
    search(LossCurveDut(2e6, 1.0, 1.0), goals, MIN_LOAD, MAX_LOAD, algorithm, progress=seen.append)
    db = TrialDatabase([goal_criterion(g) for g in goals])
    spent = 0.0
    for snapshot in seen:
        db.add(snapshot.trial)
        spent += snapshot.trial.effective_seconds
        assert [g.goal for g in snapshot.goals] == goals
        expected = [db.relevant_bounds(i) for i in range(len(goals))]
        assert [(g.lower, g.upper) for g in snapshot.goals] == expected
        assert snapshot.search_time == pytest.approx(spent)
    last = seen[-1].goals
    if algorithm == "mlr":  # mlr stops once every goal's bracket is narrow enough
        assert all(g.done for g in last)
    # One 1 s trial settles no load when 21 s of full-length trials are needed.
    assert all(g.lower is None and g.upper is None for g in seen[0].goals)


def test_goal_progress_width_and_done() -> None:
    goal = Goal(loss_ratio=0.0, relative_width=0.01)
    assert GoalProgress(goal, None, 2.0).width is None
    assert not GoalProgress(goal, 1.0, None).done
    assert GoalProgress(goal, 1.0, 1.5).width == pytest.approx(0.5)
    assert not GoalProgress(goal, 1.0, 1.5).done
    assert GoalProgress(goal, 0.995, 1.0).done


def test_progress_sees_trials_of_an_aborted_search() -> None:
    seen: list[SearchProgress] = []
    cap = search(CapacityDut(3e6), [NDR], MIN_LOAD, MAX_LOAD).search_time - 0.5
    with pytest.raises(SearchTimeLimitError) as info:
        search(
            CapacityDut(3e6), [NDR], MIN_LOAD, MAX_LOAD, max_search_time=cap, progress=seen.append
        )
    assert [p.trial for p in seen] == list(info.value.partial.trials)


def test_describe_names_every_goal_and_its_bounds() -> None:
    never = search(NeverLosesDut(), [NDR], MIN_LOAD, MAX_LOAD)
    assert "max load is a lower bound" in never.describe()
    dut = CapacityDut(3.3e6)
    result = search(dut, [NDR, PDR], MIN_LOAD, MAX_LOAD)
    lines = result.describe().splitlines()
    assert lines[0].startswith(f"mlr: {len(result.trials)} trials")
    assert f"{result.search_time:.1f} s" in lines[0]
    assert len(lines) == 3
    for index, res in enumerate(result.goal_results):
        line = lines[index + 1]
        assert line.startswith(f"goal {index} ({res.goal.describe()})")
        assert res.lower_bound is not None and res.upper_bound is not None
        assert f"lower {res.lower_bound:.6g}" in line
        assert f"upper {res.upper_bound:.6g}" in line
        assert f"conditional throughput {res.conditional_throughput:.6g}" in line
        assert "irregular" not in line
    failing = search(AlwaysLosesDut(), [NDR], MIN_LOAD, MAX_LOAD)
    text = failing.describe()
    assert "lower none" in text
    assert f"upper {MIN_LOAD:.6g}" in text
    assert "conditional throughput not computed" in text
    assert "[irregular: min load is an upper bound]" in text
