"""Latency of one latency trial: per direction min/avg/max and percentiles [us].

A TG that can measure latency (``ndrpdr.trafficgen.base.LatencyMeasurer``)
runs latency streams (a low fixed rate per direction) beside background
traffic at the asked load and returns a ``LatencyResult``: one
``DirectionLatency`` per direction, from the latency frames received.
Percentiles are estimates where the TG reports a histogram rather than
every sample (TRex); ``latency_from_samples`` gives exact ones for a
list of samples (the simulator). A TG that cannot measure latency returns
None: "not measured", never zeros.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

#: The percentiles reported [%], with the field of DirectionLatency holding each.
PERCENTILES: tuple[tuple[float, str], ...] = (
    (50.0, "p50_us"),
    (90.0, "p90_us"),
    (99.0, "p99_us"),
    (99.9, "p99_9_us"),
)


class LatencyValueError(ValueError):
    """Latency values that do not hold together (min <= avg <= max, percentiles in order)."""


@dataclasses.dataclass(frozen=True)
class DirectionLatency:
    """Latency of one direction's latency frames in one trial [us].

    ``direction`` 0 leaves TG port 0 for port 1, 1 the reverse;
    ``frames_measured`` is how many latency frames came back (0: the
    values are None). ``p50_us`` .. ``p99_9_us`` are the 50th, 90th, 99th
    and 99.9th percentiles (None when the TG gives no distribution).
    ``frames_lost`` counts latency frames sent but not received (None:
    unknown).
    """

    direction: int
    frames_measured: int
    min_us: float | None
    avg_us: float | None
    max_us: float | None
    p50_us: float | None = None
    p90_us: float | None = None
    p99_us: float | None = None
    p99_9_us: float | None = None
    frames_lost: int | None = None

    def __post_init__(self) -> None:
        where = f"direction {self.direction} latency"
        if self.frames_measured < 0:
            raise LatencyValueError(f"{where}: frames_measured={self.frames_measured} < 0")
        values = (self.min_us, self.avg_us, self.max_us)
        if self.frames_measured == 0:
            if any(v is not None for v in values):
                raise LatencyValueError(f"{where}: values without frames measured")
            return
        if any(v is None or not math.isfinite(v) or v < 0 for v in values):
            raise LatencyValueError(f"{where}: min/avg/max {values} must be finite and >= 0")
        low, avg, high = (float(v or 0.0) for v in values)
        if not low <= avg <= high:
            raise LatencyValueError(f"{where}: min {low} <= avg {avg} <= max {high} does not hold")
        given = [v for v in self.percentiles().values() if v is not None]
        if any(not (low <= v <= high) for v in given) or given != sorted(given):
            raise LatencyValueError(
                f"{where}: percentiles {self.percentiles()} are not ordered within min..max"
            )

    @property
    def measured(self) -> bool:
        """True when latency frames came back (the values are set)."""
        return self.frames_measured > 0

    def percentiles(self) -> dict[float, float | None]:
        """The percentiles by percent (50.0, 90.0, 99.0, 99.9) [us]."""
        return {percent: getattr(self, field) for percent, field in PERCENTILES}

    def to_json(self) -> dict[str, float | int | None]:
        """As a JSON object (the result record's field names)."""
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class LatencyResult:
    """One latency trial: ``duration_s`` [s] at background ``load_pps`` [pps, aggregate].

    ``stream_pps`` is each direction's latency stream rate [pps] (part of
    ``load_pps`` when the load is above 0; the only traffic at load 0).
    ``method`` says how the values were obtained (e.g. "TRex flow stats,
    percentiles from its histogram").
    """

    duration_s: float
    load_pps: float
    stream_pps: float
    directions: tuple[DirectionLatency, ...]
    method: str = ""

    def to_json(self) -> dict[str, object]:
        """As a JSON object (the result record's field names)."""
        return {
            "duration_s": self.duration_s,
            "load_pps": self.load_pps,
            "stream_pps": self.stream_pps,
            "method": self.method,
            "directions": [d.to_json() for d in self.directions],
        }


def percentile_of_sorted(samples: Sequence[float], percent: float) -> float:
    """The ``percent`` percentile of sorted ``samples`` (nearest rank: the smallest sample
    with at least ``percent`` % of the samples at or below it)."""
    if not samples:
        raise LatencyValueError("percentile of no samples")
    rank = max(1, math.ceil(percent / 100.0 * len(samples)))
    return float(samples[min(rank, len(samples)) - 1])


def latency_from_samples(
    direction: int, samples_us: Sequence[float], *, frames_measured: int | None = None
) -> DirectionLatency:
    """Exact min/avg/max and percentiles of ``samples_us`` [us], to 0.001 us.

    ``frames_measured`` (default: the number of samples) is reported as
    such, for samples that stand for more frames.
    """
    ordered = sorted(round(float(v), 3) for v in samples_us)  # 1 ns is plenty
    if not ordered:
        return DirectionLatency(direction, 0, None, None, None)
    values = {field: percentile_of_sorted(ordered, percent) for percent, field in PERCENTILES}
    avg = min(max(round(math.fsum(ordered) / len(ordered), 3), ordered[0]), ordered[-1])
    return DirectionLatency(
        direction=direction,
        frames_measured=len(ordered) if frames_measured is None else frames_measured,
        min_us=ordered[0],
        avg_us=avg,
        max_us=ordered[-1],
        p50_us=values["p50_us"],
        p90_us=values["p90_us"],
        p99_us=values["p99_us"],
        p99_9_us=values["p99_9_us"],
    )
