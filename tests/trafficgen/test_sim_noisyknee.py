"""The noisy-knee DUT model: trials in a band below the capacity lose a few percent at random."""

from __future__ import annotations

import random
import re

import pytest

from ndrpdr.search.errors import SearchInputError
from ndrpdr.trafficgen.sim import NoisyKnee, SimulatedMeasurer, make_model

CAPACITY = 10e6


def _model(**overrides: float) -> NoisyKnee:
    arguments: dict[str, float] = {
        "capacity_pps": CAPACITY,
        "band_fraction": 0.2,
        "max_loss_probability": 0.8,
        "min_loss_fraction": 0.01,
        "max_loss_fraction": 0.04,
    }
    arguments.update(overrides)
    return NoisyKnee(**arguments)  # type: ignore[arg-type]


def _losses(model: NoisyKnee, load_pps: float, trials: int, duration_s: float = 1.0) -> list[float]:
    """Loss ratios of ``trials`` trials at ``load_pps``."""
    rng = random.Random(7)
    ratios = []
    for _ in range(trials):
        offered, forwarded = model.trial(duration_s, load_pps, rng)
        assert 0 <= forwarded <= offered == round(load_pps * duration_s)
        ratios.append((offered - forwarded) / offered)
    return ratios


def test_below_the_band_nothing_is_lost() -> None:
    model = _model()
    assert model.name == "noisyknee"
    assert not model.deterministic
    assert model.band_bottom_pps == pytest.approx(8e6)
    assert set(_losses(model, 7.9e6, 500)) == {0.0}


def test_in_the_band_a_trial_loses_nothing_or_a_few_percent_more_often_higher() -> None:
    model = _model()
    shares = []
    for load in (8.4e6, 9.0e6, 9.6e6):
        ratios = _losses(model, load, 2000)
        lossy = [r for r in ratios if r > 0.0]
        assert all(0.01 - 1e-6 <= r <= 0.04 + 1e-6 for r in lossy), load
        shares.append(len(lossy) / len(ratios))
        expected = model.loss_probability(load)
        assert shares[-1] == pytest.approx(expected, abs=0.04), load
    assert shares[0] < shares[1] < shares[2]
    # The share does not depend on the trial duration.
    long_trials = [r for r in _losses(model, 9.0e6, 400, duration_s=30.0) if r > 0.0]
    assert len(long_trials) / 400 == pytest.approx(model.loss_probability(9.0e6), abs=0.07)


def test_above_the_capacity_the_cliff_loss_comes_first() -> None:
    model = _model()
    ratios = _losses(model, 12.5e6, 500)
    cliff = 1.0 - CAPACITY / 12.5e6
    assert min(ratios) == pytest.approx(cliff, abs=1e-6)
    assert max(ratios) <= cliff + 0.04 * (1.0 - cliff) + 1e-6
    lossy = sum(1 for r in ratios if r > cliff + 1e-6) / len(ratios)
    assert lossy == pytest.approx(0.8, abs=0.06)


def test_truth_is_where_the_median_trial_meets_the_goal() -> None:
    model = _model()
    # p(L) = 0.8 * (L - 8e6) / 2e6 = 0.5 at L = 9.25e6, for NDR and for a
    # PDR below the smallest loss a lossy trial has.
    for duration_s in (1.0, 60.0):
        assert model.true_ndr(duration_s) == pytest.approx(9.25e6, rel=1e-9)
        assert model.true_pdr(duration_s) == pytest.approx(9.25e6, rel=1e-9)
    for load, passing in ((9.25e6 * 0.99, True), (9.25e6 * 1.01, False)):
        ratios = _losses(model, load, 3000)
        share_ok = sum(1 for r in ratios if r <= 0.0) / len(ratios)
        assert (share_ok > 0.5) is passing, (load, share_ok)
    # A goal loss ratio inside the lossy range: half the lossy trials still pass.
    ratio = 0.025
    truth = model.true_throughput(1.0, ratio)
    assert model.fail_probability(truth, ratio) == pytest.approx(0.5, abs=1e-9)
    assert truth > model.true_ndr(1.0)
    # A goal loss ratio of 20 %: above the capacity the cliff loses c = 1 - C / L
    # and a lossy trial c + share * (1 - c); half the trials fail where
    # 0.8 * P(share > (0.2 - c) / (1 - c)) = 0.5, i.e. (0.2 - c) / (1 - c) = 0.02125.
    cliff = (0.2 - 0.02125) / (1.0 - 0.02125)
    assert model.true_throughput(1.0, 0.2) == pytest.approx(CAPACITY / (1.0 - cliff))
    assert model.true_throughput(1.0, 0.2) < CAPACITY / 0.8


def test_seeded_models_and_reproducible_trials() -> None:
    for seed in range(5):
        model = make_model("noisyknee", seed)
        assert isinstance(model, NoisyKnee)
        parameters = model.parameters()
        assert parameters["capacity_pps"] == make_model("sharp", seed).parameters()["capacity_pps"]
        assert model.band_bottom_pps < model.true_ndr(1.0) < parameters["capacity_pps"]
    model = make_model("noisyknee", 3)
    load = model.true_ndr(1.0)
    runs = [
        [SimulatedMeasurer(model, seed=11).measure(1.0, load).loss_count for _ in range(1)]
        for _ in range(2)
    ]
    assert runs[0] == runs[1]


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"max_loss_probability": 0.5}, "max_loss_probability=0.5"),
        ({"max_loss_probability": 1.5}, "max_loss_probability=1.5"),
        ({"band_fraction": 0.0}, "band_fraction=0.0"),
        ({"band_fraction": 1.0}, "band_fraction=1.0"),
        ({"min_loss_fraction": 0.05, "max_loss_fraction": 0.04}, "min_loss_fraction=0.05"),
        ({"min_loss_fraction": 0.0}, "min_loss_fraction=0.0"),
        ({"capacity_pps": -1.0}, "capacity_pps=-1.0"),
    ],
)
def test_rejects_bad_parameters(overrides: dict[str, float], message: str) -> None:
    with pytest.raises(SearchInputError, match=re.escape(message)):
        _model(**overrides)


def test_zero_load_and_zero_frames() -> None:
    model = _model()
    assert model.trial(1.0, 0.0, random.Random(1)) == (0, 0)
