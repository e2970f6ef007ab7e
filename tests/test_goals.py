"""ndr_pdr_goals and loss_ratio_goals: the goals a test searches for, and their names."""

from __future__ import annotations

import re

import pytest

from ndrpdr.goals import (
    NDR_LOSS_RATIO,
    PDR_LOSS_RATIO,
    goal_key,
    goal_label,
    loss_ratio_goals,
    ndr_pdr_goals,
    parse_loss_ratios,
)
from ndrpdr.results import searchrecord as record
from ndrpdr.search import Goal, SearchInputError


def test_defaults() -> None:
    ndr, pdr = ndr_pdr_goals()
    assert ndr == Goal(
        loss_ratio=0.0,
        exceed_ratio=0.5,
        relative_width=0.005,
        initial_trial_duration=1.0,
        final_trial_duration=1.0,
        duration_sum=21.0,
    )
    assert pdr == Goal(
        loss_ratio=0.005,
        exceed_ratio=0.5,
        relative_width=0.005,
        initial_trial_duration=1.0,
        final_trial_duration=1.0,
        duration_sum=21.0,
    )


def test_loss_ratios_match_the_record() -> None:
    # The record finds its "ndr" and "pdr" entries by these loss ratios.
    assert (NDR_LOSS_RATIO, PDR_LOSS_RATIO) == (record.NDR_LOSS_RATIO, record.PDR_LOSS_RATIO)


@pytest.mark.parametrize(("final", "expected"), [(0.5, 21.0), (21.0, 21.0), (30.0, 30.0)])
def test_duration_sum_default_is_at_least_the_final_duration(final: float, expected: float) -> None:
    for goal in ndr_pdr_goals(final_trial_duration_s=final):
        assert goal.duration_sum == expected
        assert goal.final_trial_duration == final


def test_initial_duration_is_capped_by_the_final() -> None:
    for goal in ndr_pdr_goals(final_trial_duration_s=0.5, initial_trial_duration_s=1.0):
        assert goal.initial_trial_duration == 0.5
    for goal in ndr_pdr_goals(final_trial_duration_s=10.0, initial_trial_duration_s=1.0):
        assert goal.initial_trial_duration == 1.0


def test_options_apply_to_both_goals() -> None:
    ndr, pdr = ndr_pdr_goals(
        duration_sum_s=5.0, relative_width=0.02, exceed_ratio=0.25, pdr_loss_ratio=0.01
    )
    assert (ndr.loss_ratio, pdr.loss_ratio) == (0.0, 0.01)
    for goal in (ndr, pdr):
        assert goal.duration_sum == 5.0
        assert goal.relative_width == 0.02
        assert goal.exceed_ratio == 0.25


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"relative_width": 0.0}, "relative_width=0.0 must be in (0, 1)"),
        ({"relative_width": float("nan")}, "relative_width=nan is not finite"),
        ({"final_trial_duration_s": 2.0, "duration_sum_s": 1.0}, "duration_sum=1.0 is below"),
        ({"initial_trial_duration_s": 0.0}, "initial_trial_duration=0.0 must be > 0"),
        ({"pdr_loss_ratio": 1.0}, "loss_ratio=1.0 must be in [0, 1)"),
    ],
)
def test_bad_values(kwargs: dict[str, float], message: str) -> None:
    with pytest.raises(SearchInputError) as raised:
        ndr_pdr_goals(**kwargs)
    assert message in str(raised.value)


# -- goal names and more loss ratios ------------------------------------------------------


@pytest.mark.parametrize(
    ("ratio", "label", "key"),
    [
        (0.0, "NDR", "NDR"),
        (0.005, "PDR", "PDR"),
        (0.02, "loss \u2264 2 %", "LOSS_2PCT"),
        (0.001, "loss \u2264 0.1 %", "LOSS_0P1PCT"),
        (0.0025, "loss \u2264 0.25 %", "LOSS_0P25PCT"),
    ],
)
def test_goal_label_and_key(ratio: float, label: str, key: str) -> None:
    assert goal_label(ratio) == label
    assert goal_key(ratio) == key
    assert re.fullmatch(r"[A-Z0-9_]+", goal_key(ratio))


def test_pdr_is_the_ratio_given() -> None:
    assert goal_label(0.01, pdr_loss_ratio=0.01) == "PDR"
    assert goal_key(0.01, pdr_loss_ratio=0.01) == "PDR"
    assert goal_label(0.005, pdr_loss_ratio=0.01) == "loss \u2264 0.5 %"
    assert goal_key(0.005, pdr_loss_ratio=0.01) == "LOSS_0P5PCT"


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("0, 0.005, 0.02", (0.0, 0.005, 0.02)),
        ("0 0.005", (0.0, 0.005)),
        (" 0.02 ,0 ", (0.02, 0.0)),
        ([0, "0.005"], (0.0, 0.005)),
    ],
)
def test_parse_loss_ratios(given: str | list[object], expected: tuple[float, ...]) -> None:
    assert parse_loss_ratios(given) == expected


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ("", "loss_ratios='' is empty"),
        ("0, x", "loss_ratios: 'x' is not a number"),
        ("0, 1", "loss_ratios: '1' must be in [0, 1)"),
        ("0.5%", "loss_ratios: '0.5%' is not a number"),
        ("0, 0.005, 0", "loss_ratios: '0' is given twice"),
        ("0.01234, 0.012341", "'0.012341' has the same name as 0.01234"),
    ],
)
def test_parse_loss_ratios_names_the_bad_item(given: str, message: str) -> None:
    with pytest.raises(SearchInputError) as raised:
        parse_loss_ratios(given)
    assert message in str(raised.value)


def test_loss_ratio_goals_share_the_settings_in_order() -> None:
    goals = loss_ratio_goals((0.02, 0.0, 0.005), duration_sum_s=5.0, exceed_ratio=0.25)
    assert [g.loss_ratio for g in goals] == [0.02, 0.0, 0.005]
    assert {(g.duration_sum, g.exceed_ratio) for g in goals} == {(5.0, 0.25)}
    assert loss_ratio_goals((0.0, 0.005)) == ndr_pdr_goals()
