"""TRex latency: histogram buckets and percentiles, the direction values, latency trials.

TRex's histogram format is the server's (``time_histogram.cpp``: key 0
under 10 us, key d x 10^m for [d x 10^m, (d + 1) x 10^m)); the trials
run over the stand-in client of ``trex_standin.py`` (exact stream specs
and stats; the real TRex runs in ``test_trex_latency_real.py``).
"""

from __future__ import annotations

import pytest
from trex_standin import CSIT, rig, topology_with

from ndrpdr.topology.loader import load_topology
from ndrpdr.trafficgen.latency import LatencyValueError
from ndrpdr.trafficgen.trex.counts import Latency
from ndrpdr.trafficgen.trex.latency import (
    DEFAULT_STREAM_PPS,
    bucket_range,
    direction_latency,
    histogram_percentile,
    stream_rate,
)


@pytest.mark.parametrize(
    ("key", "expected"),
    [(0, (0, 10)), (10, (10, 20)), (90, (90, 100)), (100, (100, 200)), (2000, (2000, 3000))],
)
def test_bucket_ranges(key: int, expected: tuple[float, float]) -> None:
    assert bucket_range(key) == expected


def test_percentiles_interpolate_inside_buckets_within_min_max() -> None:
    histogram = {10: 50, 20: 40, 100: 10}  # 100 frames
    assert histogram_percentile(histogram, 50, 10, 150) == pytest.approx(20.0)  # top of 10..20
    assert histogram_percentile(histogram, 70, 10, 150) == pytest.approx(25.0)  # half of 20..30
    assert histogram_percentile(histogram, 95, 10, 150) == pytest.approx(150.0)  # 150 is max
    assert histogram_percentile(histogram, 1, 12, 150) == pytest.approx(12.0)  # min clamps
    with pytest.raises(LatencyValueError):
        histogram_percentile({}, 50, 1, 2)


def test_direction_values_from_trex() -> None:
    stats = Latency(0, 12.0, 30.0, 180.0, histogram={10: 50, 20: 40, 100: 10}, dropped=2)
    latency = direction_latency(0, stats)
    assert latency.frames_measured == 100 and latency.frames_lost == 2
    assert (latency.min_us, latency.avg_us, latency.max_us) == (12.0, 30.0, 180.0)
    assert latency.p50_us == 20.0 and latency.p99_9_us is not None and latency.p99_9_us <= 180


def test_trex_values_not_yet_updated_come_from_the_histogram() -> None:
    # TRex leaves max and its smoothed average at 0 before its periodic update
    stats = Latency(1, 0.0, 0.0, 0.0, histogram={20: 3, 500: 1})
    latency = direction_latency(1, stats)
    assert latency.min_us == 20 and latency.max_us == 600
    assert latency.avg_us == pytest.approx((3 * 25 + 550) / 4)
    # a max below the highest bucket (TRex skips its first frames) is raised to it
    skipped = Latency(1, 15.0, 40.0, 90.0, histogram={10: 5, 300: 1})
    assert direction_latency(1, skipped).max_us == 300


def test_no_latency_frames_is_not_measured() -> None:
    assert not direction_latency(0, None).measured
    assert not direction_latency(0, Latency(0, 0.0, 0.0, 0.0, histogram={})).measured


def test_stream_rate() -> None:
    assert stream_rate(0, 10_000) == 10_000  # alone at load 0
    assert stream_rate(1e6, 10_000) == 10_000
    assert stream_rate(8_000, 10_000) == 4_000  # at most half the direction's rate


def test_latency_trial_alone_and_beside_background() -> None:
    latency = {
        0: {"latency": {"total_min": 5.0, "average": 7.0, "total_max": 40.0, "histogram": {}}},
        1: {"latency": {"total_min": 6.0, "average": 8.0, "total_max": 30.0, "histogram": {}}},
    }
    latency[0]["latency"]["histogram"] = {"0": 2, "10": 8}
    latency[1]["latency"]["histogram"] = {"10": 10}
    r = rig(topology_with(load_topology(CSIT)), latency=latency)
    idle = r.tg.measure_latency(2.0, 0.0)
    starts = [c for c in r.client.calls if c[0] == "start"]
    assert starts[-1][2] == f"{DEFAULT_STREAM_PPS:.3f}pps"  # the latency streams alone
    added = [c[1] for c in r.client.calls if c[0] == "add_streams"]
    assert [[(s.name, s.pps, s.latency_pg_id) for s in specs] for specs in added] == [
        [("dir0-latency", DEFAULT_STREAM_PPS, 0)],
        [("dir1-latency", DEFAULT_STREAM_PPS, 1)],
    ]
    assert idle.load_pps == 0 and idle.stream_pps == DEFAULT_STREAM_PPS
    assert [d.frames_measured for d in idle.directions] == [10, 10]
    assert idle.directions[0].min_us == 5.0 and idle.directions[1].max_us == 30.0
    r.client.calls.clear()
    loaded = r.tg.measure_latency(1.0, 2_000_000.0)
    added = [c[1] for c in r.client.calls if c[0] == "add_streams"]
    assert [(s.name, s.pps, s.latency_pg_id) for s in added[0]] == [
        ("dir0-64B", 1_000_000.0 - DEFAULT_STREAM_PPS, None),
        ("dir0-latency", DEFAULT_STREAM_PPS, 0),
    ]
    assert [c for c in r.client.calls if c[0] == "start"][-1][2] == "1000000.000pps"
    assert loaded.load_pps == 2e6 and loaded.directions[0].avg_us == 7.0
