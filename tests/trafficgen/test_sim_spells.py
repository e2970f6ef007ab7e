"""The loss-spells DUT model: a few seconds now and then at a lower capacity."""

from __future__ import annotations

import random

import pytest

from ndrpdr.search.errors import SearchInputError
from ndrpdr.simdut.models import LossSpells

CAPACITY = 10e6


def _model(**overrides: float) -> LossSpells:
    arguments = {"spells_per_s": 1 / 40, "spell_s": 4.0, "spell_drop": 0.1}
    arguments.update(overrides)
    return LossSpells(capacity_pps=CAPACITY, **arguments)


def _share_meeting_a_spell(model: LossSpells, duration_s: float, trials: int = 4000) -> float:
    rng = random.Random(11)
    return sum(model.overlap(duration_s, rng) > 0 for _ in range(trials)) / trials


def test_short_trials_rarely_meet_a_spell_and_long_ones_mostly_do() -> None:
    model = _model()
    # A trial meets the spells starting within it or spell_s before it:
    # P = 1 - exp(-rate * (D + spell_s)).
    assert _share_meeting_a_spell(model, 1.0) == pytest.approx(0.118, abs=0.02)
    assert _share_meeting_a_spell(model, 60.0) == pytest.approx(0.798, abs=0.02)


def test_below_the_spell_capacity_nothing_is_lost() -> None:
    model = _model()
    rng = random.Random(3)
    for _ in range(200):
        offered, forwarded = model.trial(60.0, 0.9 * CAPACITY, rng)
        assert offered == forwarded == round(0.9 * CAPACITY * 60.0)


def test_a_trial_in_a_spell_loses_what_the_lower_capacity_cannot_forward() -> None:
    model = _model()
    # 2 s of a 10 s trial in a spell at 0.95 C: (0.95 C - 0.9 C) * 2 s lost.
    assert model.lost_frames(10.0, 0.95 * CAPACITY, 2.0) == pytest.approx(0.05 * CAPACITY * 2)
    # Above C the cliff loses outside the spell too.
    lost = model.lost_frames(10.0, 1.1 * CAPACITY, 2.0)
    assert lost == pytest.approx(0.1 * CAPACITY * 8 + 0.2 * CAPACITY * 2)


def test_truth_is_where_the_median_trial_meets_the_goal() -> None:
    model = _model()
    # 1 s: the median trial meets no spell, so the truth is the cliff's.
    assert model.true_ndr(1.0) == pytest.approx(CAPACITY)
    # 60 s: the median trial meets one, so NDR is the capacity during a spell.
    assert model.true_ndr(60.0) == pytest.approx(0.9 * CAPACITY)
    pdr = model.true_pdr(60.0)
    assert 0.9 * CAPACITY < pdr < CAPACITY / 0.995
    # Many 60 s trials hold exactly one whole spell (the median), so the
    # share of failing trials jumps at the truth: compare a little off it.
    rng = random.Random(5)
    below = [model.trial(60.0, 0.98 * pdr, rng) for _ in range(1000)]
    above = [model.trial(60.0, 1.02 * pdr, rng) for _ in range(1000)]

    def share_failing(trials: list[tuple[int, int]]) -> float:
        return sum((o - f) / o > 0.005 for o, f in trials) / len(trials)

    assert share_failing(below) < 0.5 < share_failing(above)


def test_draws_do_not_depend_on_the_load() -> None:
    model = _model()
    states = []
    for load in (1e3, 0.5 * CAPACITY, 2 * CAPACITY):
        rng = random.Random(9)
        model.trial(30.0, load, rng)
        states.append(rng.getstate())
    assert states[0] == states[1] == states[2]


@pytest.mark.parametrize(
    ("field", "value"),
    [("spells_per_s", 0.0), ("spell_s", -1.0), ("spell_drop", 0.0), ("spell_drop", 1.0)],
)
def test_bad_parameters_are_named(field: str, value: float) -> None:
    with pytest.raises(SearchInputError, match=field):
        _model(**{field: value})
