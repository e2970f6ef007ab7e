"""Latency result types: invariants, exact percentiles of samples, JSON form."""

from __future__ import annotations

import random

import pytest

from ndrpdr.trafficgen.latency import (
    DirectionLatency,
    LatencyResult,
    LatencyValueError,
    latency_from_samples,
    percentile_of_sorted,
)


def test_nearest_rank_percentiles() -> None:
    samples = [float(v) for v in range(1, 101)]  # 1 .. 100
    assert percentile_of_sorted(samples, 50) == 50
    assert percentile_of_sorted(samples, 99) == 99
    assert percentile_of_sorted(samples, 99.9) == 100
    assert percentile_of_sorted([7.0], 0) == 7
    with pytest.raises(LatencyValueError):
        percentile_of_sorted([], 50)


def test_samples_give_ordered_values() -> None:
    rng = random.Random(5)
    samples = [rng.expovariate(0.1) + 3 for _ in range(1000)]
    latency = latency_from_samples(1, samples, frames_measured=50_000)
    assert latency.direction == 1 and latency.frames_measured == 50_000
    assert latency.min_us == pytest.approx(min(samples), abs=1e-3)
    assert latency.max_us == pytest.approx(max(samples), abs=1e-3)
    assert latency.avg_us == pytest.approx(sum(samples) / len(samples), abs=1e-3)
    ordered = [latency.min_us, latency.p50_us, latency.p90_us, latency.p99_us, latency.p99_9_us]
    assert ordered == sorted(ordered) and latency.p99_9_us <= latency.max_us  # type: ignore[operator]
    assert latency.measured


def test_no_frames_is_not_measured_not_zero() -> None:
    latency = latency_from_samples(0, [])
    assert not latency.measured
    assert latency.to_json()["min_us"] is None and latency.to_json()["avg_us"] is None
    with pytest.raises(LatencyValueError, match="values without frames"):
        DirectionLatency(0, 0, 1.0, 1.0, 1.0)


@pytest.mark.parametrize(
    ("values", "match"),
    [
        ((5.0, 4.0, 9.0), "min 5.0 <= avg 4.0"),
        ((1.0, 2.0, None), "must be finite"),
        ((-1.0, 2.0, 3.0), "must be finite and >= 0"),
    ],
)
def test_inconsistent_values_are_refused(
    values: tuple[float, float, float | None], match: str
) -> None:
    with pytest.raises(LatencyValueError, match=match):
        DirectionLatency(3, 10, *values)


def test_percentiles_must_lie_in_order_within_min_max() -> None:
    with pytest.raises(LatencyValueError, match="not ordered"):
        DirectionLatency(0, 10, 1.0, 2.0, 3.0, p50_us=2.5, p90_us=2.0)
    with pytest.raises(LatencyValueError, match="not ordered"):
        DirectionLatency(0, 10, 1.0, 2.0, 3.0, p99_us=4.0)


def test_result_json() -> None:
    direction = latency_from_samples(0, [1.0, 2.0, 3.0])
    result = LatencyResult(5.0, 1e6, 10_000.0, (direction,), method="m")
    data = result.to_json()
    assert data["load_pps"] == 1e6 and data["stream_pps"] == 10_000.0 and data["method"] == "m"
    assert data["directions"] == [direction.to_json()]
    assert set(direction.to_json()) >= {"p50_us", "p90_us", "p99_us", "p99_9_us", "frames_lost"}
