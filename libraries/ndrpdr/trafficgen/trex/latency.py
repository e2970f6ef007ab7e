"""Latency trials on TRex: latency streams beside the background traffic, TRex's flow stats read.

One latency stream per direction (``STLFlowLatencyStats``, ``pg_id`` =
direction, the direction's smallest frame) runs at ``stream_pps`` beside
the direction's background streams at the asked load (the latency stream
is part of it, at most half of it); at load 0 the latency streams run
alone. TRex reports per pg_id ``total_min``, ``average`` (its own
smoothed average), ``total_max`` and a histogram (``counts.Latency``).

TRex's histogram buckets [us]: key ``0`` holds latencies under 10 us; a
key ``d x 10^m`` (d = 1..9, m >= 1) holds [d x 10^m, (d + 1) x 10^m).
``histogram_percentile`` interpolates linearly inside the bucket that
holds the percentile's rank, then keeps the value within TRex's min and
max; so percentiles are estimates, as coarse as the buckets.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from ndrpdr.trafficgen.latency import (
    PERCENTILES,
    DirectionLatency,
    LatencyResult,
    LatencyValueError,
)
from ndrpdr.trafficgen.trex.counts import Latency
from ndrpdr.trafficgen.trex.streams import DirectionTraffic, StreamSpec

#: The latency stream's rate per direction by default [pps] (options.latency_pps > 0 wins).
DEFAULT_STREAM_PPS = 10_000.0
#: How the values are obtained (the record's ``method``).
METHOD = (
    "TRex flow stats (latency streams): min/avg/max from TRex (else its histogram), "
    "percentiles estimated from its histogram"
)


def bucket_range(key: int) -> tuple[float, float]:
    """The latencies [us] TRex's histogram bucket ``key`` holds: [low, high)."""
    if key < 0:
        raise LatencyValueError(f"TRex latency histogram bucket {key} < 0")
    if key < 10:
        return 0.0, 10.0
    magnitude = 10 ** (len(str(key)) - 1)
    digit = key // magnitude
    return float(key), float((digit + 1) * magnitude)


def histogram_percentile(
    histogram: Mapping[int, int], percent: float, min_us: float, max_us: float
) -> float:
    """The ``percent`` percentile [us] of TRex's ``histogram``, within ``min_us``..``max_us``.

    Linear inside the bucket holding the rank ``percent`` % of the frames.
    """
    total = sum(histogram.values())
    if total <= 0:
        raise LatencyValueError("percentile of an empty TRex latency histogram")
    rank = percent / 100.0 * total
    seen = 0
    value = max_us
    for key in sorted(histogram):
        count = histogram[key]
        if count <= 0:
            continue
        if seen + count >= rank:
            low, high = bucket_range(key)
            value = low + (high - low) * max(0.0, rank - seen) / count
            break
        seen += count
    return min(max(value, min_us), max_us)


def histogram_summary(histogram: Mapping[int, int]) -> tuple[float, float, float]:
    """(lowest bucket's low edge, mean of bucket middles, highest bucket's high edge) [us]."""
    filled = sorted(key for key, count in histogram.items() if count > 0)
    if not filled:
        raise LatencyValueError("an empty TRex latency histogram")
    total = sum(histogram[key] for key in filled)
    mean = math.fsum(histogram[k] * sum(bucket_range(k)) / 2 for k in filled) / total
    return bucket_range(filled[0])[0], mean, bucket_range(filled[-1])[1]


def direction_latency(direction: int, latency: Latency | None) -> DirectionLatency:
    """One direction's DirectionLatency from TRex's Latency of its pg_id (None: no stats).

    Frames measured are the histogram's frames (none: not measured, values
    None). TRex's min and max are kept when they make sense; TRex leaves
    its max (and smoothed average) at 0 until its periodic update, and its
    max skips the first frames, so the max is at least the low edge of the
    highest bucket, and a missing min / max / average comes from the
    histogram's bucket edges / middles. ``dropped`` is ``frames_lost``.
    """
    if latency is None:
        return DirectionLatency(direction, 0, None, None, None)
    lost = latency.dropped
    frames = sum(count for count in latency.histogram.values() if count > 0)
    if frames <= 0:
        return DirectionLatency(direction, 0, None, None, None, frames_lost=lost)
    edge_low, middle, edge_high = histogram_summary(latency.histogram)
    top_low = bucket_range(max(k for k, c in latency.histogram.items() if c > 0))[0]

    def given(value: float | None) -> float | None:
        return value if value is not None and math.isfinite(value) and value > 0 else None

    trex_min, trex_max = given(latency.min_us), given(latency.max_us)
    trex_avg = given(latency.avg_us)
    high = max(trex_max, top_low) if trex_max is not None else edge_high
    low = trex_min if trex_min is not None and trex_min <= high else min(edge_low, high)
    avg = trex_avg if trex_avg is not None else middle
    percentiles = {
        field: round(histogram_percentile(latency.histogram, percent, low, high), 3)
        for percent, field in PERCENTILES
    }
    return DirectionLatency(
        direction=direction,
        frames_measured=frames,
        min_us=low,
        avg_us=round(min(max(avg, low), high), 3),
        max_us=high,
        frames_lost=lost,
        p50_us=percentiles["p50_us"],
        p90_us=percentiles["p90_us"],
        p99_us=percentiles["p99_us"],
        p99_9_us=percentiles["p99_9_us"],
    )


def latency_streams(
    traffic: DirectionTraffic, rate_pps: float, stream_pps: float
) -> tuple[StreamSpec, ...]:
    """A direction's streams for a latency trial: background at ``rate_pps`` [pps] with its
    latency stream, or (``rate_pps`` 0) the latency stream alone at ``stream_pps``."""
    if rate_pps > 0:
        return traffic.streams(rate_pps, stream_pps)  # takes stream_rate() of the rate
    _, packet, _ = min(traffic.packets)
    return (
        StreamSpec(
            name=f"dir{traffic.direction}-latency",
            direction=traffic.direction,
            packet=packet,
            pps=stream_pps,
            latency_pg_id=traffic.direction,
        ),
    )


def stream_rate(rate_pps: float, stream_pps: float) -> float:
    """The latency stream's rate per direction [pps]: ``stream_pps``, at most half of a
    direction's background ``rate_pps`` (all of it at rate 0)."""
    return stream_pps if rate_pps <= 0 else min(stream_pps, rate_pps / 2)


def trex_latency_result(
    latency: Mapping[int, Latency],
    *,
    directions: tuple[int, ...],
    duration_s: float,
    load_pps: float,
    stream_pps: float,
) -> LatencyResult:
    """The LatencyResult of a latency trial from TRex's Latency by pg_id (= direction)."""
    return LatencyResult(
        duration_s=duration_s,
        load_pps=load_pps,
        stream_pps=stream_pps,
        directions=tuple(direction_latency(d, latency.get(d)) for d in directions),
        method=METHOD,
    )
