"""The sporadic-loss DUT model: rare, small losses independent of load and duration."""

from __future__ import annotations

import random
import re

import pytest

from ndrpdr.search.errors import SearchInputError
from ndrpdr.trafficgen.sim import SporadicLoss, make_model


def _losses(model: SporadicLoss, duration_s: float, load_pps: float, trials: int) -> list[int]:
    rng = random.Random(21)
    losses = []
    for _ in range(trials):
        offered, forwarded = model.trial(duration_s, load_pps, rng)
        assert 0 <= forwarded <= offered == round(load_pps * duration_s)
        losses.append(offered - forwarded)
    return losses


def test_loss_frequency_near_p_and_losses_small() -> None:
    model = SporadicLoss(capacity_pps=8e6, loss_probability=0.1, max_lost_frames=40)
    assert model.name == "sporadic"
    assert not model.deterministic
    for duration_s, load_pps in ((0.1, 1e6), (10.0, 1e6), (1.0, 8e6), (1.0, 1e3)):
        losses = _losses(model, duration_s, load_pps, 2000)
        lossy = [lost for lost in losses if lost > 0]
        assert 0.07 < len(lossy) / len(losses) < 0.13
        assert max(lossy) <= 40
        assert min(lossy) >= 1
        assert len(set(lossy)) > 10


def test_above_capacity_the_cliff_adds_its_loss() -> None:
    model = SporadicLoss(capacity_pps=8e6, loss_probability=0.1, max_lost_frames=40)
    losses = _losses(model, 1.0, 10e6, 500)
    assert min(losses) == 2_000_000
    assert max(losses) <= 2_000_040


def test_truth_is_the_cliff_truth_and_median_trial_passes() -> None:
    model = SporadicLoss(capacity_pps=8e6, loss_probability=0.2)
    for duration_s in (0.5, 60.0):
        assert model.true_ndr(duration_s) == 8e6
        assert model.true_pdr(duration_s) == pytest.approx(8e6 / 0.995)
    losses = _losses(model, 60.0, model.true_ndr(60.0), 200)
    assert 0.5 < losses.count(0) / len(losses) < 0.95
    for seed in range(5):
        seeded = make_model("sporadic", seed)
        assert seeded.true_ndr(1.0) == seeded.parameters()["capacity_pps"]


def test_rejects_probability_of_half_or_more() -> None:
    with pytest.raises(SearchInputError, match=re.escape("loss_probability=0.5")):
        SporadicLoss(capacity_pps=1e6, loss_probability=0.5)
    with pytest.raises(SearchInputError, match="max_lost_frames=0"):
        SporadicLoss(capacity_pps=1e6, loss_probability=0.1, max_lost_frames=0)
