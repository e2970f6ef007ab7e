"""Edge cases that must end clearly: a raising measurer, surplus frames, trials sending nothing,
a DUT forwarding nothing."""

from __future__ import annotations

import dataclasses

import pytest
from search_duts import AlwaysLosesDut, CapacityDut

from ndrpdr.errors import NdrPdrError
from ndrpdr.search import (
    Goal,
    MeasurerFailedError,
    SearchIrregularError,
    SearchTimeLimitError,
    TrialResult,
    search,
)
from ndrpdr.search.trialnotes import is_sent_nothing_note, is_surplus_note

GOALS = [Goal(loss_ratio=0.0, duration_sum=2.0), Goal(loss_ratio=0.005, duration_sum=2.0)]


class FailingAt:
    """``inner``'s trials until trial ``fail_at`` (1-based), which raises ``error``."""

    def __init__(self, fail_at: int, error: BaseException) -> None:
        self.inner = CapacityDut(50.0)
        self.fail_at, self.error, self.calls = fail_at, error, 0

    def measure(self, duration: float, load: float) -> TrialResult:
        self.calls += 1
        if self.calls == self.fail_at:
            raise self.error
        return self.inner.measure(duration, load)


class KnownTgError(NdrPdrError):
    """A known failure of the kind a TG driver raises."""


@pytest.mark.parametrize("error", [RuntimeError("TG lost its session"), KnownTgError("TG: gone")])
def test_a_raising_measurer_keeps_every_trial_so_far(error: Exception) -> None:
    with pytest.raises(MeasurerFailedError) as info:
        search(FailingAt(4, error), GOALS, 1.0, 100.0)
    assert info.value.__cause__ is error  # the original, chained
    partial = info.value.partial
    assert len(partial.trials) == 3
    assert all(t.reason is not None for t in partial.trials)
    assert len(partial.goal_results) == 2
    text = str(info.value)
    assert "trial 4" in text and "after 3 trials" in text and str(error) in text
    assert type(error).__name__ in text


def test_a_measurer_failing_first_leaves_an_empty_partial_result() -> None:
    with pytest.raises(MeasurerFailedError) as info:
        search(FailingAt(1, ValueError("bad port")), GOALS, 1.0, 100.0)
    assert info.value.partial.trials == ()
    assert all(r.lower_bound is None for r in info.value.partial.goal_results)


@pytest.mark.parametrize("error", [KeyboardInterrupt(), SystemExit(3)])
def test_an_interrupt_in_the_measurer_propagates_as_raised(error: BaseException) -> None:
    with pytest.raises(type(error)) as info:
        search(FailingAt(2, error), GOALS, 1.0, 100.0)
    assert info.value is error


def test_a_search_aborted_inside_the_measurer_is_not_wrapped() -> None:
    inner = SearchTimeLimitError("cap", partial=None)  # type: ignore[arg-type]
    with pytest.raises(SearchTimeLimitError) as info:
        search(FailingAt(2, inner), GOALS, 1.0, 100.0)
    assert info.value is inner


# -- surplus frames --------------------------------------------------------------------


def test_surplus_frames_are_no_loss_and_noted_once() -> None:
    trial = TrialResult(1.0, 100.0, offered_count=100.0, forwarded_count=107.0)
    assert (trial.forwarded_count, trial.loss_count, trial.surplus_count) == (100.0, 0.0, 7.0)
    assert trial.loss_ratio == 0.0
    assert [is_surplus_note(w) for w in trial.warnings] == [True]
    assert "duplicates" in trial.warnings[0] and "foreign frames" in trial.warnings[0]
    again = dataclasses.replace(trial, reason=None)  # as the session copies every trial
    assert again.surplus_count == 7.0 and again.warnings == trial.warnings
    recounted = dataclasses.replace(trial, forwarded_count=103.0, loss_count=None, surplus_count=0)
    assert recounted.surplus_count == 3.0
    assert [w for w in recounted.warnings if is_surplus_note(w)] == [
        w.replace("received 7 ", "received 3 ") for w in trial.warnings
    ]


def test_a_note_added_after_the_surplus_one_stays_last() -> None:
    trial = TrialResult(1.0, 100.0, offered_count=100.0, forwarded_count=101.0)
    retried = dataclasses.replace(trial, warnings=(*trial.warnings, "retried once"))
    assert retried.warnings[-1] == "retried once" and is_surplus_note(retried.warnings[0])


def test_surplus_keeps_the_unsent_frames_as_loss() -> None:
    trial = TrialResult(1.0, 100.0, offered_count=80.0, forwarded_count=85.0, intended_count=100.0)
    assert trial.surplus_count == 5.0 and trial.loss_ratio == pytest.approx(0.2)


class Duplicating:
    """A capacity cliff whose every other trial receives 1 % more frames than it forwarded."""

    def __init__(self, capacity: float) -> None:
        self.inner, self.calls = CapacityDut(capacity), 0

    def measure(self, duration: float, load: float) -> TrialResult:
        self.calls += 1
        trial = self.inner.measure(duration, load)
        assert trial.forwarded_count is not None
        extra = trial.forwarded_count * 0.01 if self.calls % 2 else 0.0
        return TrialResult(
            duration, load, trial.offered_count, forwarded_count=trial.forwarded_count + extra
        )


def test_a_duplicating_dut_still_gets_its_bounds() -> None:
    result = search(Duplicating(50.0), GOALS, 1.0, 100.0)
    assert any(t.surplus_count > 0 for t in result.trials)
    for goal_result in result.goal_results:
        assert goal_result.irregular_reason is None
        assert goal_result.lower_bound is not None
        assert 50.0 * 0.98 <= goal_result.lower_bound <= 50.0 / 0.99  # duplicates hide <= 1 %


# -- trials that send nothing, a DUT that forwards nothing --------------------------------


def test_a_trial_below_one_frame_says_it_sent_nothing() -> None:
    trial = TrialResult(1.0, 0.3, offered_count=0.0, forwarded_count=0.0, intended_count=0.0)
    assert trial.loss_ratio == 1.0  # it measured nothing: it cannot pass
    assert [is_sent_nothing_note(w) for w in trial.warnings] == [True]
    assert "less than one frame" in trial.warnings[0] and "not as DUT loss" in trial.warnings[0]
    starved = TrialResult(1.0, 1e3, offered_count=0.0, forwarded_count=0.0, intended_count=1e3)
    assert "sent none of its 1000 frames" in starved.warnings[0]
    idle = TrialResult(1.0, 0.0, offered_count=0.0, forwarded_count=0.0)
    assert idle.warnings == () and idle.loss_ratio == 0.0


class SendsNothingBelow:
    """A perfect DUT behind a TG that sends whole frames only: loads under 1 pps send none."""

    def measure(self, duration: float, load: float) -> TrialResult:
        frames = float(int(load * duration))
        return TrialResult(duration, load, frames, forwarded_count=frames, intended_count=frames)


def test_fail_fast_says_when_the_min_load_sent_nothing() -> None:
    with pytest.raises(SearchIrregularError) as info:
        search(SendsNothingBelow(), GOALS, 0.4, 0.9, fail_fast=True)
    assert "sent no frame" in str(info.value)
    assert "fails even" not in str(info.value)


class ForwardsNothing:
    """A dead DUT: every frame offered is lost."""

    def measure(self, duration: float, load: float) -> TrialResult:
        return TrialResult(duration, load, load * duration, forwarded_count=0.0)


def test_fail_fast_says_when_the_dut_forwarded_nothing() -> None:
    with pytest.raises(SearchIrregularError) as info:
        search(ForwardsNothing(), GOALS, 1.0, 100.0, fail_fast=True)
    trials = len(info.value.partial.trials)
    assert f"the DUT forwarded nothing in any of {trials} trials" in str(info.value)
    with pytest.raises(SearchIrregularError) as lossy:
        search(AlwaysLosesDut(), GOALS, 1.0, 100.0, fail_fast=True)
    assert "the DUT fails even at the lowest load" in str(lossy.value)
