"""The jitter DUT model: a capacity level that moves a little, both ways, from trial to trial."""

from __future__ import annotations

import math
import random
import statistics

import pytest

from ndrpdr.search.errors import SearchInputError
from ndrpdr.trafficgen.sim import CapacityJitter, SimulatedMeasurer, make_model


def _levels(model: CapacityJitter, duration_s: float, trials: int) -> list[float]:
    """Each trial's level [pps], read from a trial at twice the capacity (it forwards its level)."""
    rng = random.Random(5)
    load = 2 * model.capacity_pps
    levels = []
    for _ in range(trials):
        offered, forwarded = model.trial(duration_s, load, rng)
        assert offered == round(load * duration_s)
        levels.append(forwarded / duration_s)
    return levels


def test_the_level_is_log_normal_around_the_capacity_whatever_the_duration() -> None:
    model = CapacityJitter(capacity_pps=5e6, jitter=0.01)
    assert model.name == "jitter" and not model.deterministic
    for duration_s in (1.0, 60.0):
        logs = [math.log(level / 5e6) for level in _levels(model, duration_s, 4000)]
        assert abs(statistics.fmean(logs)) < 0.001
        assert statistics.stdev(logs) == pytest.approx(0.01, rel=0.05)


def test_the_median_trial_meets_the_goal_at_the_truth() -> None:
    model = CapacityJitter(capacity_pps=5e6, jitter=0.02)
    rng = random.Random(9)
    for loss_ratio in (0.0, 0.005):
        truth = model.true_throughput(10.0, loss_ratio)
        assert truth == pytest.approx(5e6 / (1 - loss_ratio))
        for load, low, high in (
            (truth, 0.45, 0.55),
            (truth * 0.97, 0.9, 1.0),
            (truth * 1.03, 0, 0.1),
        ):
            passed = 0
            for _ in range(2000):
                offered, forwarded = model.trial(10.0, load, rng)
                passed += (offered - forwarded) <= loss_ratio * offered
            assert low <= passed / 2000 <= high, (loss_ratio, load / truth, passed)


def test_one_draw_per_trial_and_seeds_reproduce() -> None:
    model = make_model("jitter", seed=4)
    assert isinstance(model, CapacityJitter)
    first = SimulatedMeasurer(model, overhead_s=0.0, seed=3)
    again = SimulatedMeasurer(make_model("jitter", seed=4), overhead_s=0.0, seed=3)
    loads = (1e6, 30e6, 1e6)
    assert [first.measure(1.0, x).forwarded_count for x in loads] == [
        again.measure(1.0, x).forwarded_count for x in loads
    ]
    rng, twin = random.Random(1), random.Random(1)
    model.trial(1.0, 1e6, rng)
    twin.random()
    assert rng.random() == twin.random()  # exactly one number drawn


@pytest.mark.parametrize(("capacity", "jitter"), [(0.0, 0.01), (1e6, 0.0), (1e6, -0.1)])
def test_bad_parameters_are_named(capacity: float, jitter: float) -> None:
    with pytest.raises(SearchInputError, match=r"capacity_pps|jitter"):
        CapacityJitter(capacity_pps=capacity, jitter=jitter)
