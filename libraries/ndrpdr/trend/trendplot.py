"""One test's results over time as an inline SVG chart, for the trend report.

``trend_svg`` draws each metric of a ``trendseries.TestTrend`` (NDR lower
bound, PDR lower bound, MRR mean, soak critical load [frames/s, aggregate]) against the runs'
start time: a dot per run that passed without caveat, a hollow square per
run with a caveat (incomplete, irregular, failed with a value), a ring
around an outlier the levels leave out, a red cross at the bottom for a
run without any value. Each level the change-point detection found is a
horizontal line over its runs; each change point is a dashed vertical line
with a triangle at the top (red, pointing down: regression; green, up:
progression) and its relative change. ``latency_svg`` draws the latency
(p50 and p99 [us] at the highest load point) when the runs measured it.

The time axis is shared by every chart of a report (``TimeAxis``), so the
charts line up. Same conventions as ``traceplot``: self-contained
``<svg>`` elements, inline attributes only, every text escaped; the
classes (``change-point``, ``caveat``, ``failed``, ``level``) are for the
page's script and its tests. Pure functions: no I/O.
"""

from __future__ import annotations

import dataclasses
import datetime
import math
from collections.abc import Sequence

from ndrpdr.report.plotlegend import FAIL
from ndrpdr.report.plotpanel import GOAL_COLOURS, GREY
from ndrpdr.report.plotscale import Scale, nice_step
from ndrpdr.report.svgaxes import INK, axes
from ndrpdr.report.svgtext import FONT, escape, num, text_width
from ndrpdr.trend.compare import SOAK_METRIC
from ndrpdr.trend.trendseries import REGRESSION, Change, Series, TestTrend
from ndrpdr.units import format_rate

#: Colour of each metric's dots and levels.
METRIC_COLOURS = {
    "NDR lower": GOAL_COLOURS[0],
    "PDR lower": GOAL_COLOURS[1],
    "MRR mean": "#2ca02c",
    SOAK_METRIC: "#ff7f0e",
}
#: Dot sizes [px]: NDR's larger than PDR's, so an NDR equal to the PDR shows as a ring around it.
_DOT = {"NDR lower": 6.5, "PDR lower": 3.5}
#: Above this many runs in a chart, dots are drawn smaller.
_DENSE_RUNS = 120
CAVEAT = "#e65100"
REGRESSION_COLOUR, PROGRESSION_COLOUR = "#c62828", "#2e7d32"
_LEFT, _RIGHT, _TOP, _BOTTOM = 78.0, 16.0, 22.0, 26.0
#: Steps [days] the time axis ticks may take.
_DAY_STEPS = (1, 2, 7, 14, 28, 56, 91, 182, 364, 728)
_X_TICK_ROOM = 90.0
_DAY_S = 86400.0


@dataclasses.dataclass(frozen=True)
class TimeAxis:
    """The shared time axis: ``first`` .. ``last`` (UTC) over ``left`` .. ``right`` [px]."""

    first: datetime.datetime
    last: datetime.datetime
    width: int

    @property
    def scale(self) -> Scale:
        """Seconds since the epoch -> x [px]; a single run sits in the middle."""
        low, high = self.first.timestamp(), self.last.timestamp()
        if high - low < 1.0:
            low, high = low - _DAY_S / 2, high + _DAY_S / 2
        pad = (high - low) * 0.01
        return Scale(low - pad, high + pad, _LEFT, self.width - _RIGHT)

    def x(self, moment: datetime.datetime) -> float:
        """The x position [px] of ``moment``."""
        return self.scale(moment.timestamp())

    def ticks(self) -> list[tuple[float, str]]:
        """(x [px], "2026-03-01") at whole days, a 1/2/7/14/28.. day step that fits."""
        scale = self.scale
        span_days = (scale.high - scale.low) / _DAY_S
        room = max(2, int((scale.end - scale.start) / _X_TICK_ROOM))
        step = next((s for s in _DAY_STEPS if span_days / s <= room), _DAY_STEPS[-1])
        day = datetime.datetime.fromtimestamp(scale.low, datetime.timezone.utc).replace(
            hour=0, minute=0, second=0, microsecond=0
        ) + datetime.timedelta(days=1)
        ticks = []
        while day.timestamp() <= scale.high:
            ticks.append((scale(day.timestamp()), day.strftime("%Y-%m-%d")))
            day += datetime.timedelta(days=step)
        return ticks


def _y_scale(values: Sequence[float], top: float, bottom: float) -> Scale:
    """Values [pps] -> y [px]: the values' range, a tenth of it (at least 2 %) more either side."""
    low, high = min(values), max(values)
    span = max(high - low, 0.02 * abs(high), 1.0)
    margin = span * 0.1
    low, high = max(0.0, low - margin), high + margin
    step = nice_step(high - low, 4)
    return Scale(math.floor(low / step) * step, math.ceil(high / step) * step, bottom, top)


def _axes(axis: TimeAxis, y: Scale, unit: str, label: str) -> list[str]:
    y_ticks = [
        (y(value), format_rate(value) if unit == "pps" else f"{value:g} us") for value in y.ticks(4)
    ]
    return axes((_LEFT, y.end, axis.width - _RIGHT, y.start), y_ticks, axis.ticks(), label)


def change_text(change: Change) -> str:
    """ "NDR lower -5.1 % (7.52 Mpps -> 7.14 Mpps, 6.3 sigma) from run r-181"."""
    return (
        f"{change.metric} {100 * change.relative:+.1f} % ({format_rate(change.before_pps)} "
        f"\u2192 {format_rate(change.after_pps)}, {abs(change.z):.1f} \u03c3) from run "
        f"{change.run_id} ({change.started:%Y-%m-%d})"
    )


def _series_marks(series: Series, axis: TimeAxis, y: Scale) -> list[str]:
    colour = METRIC_COLOURS.get(series.metric, INK)
    dense = 1.0 if len(series.points) <= _DENSE_RUNS else 0.7  # smaller dots where they crowd
    outliers = set(series.outliers)
    dots, odd = [], []
    for point in series.points:
        x, at = axis.x(point.started), y.clamp(point.value_pps)
        if not point.clean:
            tip = escape(
                f"run {point.run_id} {point.started:%Y-%m-%d}: {series.metric} "
                f"{format_rate(point.value_pps)}, {point.status}, with a caveat"
                if point.caveat
                else f"run {point.run_id}: {series.metric} {format_rate(point.value_pps)}, "
                f"{point.status}"
            )
            odd.append(
                f'<rect class="caveat" x="{num(x - 3)}" y="{num(at - 3)}" width="6" height="6" '
                f'fill="#fff" stroke="{CAVEAT}" stroke-width="1.5"><title>{tip}</title></rect>'
            )
            continue
        dots.append(f"M{num(x)} {num(at)}h0")
        if point.run_id in outliers:
            odd.append(
                f'<circle class="outlier" cx="{num(x)}" cy="{num(at)}" r="5" fill="none" '
                f'stroke="{GREY}"><title>run {escape(point.run_id)}: outlier, left out of the '
                f"levels</title></circle>"
            )
    starts = {point.run_id: point.started for point in series.points}
    levels = "".join(
        f"M{num(axis.x(starts[first]))} {num(y(level))}H{num(axis.x(starts[last]))}"
        for first, last, level in series.levels
    )
    return [
        f'<path class="level" d="{levels}" stroke="{colour}" stroke-width="2.5" '
        f'stroke-opacity="0.45" fill="none"/>',
        f'<path class="points" data-metric="{escape(series.metric)}" d="{"".join(dots)}" '
        f'stroke="{colour}" stroke-width="{num(_DOT.get(series.metric, 4) * dense)}" '
        'stroke-linecap="round" '
        'fill="none"/>',
        *odd,
    ]


def _change_marks(changes: Sequence[Change], axis: TimeAxis, y: Scale) -> list[str]:
    """One marker per run and direction; metrics changing at the same run share it."""
    grouped: dict[tuple[str, str], list[Change]] = {}
    for change in changes:
        grouped.setdefault((change.run_id, change.kind), []).append(change)
    parts = []
    free_from = -math.inf  # where the previous label ends [px]: crowded labels are left out
    for (run, kind), same in grouped.items():
        first = same[0]
        x = axis.x(first.started)
        regression = kind == REGRESSION
        colour = REGRESSION_COLOUR if regression else PROGRESSION_COLOUR
        top = y.end
        triangle = (
            f"M{num(x - 5)} {num(top - 9)}h10l-5 8z"
            if regression
            else f"M{num(x - 5)} {num(top - 1)}h10l-5 -8z"
        )
        label = f"{100 * first.relative:+.1f} %"
        text = ""
        if x + 7 >= free_from:
            text = (
                f'<text x="{num(x + 7)}" y="{num(top - 2)}" fill="{colour}" font-weight="bold">'
                f"{escape(label)}</text>"
            )
            free_from = x + 7 + text_width(label) + 4
        metrics = ", ".join(change.metric for change in same)
        tips = "\n".join(change_text(change) for change in same)
        parts.append(
            f'<g class="change-point {kind}" data-metric="{escape(metrics)}" '
            f'data-run="{escape(run)}"><title>{escape(tips)}</title>'
            f'<line x1="{num(x)}" x2="{num(x)}" y1="{num(top)}" y2="{num(y.start)}" '
            f'stroke="{colour}" stroke-dasharray="4 3"/><path d="{triangle}" fill="{colour}"/>'
            f"{text}</g>"
        )
    return parts


def _failed_marks(test: TestTrend, axis: TimeAxis, y: Scale) -> list[str]:
    parts = []
    for run_id, started, status in test.failed:
        x, at = axis.x(started), y.start - 5
        parts.append(
            f'<path class="failed" d="M{num(x - 4)} {num(at - 4)}l8 8m0 -8l-8 8" stroke="{FAIL}" '
            f'stroke-width="2"><title>run {escape(run_id)} {started:%Y-%m-%d}: {escape(status)}, '
            f"no value</title></path>"
        )
    return parts


def trend_svg(test: TestTrend, axis: TimeAxis, *, height: int = 240) -> str:
    """The chart of ``test``'s throughput metrics over time (see the module's docstring)."""
    width = axis.width
    values = [p.value_pps for s in test.series for p in s.points]
    values += [level for s in test.series for (_, _, level) in s.levels]
    y = _y_scale(values or [1.0], _TOP, height - _BOTTOM)
    changes = sorted(
        (c for s in test.series for c in s.changes), key=lambda c: (c.started, c.metric)
    )
    label = escape(f"trend of {test.title}: {len(test.runs)} runs, {len(changes)} change points")
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="trend-plot" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" '
        f'font-size="{FONT}" role="img" aria-label="{label}">',
        f'<rect width="{width}" height="{height}" fill="#fff"/>',
        *_axes(axis, y, "pps", "frames/s, aggregate"),
    ]
    for series in test.series:
        parts += _series_marks(series, axis, y)
    parts += _failed_marks(test, axis, y)
    parts += _change_marks(changes, axis, y)
    parts.append("</svg>")
    return "".join(parts)


def latency_svg(test: TestTrend, axis: TimeAxis, *, height: int = 130) -> str:
    """p50 (dots) and p99 (small dashes) latency [us] over time, worst direction; "" without."""
    if not test.latency:
        return ""
    width = axis.width
    values = [lat.p50_us for _, _, lat in test.latency]
    values += [lat.p99_us for _, _, lat in test.latency if lat.p99_us is not None]
    y = _y_scale(values, _TOP - 10, height - _BOTTOM)
    p50 = "".join(f"M{num(axis.x(t))} {num(y(lat.p50_us))}h0" for _, t, lat in test.latency)
    p99 = "".join(
        f"M{num(axis.x(t) - 2)} {num(y(lat.p99_us))}h4"
        for _, t, lat in test.latency
        if lat.p99_us is not None
    )
    percent = test.latency[-1][2].percent_of_pdr
    return "".join(
        [
            f'<svg xmlns="http://www.w3.org/2000/svg" class="latency-plot" width="{width}" '
            f'height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" '
            f'font-size="{FONT}" role="img" aria-label="latency of {escape(test.title)}">',
            f'<rect width="{width}" height="{height}" fill="#fff"/>',
            *_axes(axis, y, "us", "latency [us]"),
            f'<path class="latency-p99" d="{p99}" stroke="#ff7f0e" stroke-width="1.5"/>',
            f'<path class="latency-p50" d="{p50}" stroke="#1f77b4" stroke-width="3.5" '
            f'stroke-linecap="round"/>',
            f'<text x="{num(_LEFT + 6)}" y="10" fill="{INK}">latency at {percent:g} % of PDR, '
            f"worst direction: p50 (dots), p99 (dashes)</text>",
            "</svg>",
        ]
    )
