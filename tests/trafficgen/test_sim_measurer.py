"""SimulatedMeasurer: counts, simulated clock, determinism, TG shortfall, input checks."""

from __future__ import annotations

import math
import re

import pytest

from ndrpdr.search.errors import SearchInputError
from ndrpdr.search.trial import Measurer, TrialResult
from ndrpdr.trafficgen.sim import MODEL_NAMES, SharpCliff, SimulatedMeasurer, make_model

LOADS_PPS = (1e6, 5e6, 9e6, 12e6, 18e6, 25e6)


def _run(measurer: SimulatedMeasurer) -> list[TrialResult]:
    return [measurer.measure(duration, load) for duration in (0.5, 60.0) for load in LOADS_PPS]


def test_counts_and_clock() -> None:
    measurer = SimulatedMeasurer(SharpCliff(capacity_pps=9.1e6), overhead_s=0.5, seed=7)
    assert isinstance(measurer, Measurer)
    assert measurer.clock_s == 0.0 and measurer.trial_count == 0 and measurer.trials == []
    first = measurer.measure(duration=1.0, load=1e6)
    assert first == TrialResult(
        duration=1.0,
        load=1e6,
        offered_count=1_000_000,
        forwarded_count=1_000_000,
        intended_count=1_000_000,
        effective_duration=1.0,
    )
    assert measurer.clock_s == 1.5
    second = measurer.measure(duration=2.5, load=10e6)
    assert second.offered_count == 25_000_000
    assert second.forwarded_count == 22_750_000
    assert second.loss_ratio == pytest.approx(0.09)
    assert second.effective_duration == 2.5
    assert measurer.clock_s == pytest.approx(1.5 + 3.0)
    assert measurer.clock() == measurer.clock_s
    assert measurer.trial_count == 2
    assert measurer.trials == [first, second]
    measurer.trials.clear()  # a copy: the measurer's record is untouched
    assert measurer.trial_count == 2


def test_zero_load_gives_zero_counts() -> None:
    measurer = SimulatedMeasurer(make_model("sporadic", 1), overhead_s=0.0)
    result = measurer.measure(1.0, 0.0)
    assert (result.offered_count, result.forwarded_count, result.intended_count) == (0, 0, 0)
    assert result.loss_ratio == 0.0
    assert measurer.clock_s == 1.0


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_same_seed_same_results(name: str) -> None:
    first = _run(SimulatedMeasurer(make_model(name, 4), seed=9))
    second = _run(SimulatedMeasurer(make_model(name, 4), seed=9))
    assert first == second
    other = _run(SimulatedMeasurer(make_model(name, 4), seed=10))
    if make_model(name, 4).deterministic:
        assert other == first
    else:
        assert other != first


def test_different_seeds_differ_on_noisy_models() -> None:
    for name in ("transient", "sporadic"):
        model = make_model(name, 2)
        results = []
        for seed in (1, 2):
            measurer = SimulatedMeasurer(model, seed=seed)
            load = model.true_ndr(1.0)  # the cliff: stalls overflow the buffer here
            results.append([measurer.measure(60.0, load).forwarded_count for _ in range(40)])
        assert results[0] != results[1]


def test_tg_shortfall_counts_unsent_frames_as_lost() -> None:
    measurer = SimulatedMeasurer(SharpCliff(capacity_pps=10e6), max_tg_rate_pps=5e6)
    result = measurer.measure(2.0, 8e6)
    assert result.intended_count == 16_000_000
    assert result.offered_count == 10_000_000
    assert result.forwarded_count == 10_000_000
    assert result.loss_ratio == pytest.approx(3.0 / 8.0)
    assert result.forwarding_rate == pytest.approx(5e6)
    below = measurer.measure(2.0, 4e6)
    assert below.loss_ratio == 0.0 and below.intended_count == below.offered_count


@pytest.mark.parametrize(
    ("duration", "load", "bad"),
    [
        (0.0, 1e6, "0.0"),
        (-1.0, 1e6, "-1.0"),
        (math.nan, 1e6, "nan"),
        (math.inf, 1e6, "inf"),
        (1.0, -3.0, "-3.0"),
        (1.0, math.nan, "nan"),
        (1.0, math.inf, "inf"),
        (1.0, "1e6", "'1e6'"),
    ],
)
def test_bad_inputs_raise(duration: float, load: float, bad: str) -> None:
    measurer = SimulatedMeasurer(SharpCliff(capacity_pps=1e6))
    with pytest.raises(SearchInputError) as info:
        measurer.measure(duration, load)
    assert bad in str(info.value)
    assert measurer.trial_count == 0 and measurer.clock_s == 0.0


def test_bad_construction_raises() -> None:
    model = SharpCliff(capacity_pps=1e6)
    with pytest.raises(SearchInputError, match=re.escape("overhead_s=-0.1")):
        SimulatedMeasurer(model, overhead_s=-0.1)
    with pytest.raises(SearchInputError, match="max_tg_rate_pps=0"):
        SimulatedMeasurer(model, max_tg_rate_pps=0.0)
