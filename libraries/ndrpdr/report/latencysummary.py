"""The latency section of a result record as test message lines and metadata.

Read only from the record's ``latency`` section (``ndrpdr.latencyrun``),
so the message and the metadata say what the JSON record says. A record
without the section (before 1.2.0) or with latency turned off gives
nothing; a TG without latency gives "Latency: not measured (why)", never
zeros.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: Direction labels: 0 leaves TG port 0 for port 1, 1 the reverse.
DIRECTION_NAMES: Mapping[int, str] = {0: "forward", 1: "reverse"}
DIRECTION_KEYS: Mapping[int, str] = {0: "FWD", 1: "REV"}
#: Fields that go to metadata, with their key suffix.
METADATA_FIELDS: tuple[tuple[str, str], ...] = (
    ("min_us", "MIN"),
    ("avg_us", "AVG"),
    ("max_us", "MAX"),
    ("p50_us", "P50"),
    ("p99_us", "P99"),
)
#: Reasons that leave the message alone (the user chose it).
_QUIET_REASONS = frozenset({"turned off", "not asked for"})


def format_us(value: float | None) -> str:
    """Microseconds, compact: 1 decimal under 10 us, whole above ("n/a" for None)."""
    if value is None:
        return "n/a"
    return f"{value:.1f}" if value < 10 else f"{value:.0f}"


def direction_name(direction: int) -> str:
    """A direction's name: "forward", "reverse" (``DIRECTION_NAMES``), else "direction N"."""
    return DIRECTION_NAMES.get(direction, f"direction {direction}")


def _direction_text(entry: Mapping[str, Any]) -> str:
    name = direction_name(entry["direction"])
    if not entry.get("frames_measured"):
        return f"{name} no latency frames came back"
    text = (
        f"{name} min/avg/max {format_us(entry['min_us'])}/{format_us(entry['avg_us'])}/"
        f"{format_us(entry['max_us'])} us"
    )
    if entry.get("p99_us") is not None:
        text += f", p99 {format_us(entry['p99_us'])} us"
    return text


def point_line(point: Mapping[str, Any]) -> str:
    """One load point (a record's ``latency.points`` item) as a message line."""
    load_pps = point["load_pps"]
    load = f"{load_pps / 1e6:.4f} Mpps" if load_pps > 0 else "latency streams only"
    directions = "; ".join(_direction_text(d) for d in point["directions"])
    return f"Latency at {point['percent_of_pdr']:g} % PDR ({load}): {directions}"


def latency_lines(record: Mapping[str, Any]) -> list[str]:
    """Message lines: one per load point, e.g.

    ``Latency at 90 % PDR (3.9567 Mpps): forward min/avg/max 11/18/55 us, p99 42 us;
    reverse ...``; or ``Latency: not measured (the local TG cannot measure
    latency)``; or ``Latency: failed (...)`` after the points measured.
    """
    section = record.get("latency")
    if not isinstance(section, Mapping):
        return []
    status, reason = section.get("status"), section.get("reason")
    lines = [point_line(point) for point in section.get("points") or []]
    if status == "not measured" and reason not in _QUIET_REASONS:
        lines.append(f"Latency: not measured ({reason})")
    elif status == "failed":
        lines.append(f"Latency: failed ({reason})")
    return lines


def latency_metadata(record: Mapping[str, Any]) -> dict[str, str]:
    """Metadata: ``LATENCY`` (measured / not measured / failed) and per point and direction
    ``LAT_<percent>PDR_<FWD|REV>_<MIN|AVG|MAX|P50|P99>_US`` [us], e.g. ``LAT_90PDR_FWD_AVG_US``.

    Values are plain decimals; a direction without latency frames has no keys.
    Latency turned off (or not asked for) gives no keys at all, as in the message.
    """
    section = record.get("latency")
    if not isinstance(section, Mapping) or section.get("reason") in _QUIET_REASONS:
        return {}
    values = {"LATENCY": str(section.get("status"))}
    for point in section.get("points") or []:
        percent = f"{point['percent_of_pdr']:g}".replace(".", "P")
        for entry in point["directions"]:
            key = DIRECTION_KEYS.get(entry["direction"], f"DIR{entry['direction']}")
            for field, suffix in METADATA_FIELDS:
                value = entry.get(field)
                if value is not None:
                    text = f"{value:.3f}".rstrip("0").rstrip(".") or "0"
                    values[f"LAT_{percent}PDR_{key}_{suffix}_US"] = text
    return values
