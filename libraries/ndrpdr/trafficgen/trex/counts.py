"""One TRex trial's counters -> TrialResult (pure: plain data in, plain data out).

Counting follows FD.io CSIT (``TrafficGenerator._get_measurement_result``)
and the rules every TG shares (``ndrpdr.trafficgen.counting``: forwarded
at most sent per direction, the surplus kept apart, a one-way direction
named, unsent frames counted as lost with CSIT's 10 us tolerance, the
stretch cut-off):

* direction *d* leaves TRex port ``tx`` and comes back on port ``rx``;
  sent = ``opackets`` of ``tx``, received = ``ipackets`` of ``rx`` (or
  what the driver counted at the receiving veths, ``vethcount``);
* effective duration = how long the traffic really ran (from TRex's start
  to the end of its traffic, measured by the driver);
* TRex's own warnings (its event log: queue full, high CPU utilisation,
  ...) and its global counters (TX queue full, CPU utilisation) become
  warnings of the TrialResult, after the shared ones; the search does not
  read them.

``parse_latency`` turns TRex's per-stream latency statistics (``min``,
``average``, ``max`` and the histogram [us]) into ``Latency`` records,
kept alongside the TrialResult in ``TrexTrial``.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from typing import Any

from ndrpdr.search.trial import TrialResult
from ndrpdr.trafficgen import counting
from ndrpdr.trafficgen.base import TrafficGeneratorError

#: TRex's CPU utilisation [%] above which its console marks it red; the TG may be the limit.
HIGH_CPU_UTIL_PCT = 85.0


@dataclasses.dataclass(frozen=True)
class PortCounts:
    """Frames one TRex port sent (``opackets``) and received (``ipackets``) in the trial."""

    opackets: int
    ipackets: int


@dataclasses.dataclass(frozen=True)
class Latency:
    """Latency of one latency stream (TRex packet group ``pg_id``) [us].

    ``histogram`` maps a bucket's lower bound [us] to frames in it (TRex's
    logarithmic buckets); ``hdrh`` is TRex's HDR histogram (base64) when it
    runs with ``--hdrh``. Values TRex did not report are None.
    """

    pg_id: int
    min_us: float | None
    avg_us: float | None
    max_us: float | None
    jitter_us: float | None = None
    histogram: Mapping[int, int] = dataclasses.field(default_factory=dict)
    hdrh: str | None = None
    dropped: int | None = None

    def __str__(self) -> str:
        def show(value: float | None) -> str:
            return "n/a" if value is None else f"{value:g}"

        return (
            f"pg_id {self.pg_id}: min/avg/max {show(self.min_us)}/{show(self.avg_us)}/"
            f"{show(self.max_us)} us"
        )


@dataclasses.dataclass(frozen=True)
class TrexTrial:
    """What one trial gave: the TrialResult and the latency by pg_id (empty without streams)."""

    result: TrialResult
    latency: Mapping[int, Latency] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class TrialCounts:
    """The plain inputs of one trial.

    ``duration`` [s] and ``load`` [pps, aggregate] are the intended ones;
    ``directions`` lists (sending port, receiving port) per direction;
    ``ports`` the counters by port; ``traffic_duration_s`` how long the
    traffic ran [s] (None: unknown, the intended duration is used);
    ``stopped_at_cutoff`` whether the driver had to stop traffic that was
    still running; ``trex_warnings`` TRex's warning events of the trial;
    ``queue_full`` TRex's count of TX queue-full events; ``cpu_util_pct``
    TRex's data-plane CPU utilisation [%].
    """

    duration: float
    load: float
    directions: Sequence[tuple[int, int]]
    ports: Mapping[int, PortCounts]
    traffic_duration_s: float | None = None
    stopped_at_cutoff: bool = False
    trex_warnings: Sequence[str] = ()
    queue_full: int = 0
    cpu_util_pct: float | None = None


def _count(where: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise TrafficGeneratorError(f"TRex stats: {where}={value!r} is not a count")
    if value < 0:
        raise TrafficGeneratorError(f"TRex stats: {where}={value!r} is negative")
    return int(value)


def _number(value: object) -> float | None:
    """``value`` as a float, or None for what is not a finite number (TRex's 'N/A' objects)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def port_counts(stats: Mapping[Any, Any], ports: Sequence[int]) -> dict[int, PortCounts]:
    """``opackets`` / ``ipackets`` of ``ports`` from STLClient.get_stats() output."""
    out: dict[int, PortCounts] = {}
    for port in ports:
        entry = stats.get(port)
        if entry is None:
            entry = stats.get(str(port))
        if not isinstance(entry, Mapping):
            raise TrafficGeneratorError(f"TRex stats have no counters for port {port}")
        out[port] = PortCounts(
            opackets=_count(f"port {port} opackets", entry.get("opackets")),
            ipackets=_count(f"port {port} ipackets", entry.get("ipackets")),
        )
    return out


def global_counts(stats: Mapping[Any, Any]) -> tuple[int, float | None]:
    """(TX queue-full events, CPU utilisation [%] or None) from get_stats()["global"]."""
    section = stats.get("global")
    if not isinstance(section, Mapping):
        return 0, None
    queue_full = _number(section.get("queue_full"))
    return (int(queue_full) if queue_full and queue_full > 0 else 0), _number(
        section.get("cpu_util")
    )


def trial_result(counts: TrialCounts) -> TrialResult:
    """The TrialResult of one trial (aggregate over directions), warnings included."""
    directions: list[counting.DirectionCount] = []
    for tx, rx in counts.directions:
        if tx not in counts.ports or rx not in counts.ports:
            raise TrafficGeneratorError(
                f"TRex stats: direction {tx}->{rx} needs counters of ports {tx} and {rx}, "
                f"have ports {sorted(counts.ports)}"
            )
        sent, received = counts.ports[tx].opackets, counts.ports[rx].ipackets
        directions.append(counting.DirectionCount(tx, rx, sent, received))
    traffic_s = counts.traffic_duration_s
    ran = counting.cutoff_s(counts.duration) if traffic_s is None else traffic_s
    stopped = {"TRex": ran} if counts.stopped_at_cutoff else {}
    warnings: list[str] = []
    if counts.queue_full > 0:
        warnings.append(
            f"TRex TX queue full {counts.queue_full} times: the TG did not keep up with "
            f"{counts.load:g} pps"
        )
    cpu = counts.cpu_util_pct
    if cpu is not None and cpu >= HIGH_CPU_UTIL_PCT:
        warnings.append(
            f"TRex CPU utilisation {cpu:.1f} % (>= {HIGH_CPU_UTIL_PCT:g} %): the TG may be "
            "the bottleneck"
        )
    warnings.extend(f"TRex: {text}" for text in counts.trex_warnings)
    shared = counting.TrialCounts(
        counts.duration, counts.load, directions, "TRex", traffic_s, stopped
    )
    return counting.counted_result(shared, warnings)


def _latency_from_text(pg_id: int, text: str) -> Latency:
    """CSIT's ``min/avg/max[/hdrh]`` [us] as printed by its TRex scripts."""
    parts = text.split("/", 3)
    if len(parts) < 3:
        raise TrafficGeneratorError(
            f"latency of pg_id {pg_id}: {text!r} is not 'min/avg/max[/hdrh]'"
        )
    values: list[float | None] = []
    for part in parts[:3]:
        try:
            values.append(float(part))
        except ValueError:
            values.append(None)
    hdrh = parts[3] if len(parts) == 4 and parts[3] else None
    return Latency(pg_id, values[0], values[1], values[2], hdrh=hdrh)


def _latency_from_mapping(pg_id: int, entry: Mapping[Any, Any]) -> Latency:
    inner = entry.get("latency", entry)
    if not isinstance(inner, Mapping):
        raise TrafficGeneratorError(f"latency of pg_id {pg_id}: {inner!r} is not a mapping")
    raw_histogram = inner.get("histogram") or {}
    histogram: dict[int, int] = {}
    if isinstance(raw_histogram, Mapping):
        for bucket, frames in raw_histogram.items():
            try:
                histogram[int(bucket)] = _count(f"latency pg_id {pg_id} histogram", frames)
            except (TypeError, ValueError) as exc:
                raise TrafficGeneratorError(
                    f"latency of pg_id {pg_id}: histogram bucket {bucket!r} is not a number"
                ) from exc
    errors = entry.get("err_cntrs")
    dropped = _number(errors.get("dropped")) if isinstance(errors, Mapping) else None
    hdrh = inner.get("hdrh")
    return Latency(
        pg_id=pg_id,
        min_us=_number(inner.get("total_min")),
        avg_us=_number(inner.get("average")),
        max_us=_number(inner.get("total_max")),
        jitter_us=_number(inner.get("jitter")),
        histogram=dict(sorted(histogram.items())),
        hdrh=hdrh if isinstance(hdrh, str) and hdrh else None,
        dropped=None if dropped is None else int(dropped),
    )


def parse_latency(latency: Mapping[Any, Any] | None) -> dict[int, Latency]:
    """``get_stats()["latency"]`` -> Latency by pg_id (the ``global`` entry is skipped).

    An entry is TRex's mapping (``{"latency": {"total_min", "average",
    "total_max", "jitter", "histogram", "hdrh"}, "err_cntrs": {...}}``) or
    CSIT's text ``"min/avg/max/hdrh"``.
    """
    out: dict[int, Latency] = {}
    for key, entry in (latency or {}).items():
        if key == "global":
            continue
        try:
            pg_id = int(key)
        except (TypeError, ValueError) as exc:
            raise TrafficGeneratorError(f"latency stats: {key!r} is not a pg_id") from exc
        if isinstance(entry, str):
            out[pg_id] = _latency_from_text(pg_id, entry)
        elif isinstance(entry, Mapping):
            out[pg_id] = _latency_from_mapping(pg_id, entry)
        else:
            raise TrafficGeneratorError(f"latency of pg_id {pg_id}: {entry!r} is not understood")
    return out


def trex_trial(
    stats: Mapping[Any, Any],
    *,
    duration: float,
    load: float,
    directions: Sequence[tuple[int, int]],
    traffic_duration_s: float | None,
    stopped_at_cutoff: bool = False,
    trex_warnings: Sequence[str] = (),
    received: Mapping[int, int] | None = None,
) -> TrexTrial:
    """A whole trial from STLClient.get_stats() output and what the driver measured.

    ``received``: frames the driver counted itself per receiving port (a
    local TRex's veths: ``vethcount``), in place of TRex's ``ipackets``.
    """
    ports = port_counts(stats, sorted({port for pair in directions for port in pair}))
    for port, frames in (received or {}).items():
        ports[port] = dataclasses.replace(ports[port], ipackets=frames)
    queue_full, cpu = global_counts(stats)
    counts = TrialCounts(
        duration=duration,
        load=load,
        directions=directions,
        ports=ports,
        traffic_duration_s=traffic_duration_s,
        stopped_at_cutoff=stopped_at_cutoff,
        trex_warnings=trex_warnings,
        queue_full=queue_full,
        cpu_util_pct=cpu,
    )
    latency = stats.get("latency")
    return TrexTrial(
        trial_result(counts),
        parse_latency(latency if isinstance(latency, Mapping) else None),
    )
