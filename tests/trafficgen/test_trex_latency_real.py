"""Latency trials on the real TRex v3.08 (software mode) through a kernel-forwarding DUT.

The testbed is ``test_trex_real``'s (its ``bed`` fixture: namespaces, veths,
the linux DUT and one TRex server of this module's own, with its own
--prefix); skipped like those tests without TRex or root. The latency
frames really cross the kernel DUT, so every value must be a real time
above 0; the checks are orderings and counts, with tolerance, not figures.
"""

from __future__ import annotations

import pytest
from tests.trafficgen.test_trex_real import PROFILE, Bed, bed

from ndrpdr.goals import ndr_pdr_goals
from ndrpdr.latencyrun import LATENCY_POINTS_PCT
from ndrpdr.results.irregular import IrregularPolicy
from ndrpdr.results.schema import validate_record
from ndrpdr.trafficgen.base import latency_measurer
from ndrpdr.trafficgen.latency import DirectionLatency
from ndrpdr.trafficgen.trex.latency import DEFAULT_STREAM_PPS
from search_call import search_call

pytestmark = pytest.mark.real  # a real system part: tests/testkinds.py

__all__ = ["bed"]  # the fixture, imported for this module


def assert_real(latency: DirectionLatency, frames_expected: float) -> None:
    """Latency frames came back with plausible, ordered values."""
    assert latency.measured, latency
    assert latency.min_us is not None and latency.avg_us is not None
    assert latency.max_us is not None
    assert 0 < latency.min_us <= latency.avg_us <= latency.max_us < 1e6, latency
    percentiles = [latency.p50_us, latency.p90_us, latency.p99_us, latency.p99_9_us]
    assert all(p is not None for p in percentiles), latency
    assert percentiles == sorted(percentiles)
    # most of the latency frames came back through the kernel DUT (a shared CPU may drop some)
    assert 0.9 * frames_expected <= latency.frames_measured <= frames_expected + 10, latency


def test_latency_streams_alone_and_beside_background(bed: Bed) -> None:
    tg = bed.generator()
    assert latency_measurer(tg) is tg
    try:
        idle = tg.measure_latency(1.0, 0.0)
        loaded = tg.measure_latency(1.0, 40_000.0)
    finally:
        tg.close()
    stream = tg.options.latency_pps or DEFAULT_STREAM_PPS
    assert idle.load_pps == 0 and idle.stream_pps == stream
    assert [d.direction for d in idle.directions] == [0, 1]
    for direction in idle.directions:
        assert_real(direction, stream * 1.0)
    # beside 20 kpps per direction the latency stream takes at most half of it
    assert loaded.stream_pps == min(stream, 10_000.0)
    for direction in loaded.directions:
        assert_real(direction, loaded.stream_pps * 1.0)
    # the background really ran: the trial's counts are the whole load, not the stream alone
    assert tg.last_trial is not None
    assert tg.last_trial.result.offered_count >= 0.95 * 40_000
    print(f"idle: {idle.directions}\nloaded: {loaded.directions}")


def test_a_search_is_followed_by_latency_at_the_pdr_points(bed: Bed) -> None:
    tg = bed.generator()
    goals = ndr_pdr_goals(
        final_trial_duration_s=0.5,
        initial_trial_duration_s=0.25,
        duration_sum_s=0.5,
        relative_width=0.1,
    )
    try:
        run = search_call(
            tg,
            topology=bed.topology,
            profile=PROFILE,
            frame_size=64,
            goals=goals,
            latency_duration_s=0.5,
            irregular=IrregularPolicy.WARN,  # software TRex on a busy host may fall short
        )
    finally:
        tg.close()
    assert run.error is None, run.error
    assert {item.reason.tag for item in run.irregular} <= {"TG_LIMITED"}, run.irregular
    validate_record(run.record.to_json())
    latency = run.record.to_json()["latency"]
    assert latency["status"] == "measured", latency
    pdr = run.record.to_json()["pdr"]["lower_bound"]
    assert latency["pdr_pps"] == pdr
    points = latency["points"]
    assert [p["percent_of_pdr"] for p in points] == list(LATENCY_POINTS_PCT)
    for point in points:
        assert point["load_pps"] == pdr * point["percent_of_pdr"] / 100
        for direction in point["directions"]:
            assert direction["frames_measured"] > 0, point
            assert 0 < direction["min_us"] <= direction["avg_us"] <= direction["max_us"]
