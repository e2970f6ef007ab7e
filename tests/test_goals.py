"""ndr_pdr_goals: CSIT's production NDR and PDR goals, and how the options change them."""

from __future__ import annotations

import pytest

from ndrpdr.goals import NDR_LOSS_RATIO, PDR_LOSS_RATIO, ndr_pdr_goals
from ndrpdr.results import record
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
