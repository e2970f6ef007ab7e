"""The scout stage's strategies, each on its own: a state that makes it
nominate (and what), and one that makes it decline."""

from __future__ import annotations

import dataclasses

from mlr_states import TOP, WIDTH, measured, planned, scout, state, track

from ndrpdr.search.mlr import scout as rules
from ndrpdr.search.mlr.names import Direction, Expect, Phase, Rule, Stage
from ndrpdr.search.mlr.plan import Plan
from ndrpdr.search.mlr.strategy import select


def _noisy() -> list[tuple[int, float]]:
    """Full-length trials that pass and fail at random around grid index 11."""
    return [(8, 0.0), (8, 0.0), (10, 0.0), (10, 0.5), (12, 0.0), (12, 0.5), (14, 0.5), (14, 0.5)]


def test_continue_final_and_continue_scout_each_finish_their_own_phase_load() -> None:
    mlr = state()
    made = track(
        mlr, Stage.SCOUT, last_plan=Plan(10, 10.0, Phase.SCOUT, Rule.BISECT, None, "", None, 9)
    )
    measured(mlr, 10, 0.0)
    assert rules.ContinueFinal().nominate(scout(mlr, made, 5, 15)) is None
    plan = planned(rules.ContinueScout().nominate(scout(mlr, made, 5, 15)))
    assert (plan.index, plan.phase, plan.strategy) == (10, Phase.SCOUT, Rule.CONTINUE)
    assert rules.ContinueScout().nominate(scout(mlr, made, 10, 15)) is None  # decided
    made.last_plan = Plan(10, 10.0, Phase.FINAL, Rule.SCOUTED_MIDDLE, None, "", None, 9)
    final = planned(rules.ContinueFinal().nominate(scout(mlr, made, 5, 15, low=2, high=18)))
    assert (final.index, final.phase, final.strategy) == (10, Phase.FINAL, Rule.CONTINUE)
    assert rules.ContinueScout().nominate(scout(mlr, made, 5, 15)) is None


def test_min_load_final_measures_the_min_load_for_the_goal_itself() -> None:
    mlr = state()
    made = track(mlr, Stage.SCOUT)
    below = dataclasses.replace(scout(mlr, made, -1, 12, high=12), threshold=0.9e5)
    plan = planned(rules.MinLoadFinal().nominate(below))
    assert (plan.index, plan.phase, plan.strategy, plan.expect, plan.duration) == (
        0,
        Phase.FINAL,
        Rule.MIN_LOAD,
        Expect.FAIL,
        10.0,
    )
    assert rules.MinLoadFinal().nominate(dataclasses.replace(below, low=3)) is None
    assert rules.MinLoadFinal().nominate(scout(mlr, made, -1, 12, high=12, hint=5)) is None
    measured(mlr, 0, 0.5, duration=1.0)  # the min load is an upper bound already
    assert rules.MinLoadFinal().nominate(below) is None


def test_scout_start_begins_at_the_estimate_or_near_the_short_stages_bounds() -> None:
    mlr = state()
    made = track(mlr, Stage.SCOUT)
    plan = planned(rules.ScoutStart().nominate(scout(mlr, made, -1, TOP + 1, hint=10)))
    assert (plan.index, plan.phase, plan.strategy, plan.expect) == (
        10,
        Phase.SCOUT,
        Rule.SCOUT_START,
        None,
    )
    # Without an estimate: one goal width below the short stage's upper bound.
    measured(mlr, 15, 0.5, duration=1.0)
    assert planned(rules.ScoutStart().nominate(scout(mlr, made, -1, TOP + 1))).index == 15 - WIDTH
    mlr.trust_short = False  # neither then: the max load
    assert planned(rules.ScoutStart().nominate(scout(mlr, made, -1, TOP + 1))).index == TOP
    assert rules.ScoutStart().nominate(scout(mlr, made, 3, TOP + 1, hint=10)) is None


def test_scout_at_estimate_needs_a_smooth_loss_curve() -> None:
    mlr = state()
    made = track(mlr, Stage.SCOUT)
    view = scout(mlr, made, 2, 20, hint=10)
    assert rules.ScoutAtEstimate().nominate(view) is None  # nothing lost a little yet
    measured(mlr, 3, 0.005)
    plan = planned(rules.ScoutAtEstimate().nominate(view))
    assert (plan.index, plan.phase, plan.strategy) == (10, Phase.SCOUT, Rule.EXPECT_PASS)
    assert rules.ScoutAtEstimate().nominate(scout(mlr, made, 2, 20, hint=2)) is None
    assert rules.ScoutAtEstimate().nominate(scout(mlr, made, 2, 6, hint=4)) is None  # narrow


def test_scout_above_estimate_goes_one_width_up_from_an_estimate_on_the_lower_bound() -> None:
    mlr = state()
    made = track(mlr, Stage.SCOUT)
    measured(mlr, 2, 0.005)
    plan = planned(rules.ScoutAboveEstimate().nominate(scout(mlr, made, 2, 20, hint=2)))
    assert (plan.index, plan.strategy) == (2 + WIDTH, Rule.EXPECT_FAIL)
    assert rules.ScoutAboveEstimate().nominate(scout(mlr, made, 2, 20, hint=3)) is None
    assert rules.ScoutAboveEstimate().nominate(scout(mlr, made, 2, TOP + 1, hint=None)) is None


def test_scout_expand_up_doubles_its_step_while_the_lower_bound_keeps_rising() -> None:
    mlr = state()
    made = track(mlr, Stage.SCOUT)
    plan = planned(rules.ScoutExpandUp().nominate(scout(mlr, made, 2, TOP + 1)))
    assert (plan.index, plan.strategy) == (2 + WIDTH, Rule.EXPAND_UP)
    made.direction, made.run = Direction.UP, 3
    assert (
        planned(rules.ScoutExpandUp().nominate(scout(mlr, made, 2, TOP + 1))).index == 2 + 4 * WIDTH
    )
    made.direction = Direction.DOWN  # moving the other way: one width again
    assert planned(rules.ScoutExpandUp().nominate(scout(mlr, made, 2, TOP + 1))).index == 2 + WIDTH
    assert rules.ScoutExpandUp().nominate(scout(mlr, made, 2, 20)) is None


def test_scout_expand_down_from_the_upper_bound_without_a_lower_bound() -> None:
    mlr = state()
    made = track(mlr, Stage.SCOUT, direction=Direction.DOWN, run=2)
    plan = planned(rules.ScoutExpandDown().nominate(scout(mlr, made, -1, 15)))
    assert (plan.index, plan.strategy) == (15 - 2 * WIDTH, Rule.EXPAND_DOWN)
    assert planned(rules.ScoutExpandDown().nominate(scout(mlr, made, -1, 2))).index == 0  # clamped
    assert rules.ScoutExpandDown().nominate(scout(mlr, made, 1, 15)) is None


def test_scout_bisect_halves_a_wide_scout_bracket_only() -> None:
    mlr = state()
    made = track(mlr, Stage.SCOUT)
    plan = planned(rules.ScoutBisect().nominate(scout(mlr, made, 2, 20)))
    assert (plan.index, plan.phase, plan.strategy, plan.span) == (11, Phase.SCOUT, Rule.BISECT, 18)
    assert rules.ScoutBisect().nominate(scout(mlr, made, 2, 2 + 2 * WIDTH)) is None


def test_knee_fit_goes_to_the_fitted_knee_once_trials_show_noise() -> None:
    mlr = state()
    made = track(mlr, Stage.SCOUT)
    assert rules.KneeFit().nominate(scout(mlr, made, 2, 20)) is None  # no noise yet
    for index, loss in _noisy():
        measured(mlr, index, loss)
    knee = mlr.knee_index(made)
    assert knee is not None and 10 <= knee <= 13
    plan = planned(rules.KneeFit().nominate(scout(mlr, made, 2, 20)))
    assert (plan.index, plan.phase, plan.strategy) == (knee, Phase.SCOUT, Rule.KNEE_FIT)
    # Clamped into the scout bracket.
    assert planned(rules.KneeFit().nominate(scout(mlr, made, -1, 6))).index == 5
    assert rules.KneeFit().nominate(scout(mlr, made, 9, 9 + 2 * WIDTH)) is None  # narrow


def test_knee_fit_yields_to_an_expansion_that_went_further_after_a_long_walk() -> None:
    mlr = state()
    made = track(mlr, Stage.SCOUT, direction=Direction.UP, run=4)
    for index, loss in _noisy():
        measured(mlr, index, loss)
    view = scout(mlr, made, 0, TOP + 1)
    assert rules.KneeFit().nominate(view) is None
    assert planned(select(rules.SCOUT_STAGE, view)).strategy is Rule.EXPAND_UP
    made.run = 3  # not yet
    assert planned(rules.KneeFit().nominate(view)).strategy is Rule.KNEE_FIT
    made.run, made.direction = 4, Direction.DOWN  # the step would not go further
    assert planned(rules.KneeFit().nominate(view)).strategy is Rule.KNEE_FIT


def test_scouted_middle_asks_the_goal_itself_between_scout_bounds() -> None:
    mlr = state()
    made = track(mlr, Stage.SCOUT)
    plan = planned(
        rules.ScoutedMiddle().nominate(scout(mlr, made, 5, 5 + 2 * WIDTH, low=2, high=20))
    )
    assert (plan.index, plan.phase, plan.strategy, plan.expect) == (
        8,
        Phase.FINAL,
        Rule.SCOUTED_MIDDLE,
        None,
    )
    assert (plan.low, plan.high, plan.span) == (2, 20, 18)  # the goal's own bracket
    assert rules.ScoutedMiddle().nominate(scout(mlr, made, 5, 5 + WIDTH, low=2, high=20)) is None
    assert rules.ScoutedMiddle().nominate(scout(mlr, made, 5, 20, low=2, high=20)) is None


def test_scouted_lower_confirms_the_scouts_lower_bound_for_the_goal() -> None:
    mlr = state()
    made = track(mlr, Stage.SCOUT)
    plan = planned(rules.ScoutedLower().nominate(scout(mlr, made, 5, 8, low=2, high=20)))
    assert (plan.index, plan.phase, plan.strategy, plan.expect) == (
        5,
        Phase.FINAL,
        Rule.SCOUTED_LOWER,
        Expect.PASS,
    )
    made.direction, made.run = Direction.UP, rules.SCOUTED_GROW_AFTER_MOVES
    grown = planned(rules.ScoutedLower().nominate(scout(mlr, made, 5, 8, low=2, high=20)))
    assert (grown.index, grown.strategy) == (2 + 2 * WIDTH, Rule.SCOUTED_LOWER_GROWN)
    assert rules.ScoutedLower().nominate(scout(mlr, made, 2, 5, low=2, high=20)) is None
    assert rules.ScoutedLower().nominate(scout(mlr, made, 5, 19, low=2, high=20)) is None


def test_scouted_upper_confirms_the_scouts_upper_bound_for_the_goal() -> None:
    mlr = state()
    made = track(mlr, Stage.SCOUT)
    plan = planned(rules.ScoutedUpper().nominate(scout(mlr, made, 2, 5, low=2, high=20)))
    assert (plan.index, plan.phase, plan.strategy, plan.expect) == (
        5,
        Phase.FINAL,
        Rule.SCOUTED_UPPER,
        Expect.FAIL,
    )
    made.direction, made.run = Direction.DOWN, rules.SCOUTED_GROW_AFTER_MOVES
    grown = planned(rules.ScoutedUpper().nominate(scout(mlr, made, 12, 15, low=2, high=20)))
    assert (grown.index, grown.strategy) == (20 - 2 * WIDTH, Rule.SCOUTED_UPPER_GROWN)
    assert rules.ScoutedUpper().nominate(scout(mlr, made, 2, 19, low=2, high=20)) is None
