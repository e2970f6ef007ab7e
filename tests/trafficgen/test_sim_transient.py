"""The transient-interruptions DUT model: median truth and duration dependence."""

from __future__ import annotations

import math
import random

import pytest

from ndrpdr.trafficgen.sim import TransientInterrupts, make_model


def _model() -> TransientInterrupts:
    return TransientInterrupts(
        capacity_pps=10e6, interrupts_per_s=0.05, interrupt_s=0.01, buffer_frames=50_000
    )


def _pass_rate(
    model: TransientInterrupts, duration_s: float, load_pps: float, goal: float, trials: int
) -> float:
    rng = random.Random(11)
    passed = 0
    for _ in range(trials):
        offered, forwarded = model.trial(duration_s, load_pps, rng)
        assert 0 <= forwarded <= offered
        passed += (offered - forwarded) <= goal * offered
    return passed / trials


def test_flags_and_parameters() -> None:
    model = _model()
    assert model.name == "transient"
    assert not model.deterministic
    assert model.parameters() == {
        "capacity_pps": 10e6,
        "interrupts_per_s": 0.05,
        "interrupt_s": 0.01,
        "buffer_frames": 50_000.0,
    }


@pytest.mark.parametrize("goal", [0.0, 1e-4])
def test_median_trial_at_truth(goal: float) -> None:
    model = _model()
    truth = model.true_throughput(60.0, goal)
    assert truth < 0.9 * model.capacity_pps  # the stalls, not the cliff, set this truth
    assert model.pass_probability(60.0, truth, goal) == pytest.approx(0.5, abs=1e-6)
    assert 0.4 < _pass_rate(model, 60.0, truth, goal, 400) < 0.6
    assert _pass_rate(model, 60.0, 0.5 * truth, goal, 200) > 0.6
    assert _pass_rate(model, 60.0, 2.0 * truth, goal, 200) < 0.4


def test_ndr_closed_form() -> None:
    model = _model()
    stalls = 0.05 * 60.0
    expected = 50_000 / (0.01 * math.log(stalls / math.log(2.0)))
    assert model.true_ndr(60.0) == pytest.approx(expected, rel=1e-12)
    # Bisection on the analytic probability agrees as the goal shrinks to zero.
    assert model.true_throughput(60.0, 1e-12) == pytest.approx(expected, rel=1e-3)
    # Too few stalls per trial for the median trial to lose: the cliff decides.
    assert model.true_ndr(10.0) == 10e6


def test_longer_trials_lose_more_often() -> None:
    model = _model()
    load = 0.5 * model.capacity_pps
    short, long = _pass_rate(model, 1.0, load, 0.0, 300), _pass_rate(model, 60.0, load, 0.0, 300)
    assert short > 0.9
    assert long < short - 0.3
    truths = [model.true_ndr(d) for d in (1.0, 30.0, 60.0, 120.0, 600.0)]
    assert truths == sorted(truths, reverse=True)
    assert truths[-1] < truths[0]


def test_truth_never_above_cliff_and_probability_falls_with_load() -> None:
    for seed in range(10):
        model = make_model("transient", seed)
        assert isinstance(model, TransientInterrupts)
        for duration_s in (1.0, 60.0, 300.0):
            for goal in (0.0, 0.001, 0.005):
                cliff = model.capacity_pps / (1.0 - goal)
                assert 0 < model.true_throughput(duration_s, goal) <= cliff
    model = _model()
    probabilities = [model.pass_probability(60.0, n * 1e6, 1e-4) for n in range(1, 12)]
    assert probabilities == sorted(probabilities, reverse=True)
    assert model.pass_probability(60.0, 10.1e6, 1e-4) == 0.0


def test_random_draws_do_not_depend_on_load() -> None:
    model = _model()
    rng_low, rng_high = random.Random(3), random.Random(3)
    for _ in range(20):
        model.trial(60.0, 1e5, rng_low)
        model.trial(60.0, 9e6, rng_high)
    assert rng_low.getstate() == rng_high.getstate()


def test_stall_loss_is_whole_frames_beyond_the_buffer() -> None:
    model = TransientInterrupts(
        capacity_pps=10e6, interrupts_per_s=1000.0, interrupt_s=0.01, buffer_frames=1e9
    )
    # The buffer never overflows: stalls cost nothing.
    assert model.trial(1.0, 5e6, random.Random(1)) == (5_000_000, 5_000_000)
    no_buffer = TransientInterrupts(
        capacity_pps=10e6, interrupts_per_s=0.0, interrupt_s=0.01, buffer_frames=0.0
    )
    assert no_buffer.trial(1.0, 5e6, random.Random(1)) == (5_000_000, 5_000_000)
    assert no_buffer.true_ndr(60.0) == 10e6
