"""Validation: TrialResult, Goal and search() arguments and measurer answers."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import pytest
from search_duts import (
    CapacityDut,
    OverForwardingMeasurer,
    ReturnsMeasurer,
)

from ndrpdr.errors import NdrPdrError
from ndrpdr.search import (
    Goal,
    Measurer,
    SearchError,
    SearchInputError,
    TrialReason,
    TrialResult,
    search,
)

NAN = math.nan
INF = math.inf

# -- TrialResult ------------------------------------------------------------------------


def test_trial_result_derives_forwarded_from_loss() -> None:
    result = TrialResult(2.0, 50.0, offered_count=100.0, loss_count=4.0)
    assert result.forwarded_count == 96.0
    assert result.intended_count == 100.0
    assert result.unsent_count == 0.0
    assert result.loss_ratio == pytest.approx(0.04)
    assert result.forwarding_rate == pytest.approx(48.0)
    assert result.effective_duration == 2.0
    assert result.effective_seconds == 2.0
    assert result.reason is None


def test_trial_result_derives_loss_from_forwarded() -> None:
    result = TrialResult(1.0, 10.0, offered_count=10, forwarded_count=7, effective_duration=1.5)
    assert result.loss_count == 3
    assert result.loss_ratio == pytest.approx(0.3)
    assert result.effective_seconds == 1.5
    assert isinstance(result.effective_seconds, float)


def test_trial_result_accepts_consistent_counts() -> None:
    result = TrialResult(1.0, 10.0, offered_count=10.0, forwarded_count=6.0, loss_count=4.0)
    assert result.loss_ratio == pytest.approx(0.4)


def test_trial_result_loss_ratio_counts_unsent_frames() -> None:
    # Meant to send 100, sent 80, 10 of those lost: 10 lost + 20 unsent of 100.
    result = TrialResult(1.0, 100.0, offered_count=80.0, forwarded_count=70.0, intended_count=100.0)
    assert result.unsent_count == 20.0
    assert result.loss_ratio == pytest.approx(0.3)
    assert result.forwarding_rate == pytest.approx(70.0)
    # Nothing sent at all although the load was positive: everything is lost.
    silent = TrialResult(1.0, 100.0, offered_count=0.0, loss_count=0.0, intended_count=100.0)
    assert silent.loss_ratio == 1.0
    assert silent.forwarding_rate == 0.0


def test_trial_result_loss_ratio_with_nothing_expected() -> None:
    assert TrialResult(1.0, 5.0, offered_count=0.0, loss_count=0.0).loss_ratio == 1.0
    assert TrialResult(1.0, 0.0, offered_count=0.0, loss_count=0.0).loss_ratio == 0.0


def test_trial_result_more_sent_than_intended_is_not_unsent() -> None:
    result = TrialResult(1.0, 100.0, offered_count=110.0, loss_count=11.0, intended_count=100.0)
    assert result.unsent_count == 0.0
    assert result.loss_ratio == pytest.approx(0.1)


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"offered_count": -1.0, "loss_count": 0.0}, "offered_count=-1.0"),
        ({"offered_count": 10.0, "loss_count": -2.0}, "loss_count=-2.0"),
        ({"offered_count": 10.0, "forwarded_count": -3.0}, "forwarded_count=-3.0"),
        ({"offered_count": 10.0, "loss_count": 0.0, "intended_count": -4.0}, "intended_count=-4.0"),
        (
            {"offered_count": 10.0, "loss_count": 0.0, "effective_duration": -5.0},
            "effective_duration=-5.0",
        ),
        ({"offered_count": NAN, "loss_count": 0.0}, "offered_count=nan"),
        ({"offered_count": 10.0, "loss_count": NAN}, "loss_count=nan"),
        ({"offered_count": 10.0, "forwarded_count": INF}, "forwarded_count=inf"),
        ({"offered_count": "10", "loss_count": 0.0}, "offered_count='10'"),
        ({"offered_count": True, "loss_count": 0.0}, "offered_count=True"),
        ({"offered_count": 10.0, "forwarded_count": 11.0, "loss_count": 2.0}, "lost nothing"),
        ({"offered_count": 10.0, "forwarded_count": 5.0, "surplus_count": -1.0}, "surplus"),
        ({"offered_count": 10.0, "forwarded_count": 11.0, "loss_count": -1.0}, "-1.0"),
        ({"offered_count": 10.0, "loss_count": 12.0}, "loss_count=12.0"),
        ({"offered_count": 10.0}, "forwarded_count or loss_count"),
        ({"offered_count": 10.0, "forwarded_count": 5.0, "loss_count": 2.0}, "loss_count=2.0"),
    ],
)
def test_trial_result_rejects_bad_counts(kwargs: dict[str, Any], needle: str) -> None:
    with pytest.raises(SearchInputError, match="TrialResult") as info:
        TrialResult(1.0, 10.0, **kwargs)
    assert needle in str(info.value)


@pytest.mark.parametrize(
    ("duration", "load", "needle"),
    [
        (0.0, 10.0, "duration=0.0"),
        (-1.0, 10.0, "duration=-1.0"),
        (NAN, 10.0, "duration=nan"),
        (1.0, -10.0, "load=-10.0"),
        (1.0, INF, "load=inf"),
        (1.0, None, "load=None"),
    ],
)
def test_trial_result_rejects_bad_input(duration: float, load: Any, needle: str) -> None:
    with pytest.raises(SearchInputError) as info:
        TrialResult(duration, load, offered_count=10.0, loss_count=0.0)
    assert needle in str(info.value)


def test_errors_are_ndrpdr_and_value_errors() -> None:
    assert issubclass(SearchInputError, SearchError)
    assert issubclass(SearchInputError, ValueError)
    assert issubclass(SearchError, NdrPdrError)


def test_trial_reason_text() -> None:
    assert str(TrialReason("mlr", "final", "bisect", 1, "lower=1")) == (
        "mlr/final/bisect for goal 1: lower=1"
    )
    assert str(TrialReason("mlr", "probe", "probe")) == "mlr/probe/probe for all goals"


def test_measurer_protocol_is_runtime_checkable() -> None:
    assert isinstance(CapacityDut(1.0), Measurer)
    assert not isinstance(object(), Measurer)


# -- Goal -------------------------------------------------------------------------------


def test_goal_defaults_are_the_rfc_recommendations() -> None:
    goal = Goal()
    assert (
        goal.loss_ratio,
        goal.exceed_ratio,
        goal.relative_width,
        goal.initial_trial_duration,
        goal.final_trial_duration,
        goal.duration_sum,
    ) == (0.0, 0.5, 0.005, 1.0, 1.0, 21.0)
    assert goal.describe() == "loss 0, exceed 0.5, width 0.005, trials 1..1 s, sum 21 s"


def test_goal_accepts_edge_values() -> None:
    goal = Goal(
        loss_ratio=0.0,
        exceed_ratio=0.0,
        relative_width=0.999,
        initial_trial_duration=30.0,
        final_trial_duration=30.0,
        duration_sum=30.0,
    )
    assert goal.final_trial_duration == goal.duration_sum
    with pytest.raises(dataclasses.FrozenInstanceError):
        goal.loss_ratio = 0.5  # type: ignore[misc]


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"loss_ratio": -0.1}, "loss_ratio=-0.1"),
        ({"loss_ratio": 1.0}, "loss_ratio=1.0"),
        ({"loss_ratio": NAN}, "loss_ratio=nan"),
        ({"loss_ratio": "0"}, "loss_ratio='0'"),
        ({"exceed_ratio": -0.5}, "exceed_ratio=-0.5"),
        ({"exceed_ratio": 1.0}, "exceed_ratio=1.0"),
        ({"exceed_ratio": INF}, "exceed_ratio=inf"),
        ({"relative_width": 0.0}, "relative_width=0.0"),
        ({"relative_width": 1.0}, "relative_width=1.0"),
        ({"relative_width": -0.01}, "relative_width=-0.01"),
        ({"relative_width": None}, "relative_width=None"),
        ({"initial_trial_duration": 0.0}, "initial_trial_duration=0.0"),
        ({"initial_trial_duration": NAN}, "initial_trial_duration=nan"),
        ({"initial_trial_duration": 2.0}, "final_trial_duration=1.0"),  # final < initial
        ({"final_trial_duration": 0.5}, "final_trial_duration=0.5"),
        ({"final_trial_duration": 30.0}, "duration_sum=21.0"),  # sum < final
        ({"duration_sum": 0.5}, "duration_sum=0.5"),
        ({"duration_sum": True}, "duration_sum=True"),
        ({"final_trial_duration": [1.0]}, "final_trial_duration=[1.0]"),
    ],
)
def test_goal_rejects_bad_values(kwargs: dict[str, Any], needle: str) -> None:
    with pytest.raises(SearchInputError, match="Goal") as info:
        Goal(**kwargs)
    assert needle in str(info.value)


# -- search() arguments -----------------------------------------------------------------

GOALS = [Goal(loss_ratio=0.0, exceed_ratio=0.0, duration_sum=1.0)]


@pytest.mark.parametrize(
    ("min_load", "max_load", "needle"),
    [
        (-1.0, 100.0, "min_load=-1.0"),
        (0.0, 100.0, "min_load=0.0"),
        (NAN, 100.0, "min_load=nan"),
        (INF, 100.0, "min_load=inf"),
        ("1", 100.0, "min_load='1'"),
        (False, 100.0, "min_load=False"),
        (1.0, -100.0, "max_load=-100.0"),
        (1.0, 0.0, "max_load=0.0"),
        (1.0, NAN, "max_load=nan"),
        (1.0, INF, "max_load=inf"),
        (1.0, None, "max_load=None"),
        (100.0, 100.0, "min_load=100.0"),
        (200.0, 100.0, "min_load=200.0 must be below max_load=100.0"),
    ],
)
def test_search_rejects_bad_loads(min_load: Any, max_load: Any, needle: str) -> None:
    with pytest.raises(SearchInputError) as info:
        search(CapacityDut(50.0), GOALS, min_load, max_load)
    assert needle in str(info.value)


@pytest.mark.parametrize(
    ("goals", "needle"),
    [
        ([], "goals is empty"),
        ((), "goals is empty"),
        ([Goal(), Goal()], "goals[1]="),
        ([Goal(), Goal(loss_ratio=0.005), Goal(loss_ratio=0.005)], "goals[2]="),
        ([Goal(), "NDR"], "goals[1]='NDR' is not a Goal"),
        ([0.005], "goals[0]=0.005 is not a Goal"),
    ],
)
def test_search_rejects_bad_goals(goals: Any, needle: str) -> None:
    with pytest.raises(SearchInputError) as info:
        search(CapacityDut(50.0), goals, 1.0, 100.0)
    assert needle in str(info.value)


def test_search_accepts_a_single_goal() -> None:
    result = search(CapacityDut(50.0), GOALS[0], 1.0, 100.0)  # type: ignore[arg-type]
    assert [r.goal for r in result.goal_results] == GOALS


@pytest.mark.parametrize("algorithm", ["MLR", "rfc2544", "", "binary "])
def test_search_rejects_unknown_algorithm(algorithm: str) -> None:
    with pytest.raises(SearchInputError) as info:
        search(CapacityDut(50.0), GOALS, 1.0, 100.0, algorithm)
    assert f"algorithm={algorithm!r}" in str(info.value)


class _NotCallable:
    measure = 42


@pytest.mark.parametrize("measurer", [object(), _NotCallable(), None, 42])
def test_search_rejects_measurer_without_measure(measurer: object) -> None:
    with pytest.raises(SearchInputError, match="measure") as info:
        search(measurer, GOALS, 1.0, 100.0)
    assert repr(measurer) in str(info.value)


@pytest.mark.parametrize("algorithm", ["mlr", "binary", "bswlv"])
@pytest.mark.parametrize("answer", [None, 0.5, "ok", {"loss_ratio": 0.0}])
def test_search_rejects_measurer_returning_non_trial_result(algorithm: str, answer: object) -> None:
    with pytest.raises(SearchInputError, match="not a TrialResult") as info:
        search(ReturnsMeasurer(answer), GOALS, 1.0, 100.0, algorithm)
    assert repr(answer) in str(info.value)
    assert type(answer).__name__ in str(info.value)


def test_search_counts_frames_beyond_the_offered_as_no_loss() -> None:
    result = search(OverForwardingMeasurer(), GOALS, 1.0, 100.0)
    assert all(r.lower_bound == 100.0 for r in result.goal_results)  # nothing lost anywhere
    assert all(t.surplus_count == 23.0 and t.loss_ratio == 0.0 for t in result.trials)
    assert all("received 23 frames more than were sent" in t.warnings[0] for t in result.trials)


@pytest.mark.parametrize("repeats", [-1, 1.5, True, "2", None])
def test_search_rejects_bad_bswlv_repeats(repeats: Any) -> None:
    with pytest.raises(SearchInputError) as info:
        search(CapacityDut(50.0), GOALS, 1.0, 100.0, "bswlv", bswlv_repeats=repeats)
    assert f"bswlv_repeats={repeats!r}" in str(info.value)


@pytest.mark.parametrize("name", ["max_search_time", "max_wall_time"])
@pytest.mark.parametrize("value", [0, -1.0, NAN, INF, "60", True])
def test_search_rejects_bad_limits(name: str, value: Any) -> None:
    kwargs: dict[str, Any] = {name: value}
    with pytest.raises(SearchInputError) as info:
        search(CapacityDut(50.0), GOALS, 1.0, 100.0, **kwargs)
    assert f"{name}={value!r}" in str(info.value)
