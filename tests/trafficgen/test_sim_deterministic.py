"""Deterministic DUT models: trials at, below and above the stated truth."""

from __future__ import annotations

import math
import random
import re

import pytest

from ndrpdr.search.errors import SearchInputError
from ndrpdr.trafficgen.sim import (
    DurationDependent,
    DutModel,
    GradualLoss,
    OverloadCollapse,
    SharpCliff,
    make_model,
)

DURATIONS_S = (1.0, 2.5, 60.0)
GOALS = (0.0, 0.001, 0.005, 0.1)


def _loss_ratio(model: DutModel, duration_s: float, load_pps: float) -> float:
    offered, forwarded = model.trial(duration_s, load_pps, random.Random(0))
    assert offered == round(load_pps * duration_s)
    assert 0 <= forwarded <= offered
    assert isinstance(offered, int) and isinstance(forwarded, int)
    return (offered - forwarded) / offered


def _models() -> list[DutModel]:
    explicit: list[DutModel] = [
        SharpCliff(capacity_pps=9.1e6),
        GradualLoss(knee_pps=2e6, loss_coefficient=2.0),
        GradualLoss(knee_pps=15e6, loss_coefficient=12.0),
        DurationDependent(capacity_pps=5e6, buffer_frames=1e6),
        OverloadCollapse(capacity_pps=12e6, slope=2.0, floor_fraction=0.1),
    ]
    seeded = [
        make_model(name, seed)
        for name in ("sharp", "gradual", "duration", "overload")
        for seed in (1, 2, 3)
    ]
    return explicit + seeded


@pytest.mark.parametrize("model", _models(), ids=repr)
def test_truth_separates_passing_from_failing_loads(model: DutModel) -> None:
    assert model.deterministic
    for duration_s in DURATIONS_S:
        ndr = model.true_ndr(duration_s)
        assert _loss_ratio(model, duration_s, math.floor(ndr)) == 0.0
        assert _loss_ratio(model, duration_s, ndr) == 0.0
        assert _loss_ratio(model, duration_s, 1.001 * ndr) > 0.0
        for goal in GOALS:
            truth = model.true_throughput(duration_s, goal)
            assert _loss_ratio(model, duration_s, 0.999 * truth) <= goal
            assert _loss_ratio(model, duration_s, truth) <= goal
            assert _loss_ratio(model, duration_s, 1.001 * truth) > goal
        pdr = model.true_pdr(duration_s)
        assert pdr == model.true_throughput(duration_s, 0.005)
        assert _loss_ratio(model, duration_s, pdr) <= 0.005
        assert _loss_ratio(model, duration_s, 1.001 * pdr) > 0.005


@pytest.mark.parametrize("model", _models(), ids=repr)
def test_trial_draws_no_randomness(model: DutModel) -> None:
    rng = random.Random(5)
    before = rng.getstate()
    for load_pps in (0.0, 1e6, 1e7, 29.76e6):
        model.trial(1.0, load_pps, rng)
    assert rng.getstate() == before
    assert model.trial(1.0, 0.0, rng) == (0, 0)


def test_sharp_forwards_capacity_above_it() -> None:
    model = SharpCliff(capacity_pps=9.1e6)
    assert model.name == "sharp"
    assert model.parameters() == {"capacity_pps": 9.1e6}
    assert model.trial(2.0, 20e6, random.Random(0)) == (40_000_000, 18_200_000)
    assert model.trial(2.0, 9e6, random.Random(0)) == (18_000_000, 18_000_000)
    assert model.true_pdr(60.0) == pytest.approx(9.1e6 / 0.995, rel=1e-15)
    assert model.true_ndr(0.01) == 9.1e6


def test_gradual_ndr_is_where_the_first_frame_is_lost_and_pdr_a_few_percent_above() -> None:
    for k in (2.0, 5.0, 12.0):
        model = GradualLoss(knee_pps=8e6, loss_coefficient=k)
        assert model.name == "gradual"
        # Whole frames: sqrt(C0 / (k * D)) pps above the knee, less for longer trials.
        assert model.true_ndr(1.0) == pytest.approx(8e6 + math.sqrt(8e6 / k), rel=1e-7)
        assert 8e6 < model.true_ndr(60.0) < model.true_ndr(1.0) < 1.001 * 8e6
        pdr = model.true_pdr(1.0)
        assert 1.02 * 8e6 < pdr < 1.06 * 8e6
        assert model.loss_ratio(1.0, pdr) == pytest.approx(0.005, rel=1e-9)
    # Loss grows smoothly: twice the excess, about four times the lost frames.
    model = GradualLoss(knee_pps=8e6, loss_coefficient=4.0)
    lost_1 = 8.1e6 * model.loss_ratio(1.0, 8.1e6)
    lost_2 = 8.2e6 * model.loss_ratio(1.0, 8.2e6)
    assert lost_2 / lost_1 == pytest.approx(4.0)
    # Capped: never more than everything lost.
    assert model.loss_ratio(1.0, 1e12) == 1.0


def test_duration_short_trials_pass_where_long_ones_fail() -> None:
    model = DurationDependent(capacity_pps=5e6, buffer_frames=0.2 * 5e6)
    assert model.name == "duration"
    load = 1.1 * 5e6
    assert _loss_ratio(model, 1.0, load) == 0.0
    assert _loss_ratio(model, 60.0, load) > 0.005
    assert model.true_ndr(1.0) == pytest.approx(6e6)
    assert model.true_ndr(60.0) == pytest.approx(5e6 + 1e6 / 60.0)
    assert model.true_pdr(10.0) == pytest.approx((5e6 + 1e5) / 0.995)
    truths = [model.true_ndr(d) for d in (0.1, 1.0, 10.0, 60.0, 600.0)]
    assert truths == sorted(truths, reverse=True)


def test_overload_collapses_at_line_rate() -> None:
    for seed in range(20):
        model = make_model("overload", seed)
        assert isinstance(model, OverloadCollapse)
        capacity = model.capacity_pps
        _, forwarded = model.trial(1.0, 29.76e6, random.Random(0))
        assert forwarded < 0.55 * capacity
        assert forwarded >= math.floor(model.floor_fraction * capacity) - 1
    model = OverloadCollapse(capacity_pps=10e6, slope=1.0, floor_fraction=0.2)
    assert model.forwarding_rate(5e6) == 5e6
    assert model.forwarding_rate(12e6) == 8e6
    assert model.forwarding_rate(29.76e6) == 2e6
    assert model.true_pdr(1.0) == pytest.approx(10e6 * 2.0 / 1.995)
    # A goal reached only on the floor part of the curve.
    assert model.true_throughput(1.0, 0.9) == pytest.approx(2e6 / 0.1)


@pytest.mark.parametrize(
    ("duration_s", "loss_ratio"),
    [(0.0, 0.0), (-1.0, 0.0), (math.nan, 0.0), (math.inf, 0.0), (1.0, 1.0), (1.0, -0.1)],
)
def test_true_throughput_rejects_bad_arguments(duration_s: float, loss_ratio: float) -> None:
    model = SharpCliff(capacity_pps=1e6)
    bad = duration_s if not 0 < duration_s < math.inf else loss_ratio
    with pytest.raises(SearchInputError, match=re.escape(repr(bad))):
        model.true_throughput(duration_s, loss_ratio)


def test_constructors_reject_bad_parameters() -> None:
    with pytest.raises(SearchInputError, match="capacity_pps=-1"):
        SharpCliff(capacity_pps=-1.0)
    with pytest.raises(SearchInputError, match="loss_coefficient=0"):
        GradualLoss(knee_pps=1e6, loss_coefficient=0.0)
    with pytest.raises(SearchInputError, match="buffer_frames=nan"):
        DurationDependent(capacity_pps=1e6, buffer_frames=math.nan)
    with pytest.raises(SearchInputError, match=re.escape("floor_fraction=1.0")):
        OverloadCollapse(capacity_pps=1e6, slope=1.0, floor_fraction=1.0)
    with pytest.raises(SearchInputError, match="load_pps=-5"):
        SharpCliff(capacity_pps=1e6).trial(1.0, -5.0, random.Random(0))
