"""The latency after a search as an inline SVG chart, for log.html next to the trace plot.

``latency_svg`` draws the record's ``latency`` section
(``ndrpdr.latencyrun``): one column per load point (0, 10, 50, 90 % of
PDR), one whisker per direction in it: a thin line from min to max with
caps, a box from p50 to p99, ticks at p90 and p99.9 and a dot at the
average. The y axis is latency [us] on a log scale (idle and loaded
latencies differ by orders of magnitude). Nothing measured gives "".

Same conventions as ``traceplot``: one self-contained ``<svg>`` element,
inline attributes only, every text escaped. Pure functions: no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ndrpdr.report.latencysummary import direction_name, format_us
from ndrpdr.report.svgaxes import INK
from ndrpdr.report.svgtext import FONT, escape

_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd")
_GRID = "#e0e0e0"
_LEFT, _RIGHT, _TOP, _BOTTOM = 70.0, 20.0, 44.0, 58.0


def _measured(points: Sequence[Mapping[str, Any]]) -> list[float]:
    values = []
    for point in points:
        for entry in point["directions"]:
            for field in ("min_us", "max_us"):
                value = entry.get(field)
                if value is not None and value > 0:
                    values.append(float(value))
    return values


def _ticks(low: float, high: float) -> list[float]:
    """1-2-5 ticks [us] from decade ``low`` to decade ``high``."""
    out = []
    decade = low
    while decade <= high * 1.0001:
        for step in (1, 2, 5):
            value = decade * step
            if low <= value <= high * 1.0001:
                out.append(value)
        decade *= 10
    return out


def _tooltip(point: Mapping[str, Any], entry: Mapping[str, Any]) -> str:
    name = direction_name(entry["direction"])
    parts = [
        f"{name} at {point['percent_of_pdr']:g} % PDR ({point['load_pps']:.6g} pps), "
        f"{entry['frames_measured']} frames"
    ]
    for field, label in (
        ("min_us", "min"),
        ("avg_us", "avg"),
        ("max_us", "max"),
        ("p50_us", "p50"),
        ("p90_us", "p90"),
        ("p99_us", "p99"),
        ("p99_9_us", "p99.9"),
    ):
        if entry.get(field) is not None:
            parts.append(f"{label} {format_us(entry[field])} us")
    return "; ".join(parts)


def latency_svg(record: Mapping[str, Any], *, width: int = 760, height: int = 300) -> str:
    """The record's latency as an SVG element ("" when nothing was measured)."""
    section = record.get("latency")
    if not isinstance(section, Mapping):
        return ""
    points = list(section.get("points") or [])
    values = _measured(points)
    if not values:
        return ""
    low = 10 ** math.floor(math.log10(min(values)))
    high = 10 ** math.ceil(math.log10(max(values)))
    if high <= low:
        high = low * 10
    plot_w = width - _LEFT - _RIGHT
    plot_h = height - _TOP - _BOTTOM

    def y(value: float) -> float:
        clamped = min(max(value, low), high)
        share = (math.log10(clamped) - math.log10(low)) / (math.log10(high) - math.log10(low))
        return _TOP + plot_h * (1 - share)

    column = plot_w / len(points)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="{FONT}" '
        'role="img" aria-label="latency at load points of PDR">',
        f'<rect x="0" y="0" width="{width}" height="{height}" fill="#fff"/>',
        f'<text x="{_LEFT:.1f}" y="16" font-size="12" font-weight="bold" fill="{INK}">'
        f"{escape('Latency by load (percent of the PDR lower bound), log scale')}</text>",
    ]
    for tick in _ticks(low, high):
        ty = y(tick)
        parts.append(
            f'<line x1="{_LEFT:.1f}" y1="{ty:.1f}" x2="{width - _RIGHT:.1f}" y2="{ty:.1f}" '
            f'stroke="{_GRID}"/>'
            f'<text x="{_LEFT - 6:.1f}" y="{ty + 3:.1f}" text-anchor="end" fill="{INK}">'
            f"{escape(format_us(tick))}</text>"
        )
    parts.append(
        f'<text x="14" y="{_TOP + plot_h / 2:.1f}" fill="{INK}" text-anchor="middle" '
        f'transform="rotate(-90 14 {_TOP + plot_h / 2:.1f})">{escape("latency [us]")}</text>'
    )
    parts.append(
        f'<rect x="{_LEFT:.1f}" y="{_TOP:.1f}" width="{plot_w:.1f}" height="{plot_h:.1f}" '
        f'fill="none" stroke="{INK}"/>'
    )
    for index, point in enumerate(points):
        centre = _LEFT + column * (index + 0.5)
        label = f"{point['percent_of_pdr']:g} % PDR"
        load = f"{point['load_pps'] / 1e6:.4f} Mpps" if point["load_pps"] > 0 else "streams only"
        parts.append(
            f'<text x="{centre:.1f}" y="{height - _BOTTOM + 16:.1f}" text-anchor="middle" '
            f'fill="{INK}">{escape(label)}</text>'
            f'<text x="{centre:.1f}" y="{height - _BOTTOM + 29:.1f}" text-anchor="middle" '
            f'fill="#666">{escape(load)}</text>'
        )
        entries = list(point["directions"])
        for slot, entry in enumerate(entries):
            x = centre + (slot - (len(entries) - 1) / 2) * 22
            parts.append(_whisker(entry, x, y, _COLOURS[slot % len(_COLOURS)], point))
    legend_y = height - 10
    legend_x = _LEFT
    directions = sorted({e["direction"] for p in points for e in p["directions"]})
    for slot, direction in enumerate(directions):
        colour = _COLOURS[slot % len(_COLOURS)]
        name = direction_name(direction)
        parts.append(
            f'<rect x="{legend_x:.1f}" y="{legend_y - 8:.1f}" width="10" height="10" '
            f'fill="{colour}"/><text x="{legend_x + 14:.1f}" y="{legend_y:.1f}" '
            f'fill="{INK}">{escape(name)}</text>'
        )
        legend_x += 80
    parts.append(
        f'<text x="{legend_x:.1f}" y="{legend_y:.1f}" fill="#666">'
        f"{escape('line: min to max, box: p50 to p99, ticks: p90 and p99.9, dot: average')}"
        "</text>"
    )
    parts.append("</svg>")
    return "".join(parts)


def _whisker(
    entry: Mapping[str, Any],
    x: float,
    y: Callable[[float], float],
    colour: str,
    point: Mapping[str, Any],
) -> str:
    """One direction's marks at ``x`` (empty group when it has no latency frames)."""
    title = f"<title>{escape(_tooltip(point, entry))}</title>"
    if not entry.get("frames_measured") or entry.get("min_us") is None:
        return f'<g>{title}<text x="{x:.1f}" y="{y(0.0) - 4:.1f}" fill="{colour}">-</text></g>'
    marks = [
        f'<line x1="{x:.1f}" y1="{y(entry["min_us"]):.1f}" x2="{x:.1f}" '
        f'y2="{y(entry["max_us"]):.1f}" stroke="{colour}"/>'
    ]
    for field in ("min_us", "max_us"):
        cap = y(entry[field])
        marks.append(
            f'<line x1="{x - 4:.1f}" y1="{cap:.1f}" x2="{x + 4:.1f}" y2="{cap:.1f}" '
            f'stroke="{colour}"/>'
        )
    p50, p99 = entry.get("p50_us"), entry.get("p99_us")
    if p50 is not None and p99 is not None:
        top, bottom = y(p99), y(p50)
        marks.append(
            f'<rect x="{x - 5:.1f}" y="{top:.1f}" width="10" height="{max(bottom - top, 1):.1f}" '
            f'fill="{colour}" fill-opacity="0.35" stroke="{colour}"/>'
        )
    for field in ("p90_us", "p99_9_us"):
        if entry.get(field) is not None:
            tick = y(entry[field])
            marks.append(
                f'<line x1="{x - 7:.1f}" y1="{tick:.1f}" x2="{x + 7:.1f}" y2="{tick:.1f}" '
                f'stroke="{colour}" stroke-width="2"/>'
            )
    if entry.get("avg_us") is not None:
        marks.append(
            f'<circle cx="{x:.1f}" cy="{y(entry["avg_us"]):.1f}" r="3.5" fill="#fff" '
            f'stroke="{colour}" stroke-width="2"/>'
        )
    return f"<g>{title}{''.join(marks)}</g>"
