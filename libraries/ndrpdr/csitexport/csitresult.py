"""The ``result`` object of CSIT's test_case model (1.5.1) from one of our records.

Pure: a record in, a JSON-ready dict out (``ndrpdr.csitexport.csitmodel``
builds the rest of the document and says, field by field, what maps to
what). Rates are aggregate over directions [pps]; bandwidths [bps] include
20 B of L1 overhead per frame; latencies are whole microseconds.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from typing import Any

from ndrpdr.errors import NdrPdrError
from ndrpdr.profiles import FrameSize, bandwidth_bps

#: Our latency points (percent of the PDR lower bound) -> the model's keys.
LATENCY_KEYS = {0.0: "pdr_0", 10.0: "pdr_10", 50.0: "pdr_50", 90.0: "pdr_90"}


class CsitModelError(NdrPdrError):
    """A record that cannot be said in CSIT's model (the message names the test and field)."""


def _rate(pps: float, frame_size: FrameSize) -> dict[str, Any]:
    return {
        "rate": {"value": float(pps), "unit": "pps"},
        "bandwidth": {"value": bandwidth_bps(float(pps), frame_size), "unit": "bps"},
    }


def frame_size_of(record: Mapping[str, Any], test: str = "record") -> FrameSize:
    """The record's frame size (64, "IMIX"); CsitModelError when it has none."""
    frame = (record.get("profile") or {}).get("frame_size")
    if frame == "IMIX" or (isinstance(frame, int) and not isinstance(frame, bool)):
        return frame
    raise CsitModelError(f"{test}: profile.frame_size: {frame!r} is neither a size [B] nor IMIX")


def _stats(values: Sequence[float], unit: str) -> dict[str, Any]:
    return {
        "values": [float(v) for v in values],
        "avg": statistics.fmean(values),
        "stdev": statistics.pstdev(values),
        "unit": unit,
    }


def number(value: Any) -> float | None:
    """``value`` as a finite number >= 0, else None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) and value >= 0 else None


def _latency_numbers(direction: Mapping[str, Any]) -> dict[str, Any] | None:
    low, avg, high = (number(direction.get(k)) for k in ("min_us", "avg_us", "max_us"))
    if not direction.get("frames_measured") or low is None or avg is None or high is None:
        return None
    if math.ceil(high) < 1:  # CSIT takes a zero max for a TG that failed to measure
        return None
    return {
        "min": math.floor(low),
        "avg": round(avg),
        "max": math.ceil(high),
        "hdrh": "",
        "unit": "us",
    }


def latency_sections(record: Mapping[str, Any]) -> dict[str, Any]:
    """``latency_forward`` / ``latency_reverse`` of the model, for directions fully measured."""
    latency = record.get("latency") or {}
    points = {
        float(p.get("percent_of_pdr", -1)): p
        for p in latency.get("points") or []
        if float(p.get("percent_of_pdr", -1)) in LATENCY_KEYS
    }
    if len(points) < len(LATENCY_KEYS):
        return {}
    directions = int((record.get("profile") or {}).get("directions", 2))
    sections: dict[str, Any] = {}
    for index, name in enumerate(("latency_forward", "latency_reverse")[:directions]):
        loads: dict[str, Any] = {}
        for percent, key in LATENCY_KEYS.items():
            found = points[percent].get("directions") or []
            entries = [d for d in found if d.get("direction") == index]
            numbers = _latency_numbers(entries[0]) if entries else None
            if numbers is None:
                break
            loads[key] = numbers
        else:
            sections[name] = loads
    return sections


def ndrpdr_result(record: Mapping[str, Any]) -> dict[str, Any]:
    """The model's ``result`` of an NDRPDR record (``unknown`` when it has nothing to say)."""
    if record.get("incomplete"):
        return {"type": "unknown"}
    frame_size = frame_size_of(record)
    lowers: dict[str, Any] = {}
    for section in ("ndr", "pdr"):
        throughput = exported_throughput(record, section)
        if throughput is None:
            return {"type": "unknown"}
        lowers[section] = {"lower": _rate(throughput, frame_size)}
    return {"type": "ndrpdr", **lowers, **latency_sections(record)}


def exported_throughput(record: Mapping[str, Any], section: str) -> float | None:
    """What goes to CSIT's ``{section}.lower`` [pps]: the conditional throughput.

    A search that gives none (the binary and bswlv algorithms: RFC 2544's
    throughput is their lower bound) gives its relevant lower bound instead
    (``csit_caveats`` says so); None when the record has neither.
    """
    bounds = record.get(section) or {}
    throughput = number(bounds.get("conditional_throughput"))
    return throughput if throughput is not None else number(bounds.get("lower_bound"))


def mrr_result(record: Mapping[str, Any]) -> dict[str, Any]:
    """The model's ``result`` of an MRR record (``unknown`` without trials)."""
    stats = (record.get("mrr") or {}).get("receive_rate_pps") or {}
    rates = [float(v) for v in stats.get("values") or []]
    if not rates:
        return {"type": "unknown"}
    frame_size = frame_size_of(record)
    bits = [bandwidth_bps(rate, frame_size) for rate in rates]
    return {
        "type": "mrr",
        "receive_rate": {"rate": _stats(rates, "pps"), "bandwidth": _stats(bits, "bps")},
    }


def soak_result(record: Mapping[str, Any]) -> dict[str, Any]:
    """The model's ``result`` of a soak record: ``critical_rate`` with ``lower`` / ``upper``.

    CSIT's soak bounds are the critical load's estimate minus / plus one
    stdev, ours ``soak.critical_load_pps.lower`` / ``upper`` (``lower``
    floored at 0: the model's rates are not negative). ``unknown`` when
    the search failed (it stopped before its budget: no estimate to report)
    or measured no trial.
    """
    estimate = (record.get("soak") or {}).get("critical_load_pps")
    if record.get("status") != "passed" or not estimate:
        return {"type": "unknown"}
    frame_size = frame_size_of(record)
    return {
        "type": "soak",
        "critical_rate": {
            "lower": _rate(max(0.0, float(estimate["lower"])), frame_size),
            "upper": _rate(float(estimate["upper"]), frame_size),
        },
    }
