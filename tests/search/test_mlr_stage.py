"""The short and final stages' strategies, each on its own: a state that makes
it nominate (and what), and one that makes it decline."""

from __future__ import annotations

import dataclasses
import json

import pytest
from mlr_states import TOP, bounds, measured, planned, state, track

from ndrpdr.search.mlr import stage as rules
from ndrpdr.search.mlr.names import Direction, Expect, Phase, Rule, Stage
from ndrpdr.search.mlr.plan import Plan
from ndrpdr.search.mlr.state import MlrState
from ndrpdr.search.mlr.strategy import Handover, Nomination, Strategy, select
from ndrpdr.search.mlr.view import BoundsView


def _last(index: int, phase: Phase, rule: Rule, hint: int | None = None, span: int = 0) -> Plan:
    return Plan(index, 1.0, phase, rule, None, "", hint, span)


def test_names_print_as_their_words() -> None:
    assert str(Rule.EXPECT_PASS) == "expect-pass"
    assert f"{Phase.SCOUT}/{Rule.KNEE_FIT}" == "scout/knee-fit"
    assert json.dumps([Stage.FINAL, Rule.BISECT_GROWN]) == '["final", "bisect-grown"]'
    assert Rule.EXPAND_UP.grown is Rule.EXPAND_UP_GROWN
    assert Stage.SHORT.phase is Phase.SHORT
    with pytest.raises(ValueError):
        _ = Rule.CONTINUE.grown  # never grows


def test_select_takes_the_first_nomination_and_stops_at_a_handover() -> None:
    class Fixed(Strategy[int]):
        def __init__(self, nomination: Nomination) -> None:
            self.nomination = nomination

        def nominate(self, view: int) -> Nomination:
            return self.nomination

    first = _last(1, Phase.FINAL, Rule.BISECT)
    second = _last(2, Phase.FINAL, Rule.BISECT)
    assert select([Fixed(None), Fixed(first), Fixed(second)], 0) is first
    assert select([Fixed(None), Fixed(Handover.NEXT_STAGE), Fixed(second)], 0) is None
    assert select([Fixed(None)], 0) is None


def test_max_load_first_probes_for_all_goals_until_a_trial_exists() -> None:
    mlr = state()
    made = track(mlr, Stage.SHORT)
    plan = planned(rules.MaxLoadFirst().nominate(bounds(mlr, made, -1, TOP + 1, short=True)))
    assert (plan.index, plan.duration, plan.phase, plan.strategy) == (
        TOP,
        1.0,
        Phase.PROBE,
        Rule.PROBE,
    )
    assert (plan.detail, plan.span, plan.low, plan.high) == ("max load first", TOP + 2, -1, 0)
    measured(mlr, TOP, 0.5)
    assert rules.MaxLoadFirst().nominate(bounds(mlr, made, -1, TOP)) is None


def test_continue_load_repeats_the_last_undecided_load_of_its_phase() -> None:
    mlr = state()
    made = track(mlr, last_plan=_last(10, Phase.FINAL, Rule.EXPECT_PASS))
    assert rules.ContinueLoad().nominate(bounds(mlr, made, 5, 20)) is None  # nothing measured
    measured(mlr, 10, 0.0)
    plan = planned(rules.ContinueLoad().nominate(bounds(mlr, made, 5, 20)))
    assert (plan.index, plan.strategy, plan.duration) == (10, Rule.CONTINUE, 10.0)
    assert rules.ContinueLoad().nominate(bounds(mlr, made, 10, 20)) is None  # decided
    assert rules.ContinueLoad().nominate(bounds(mlr, made, 5, 20, short=True)) is None


def test_min_load_goes_straight_down_when_the_estimate_is_below_it() -> None:
    mlr = state()
    made = track(mlr)
    below = dataclasses.replace(bounds(mlr, made, -1, 20), threshold=0.9e5)
    plan = planned(rules.MinLoad().nominate(below))
    assert (plan.index, plan.strategy, plan.expect, plan.phase) == (
        0,
        Rule.MIN_LOAD,
        Expect.FAIL,
        Phase.FINAL,
    )
    assert rules.MinLoad().nominate(bounds(mlr, made, -1, 20, hint=5)) is None
    assert rules.MinLoad().nominate(dataclasses.replace(below, low=2)) is None


def _cliff_failures(mlr: MlrState, capacity: float, indices: tuple[int, ...]) -> None:
    """Short trials at ``indices`` of a DUT that forwards ``capacity`` at most."""
    for index in indices:
        measured(mlr, index, 1.0 - capacity / mlr.grid.load(index), duration=1.0)


def test_hint_verified_hands_over_once_the_estimate_survived_the_failure_above_it() -> None:
    mlr = state()
    made = track(mlr, Stage.SHORT, last_plan=_last(12, Phase.SHORT, Rule.EXPECT_FAIL, hint=10))
    view = bounds(mlr, made, 5, 12, hint=10, short=True)
    # A cliff: the failure just above the estimate forwarded what the max load did.
    _cliff_failures(mlr, 1.05 * mlr.grid.load(10), (TOP, 12))
    assert mlr.short_cliff(made)
    assert rules.HintVerified().nominate(view) is Handover.NEXT_STAGE
    assert select(rules.SHORT_STAGE, view) is None
    moved = bounds(mlr, made, 5, 12, hint=11, short=True)
    assert rules.HintVerified().nominate(moved) is None
    assert rules.HintVerified().nominate(bounds(mlr, made, 5, 20, hint=10, short=True)) is None
    made.short_reopened = True  # a full-length trial refuted a hand-over before
    assert rules.HintVerified().nominate(view) is None


def test_hint_verified_waits_for_a_pass_on_a_plateau_of_small_loss() -> None:
    """Failures that forwarded nearly all they were offered (0.3 % lost at each
    load) say nothing of where the loss stops: no hand-over, and the short
    stage tries the estimate (expecting it to pass) instead."""
    mlr = state()
    last = _last(12, Phase.SHORT, Rule.EXPECT_FAIL, hint=10, span=20)  # it halved the bracket
    made = track(mlr, Stage.SHORT, last_plan=last)
    for index in (TOP, 12):
        measured(mlr, index, 0.003 + 0.01, duration=1.0)  # above the goal's 1 %
    assert not mlr.short_cliff(made)
    view = bounds(mlr, made, 5, 12, hint=10, short=True)
    assert rules.HintVerified().nominate(view) is None
    plan = planned(select(rules.SHORT_STAGE, view))
    assert (plan.index, plan.strategy, plan.expect) == (10, Rule.EXPECT_PASS, Expect.PASS)
    # One failure alone is no cliff either.
    lone = state()
    _cliff_failures(lone, 1.05 * lone.grid.load(10), (12,))
    assert not lone.short_cliff(track(lone, Stage.SHORT))


def test_stalled_bisect_halves_a_bracket_the_estimate_did_not_halve() -> None:
    mlr = state()
    made = track(mlr, Stage.SHORT, last_plan=_last(3, Phase.SHORT, Rule.EXPECT_FAIL, span=20))
    plan = planned(rules.StalledBisect().nominate(bounds(mlr, made, 2, 20, hint=4, short=True)))
    assert (plan.index, plan.strategy, plan.expect) == (11, Rule.BISECT, None)
    made.last_plan = _last(3, Phase.SHORT, Rule.EXPECT_FAIL, span=40)  # halved: not stalled
    assert rules.StalledBisect().nominate(bounds(mlr, made, 2, 20, short=True)) is None
    made.last_plan = _last(3, Phase.SHORT, Rule.BISECT, span=20)  # not estimate-guided
    assert rules.StalledBisect().nominate(bounds(mlr, made, 2, 20, short=True)) is None
    # Once a short trial at the estimate failed, it bisects whatever the last trial did.
    made.short_misses = 1
    plan = planned(rules.StalledBisect().nominate(bounds(mlr, made, 2, 20, hint=18, short=True)))
    assert (plan.index, plan.strategy) == (11, Rule.BISECT)
    assert rules.StalledBisect().nominate(bounds(mlr, made, 2, 8, hint=7, short=True)) is None


def test_confirm_below_upper_tries_an_estimate_within_a_width_of_the_failure() -> None:
    mlr = state()
    made = track(mlr, Stage.SHORT)
    plan = planned(
        rules.ConfirmBelowUpper().nominate(bounds(mlr, made, 5, 12, hint=10, short=True))
    )
    assert (plan.index, plan.strategy, plan.expect) == (10, Rule.EXPECT_PASS, Expect.PASS)
    assert rules.ConfirmBelowUpper().nominate(bounds(mlr, made, 5, 12, 8, short=True)) is None


def test_one_width_above_brackets_the_estimate_from_above() -> None:
    mlr = state()
    made = track(mlr, Stage.SHORT)
    plan = planned(rules.OneWidthAbove().nominate(bounds(mlr, made, 5, 20, hint=10, short=True)))
    assert (plan.index, plan.strategy, plan.expect) == (13, Rule.EXPECT_FAIL, Expect.FAIL)
    assert rules.OneWidthAbove().nominate(bounds(mlr, made, 5, 20, hint=17, short=True)) is None
    assert rules.OneWidthAbove().nominate(bounds(mlr, made, 5, 20, short=True)) is None


def test_step_down_past_misses_steps_geometrically_after_two_contradictions() -> None:
    mlr = state()
    made = track(mlr, pass_misses=3)
    plan = planned(rules.StepDownPastMisses().nominate(bounds(mlr, made, -1, 20, hint=15)))
    assert (plan.index, plan.strategy, plan.expect) == (20 - 3 * 4, Rule.EXPAND_DOWN, Expect.PASS)
    # With a lower bound: bisection, but never above the estimate.
    assert planned(rules.StepDownPastMisses().nominate(bounds(mlr, made, 5, 20, 15))).index == 12
    assert planned(rules.StepDownPastMisses().nominate(bounds(mlr, made, 5, 20, 9))).index == 9
    made.pass_misses = 1
    assert rules.StepDownPastMisses().nominate(bounds(mlr, made, -1, 20, hint=15)) is None


def test_below_upper_steps_down_once_a_full_length_fail_expected_passed() -> None:
    mlr = state()
    made = track(mlr)
    rule = rules.BelowUpperOnceRefuted()
    assert rule.nominate(bounds(mlr, made, 8, 20, hint=8)) is None  # no refutation yet
    mlr.refuted_fail = True
    plan = planned(rule.nominate(bounds(mlr, made, 8, 20, hint=8)))
    assert (plan.index, plan.strategy, plan.expect, plan.duration) == (
        17,
        Rule.BELOW_UPPER,
        Expect.PASS,
        10.0,
    )
    # Whatever the estimate says, and again after a failed step down.
    assert planned(rule.nominate(bounds(mlr, made, 8, 17, hint=12))).index == 14
    # Declines: a bracket within two widths (bisection's and the estimate's
    # job), no lower or no upper bound.
    assert rule.nominate(bounds(mlr, made, 11, 17)) is None
    assert rule.nominate(bounds(mlr, made, 8, TOP + 1)) is None
    assert rule.nominate(bounds(mlr, made, -1, 17)) is None
    # In the final stage's ladder: after the step down past two misses.
    measured(mlr, TOP, 0.5, duration=1.0)
    made.pass_misses = 2
    assert planned(select(rules.FINAL_STAGE, bounds(mlr, made, 3, 20, 12))).index == 11
    made.pass_misses = 0
    assert planned(select(rules.FINAL_STAGE, bounds(mlr, made, 3, 20, 12))).index == 17


def test_at_estimate_tries_the_estimate_between_the_bounds() -> None:
    mlr = state()
    made = track(mlr)
    plan = planned(rules.AtEstimate().nominate(bounds(mlr, made, 5, 20, hint=10)))
    assert (plan.index, plan.strategy, plan.expect, plan.hint) == (
        10,
        Rule.EXPECT_PASS,
        Expect.PASS,
        10,
    )
    assert rules.AtEstimate().nominate(bounds(mlr, made, 5, 20, hint=5)) is None
    assert rules.AtEstimate().nominate(bounds(mlr, made, 5, 20)) is None


def test_above_lower_bound_goes_one_width_up_from_an_estimate_on_the_lower_bound() -> None:
    mlr = state()
    made = track(mlr, Stage.SHORT)
    plan = planned(rules.AboveLowerBound().nominate(bounds(mlr, made, 5, 20, hint=5, short=True)))
    assert (plan.index, plan.strategy, plan.expect) == (8, Rule.EXPECT_FAIL, Expect.FAIL)
    top = planned(rules.AboveLowerBound().nominate(bounds(mlr, made, 21, TOP + 1, 21, short=True)))
    assert top.index == TOP
    assert rules.AboveLowerBound().nominate(bounds(mlr, made, 5, 20, hint=6, short=True)) is None


def test_bisect_halves_below_an_upper_bound_without_an_estimate() -> None:
    mlr = state()
    made = track(mlr)
    plan = planned(rules.Bisect().nominate(bounds(mlr, made, -1, 20)))
    assert (plan.index, plan.strategy, plan.expect) == (9, Rule.BISECT, None)
    assert planned(rules.Bisect().nominate(bounds(mlr, made, 4, 20))).index == 12
    assert rules.Bisect().nominate(bounds(mlr, made, 4, TOP + 1)) is None  # no upper bound
    assert rules.Bisect().nominate(bounds(mlr, made, 4, 12, hint=15)) is None  # stale estimate


def test_probe_max_load_without_either_bound() -> None:
    mlr = state()
    made = track(mlr)
    measured(mlr, TOP, 0.0, duration=1.0)  # a trial exists, but not at full length
    plan = planned(rules.ProbeMaxLoad().nominate(bounds(mlr, made, -1, TOP + 1)))
    assert (plan.index, plan.strategy, plan.phase) == (TOP, Rule.PROBE, Phase.FINAL)
    assert rules.ProbeMaxLoad().nominate(bounds(mlr, made, 3, TOP + 1)) is None


def test_expand_down_one_width_below_the_upper_bound_without_a_lower_bound() -> None:
    mlr = state()
    made = track(mlr)
    plan = planned(rules.ExpandDown().nominate(bounds(mlr, made, -1, 20)))
    assert (plan.index, plan.strategy, plan.expect) == (17, Rule.EXPAND_DOWN, Expect.PASS)
    assert planned(rules.ExpandDown().nominate(bounds(mlr, made, -1, 2))).index == 0
    assert rules.ExpandDown().nominate(bounds(mlr, made, 3, 20)) is None


def test_expand_up_one_width_above_the_lower_bound_is_the_last_resort() -> None:
    mlr = state()
    made = track(mlr, Stage.SHORT)
    plan = planned(rules.ExpandUp().nominate(bounds(mlr, made, 5, TOP + 1, short=True)))
    assert (plan.index, plan.strategy, plan.expect) == (8, Rule.EXPAND_UP, Expect.FAIL)
    assert (
        planned(rules.ExpandUp().nominate(bounds(mlr, made, 21, TOP + 1, short=True))).index == TOP
    )


def test_steps_grow_while_a_bound_keeps_moving_one_way() -> None:
    mlr = state()
    made = track(mlr, Stage.SHORT, direction=Direction.UP, run=1)
    # The short stage grows its steps from the second move on (one width
    # after one move), doubling per move: 2 moves 2 widths, 3 moves 4.
    short = planned(rules.ExpandUp().nominate(bounds(mlr, made, 5, TOP + 1, short=True)))
    assert (short.index, short.strategy) == (8, Rule.EXPAND_UP)
    made.run = 2
    short = planned(rules.ExpandUp().nominate(bounds(mlr, made, 5, TOP + 1, short=True)))
    assert (short.index, short.strategy) == (5 + 3 * 2, Rule.EXPAND_UP_GROWN)
    made.run = 3
    short = planned(rules.ExpandUp().nominate(bounds(mlr, made, 5, TOP + 1, short=True)))
    assert (short.index, short.strategy) == (5 + 3 * 4, Rule.EXPAND_UP_GROWN)
    # The final stage from the third move on.
    made.stage = Stage.FINAL
    mlr.trust_short = False  # no short trial settles the upper bound
    plan = planned(rules.ExpandUp().nominate(bounds(mlr, made, 5, TOP + 1)))
    assert (plan.index, plan.strategy, plan.duration) == (5 + 3 * 2, Rule.EXPAND_UP_GROWN, 10.0)


def test_final_stage_takes_a_short_trial_where_its_failure_settles_an_upper_bound() -> None:
    mlr = state()
    made = track(mlr)
    view: BoundsView = bounds(mlr, made, 5, TOP + 1)
    # Exceed ratio 0: one high-loss trial of any length makes an upper bound.
    assert planned(rules.ExpandUp().nominate(view)).duration == 1.0
    assert planned(rules.ExpandDown().nominate(bounds(mlr, made, -1, 20))).duration == 10.0
    mlr.trust_short = False
    assert planned(rules.ExpandUp().nominate(view)).duration == 10.0
    mlr.trust_short = True
    measured(mlr, 8, 0.0, duration=1.0)  # a short trial there already
    assert planned(rules.ExpandUp().nominate(view)).duration == 10.0


def test_stage_ladders_ask_in_priority_order() -> None:
    mlr = state()
    made = track(mlr, Stage.SHORT)
    # Before any trial, whatever else holds, the max load is probed.
    assert (
        planned(select(rules.SHORT_STAGE, bounds(mlr, made, 5, 20, 10, True))).phase is Phase.PROBE
    )
    measured(mlr, TOP, 0.5, duration=1.0)
    near = bounds(mlr, made, 5, 12, hint=10, short=True)
    assert planned(select(rules.SHORT_STAGE, near)).strategy is Rule.EXPECT_PASS
    # The final stage has no "one width above the estimate": the estimate itself.
    assert planned(select(rules.FINAL_STAGE, bounds(mlr, made, 5, 20, 10))).index == 10
    assert planned(select(rules.SHORT_STAGE, bounds(mlr, made, 5, 20, 10, True))).index == 13


def test_a_track_moves_short_scout_final_and_its_moves_start_afresh() -> None:
    mlr = state()
    made = track(mlr, Stage.SHORT, direction=Direction.UP, run=3)
    made.next_stage()
    assert (made.stage, made.direction, made.run) == (Stage.SCOUT, None, 0)
    made.next_stage()
    assert made.stage is Stage.FINAL
    made.stage, made.scout_criterion = Stage.SHORT, None  # no scout stage: straight to final
    made.next_stage()
    assert made.stage is Stage.FINAL
