"""The trace of one search as an inline SVG chart, for Robot Framework's log.html.

``trace_svg`` draws every trial of a result record (see
``ndrpdr.results.record``) against search time in two panels, one above
the other: the whole search (load from 0 to the max load), and a zoom on
the goals' bounds, where bounds 1 % apart are far apart on screen. The x
axis is the cumulative effective trial duration [s], the y axis the
aggregate load [frames/s]. Each trial is a bar from its start to its end,
coloured by its loss ratio (green: no loss, amber: at most the PDR loss
ratio, red: more), filled when full-length (as long as its goal's final
trial duration) or hollow when shorter, numbered as on the console. Each
goal's lower (solid) and upper (dotted) bounds are horizontal lines,
labelled in the right margin.

The pieces live in small modules: ``svgtext`` (escaping, coordinates),
``trialfacts`` (a trial's number, loss class, length), ``plotscale``
(scales, the zoom window, label spreading), ``plotpanel`` (one panel),
``plotlegend`` (title and legend), ``tgplot`` (TG-limit marks).

The SVG is one self-contained element: inline attributes only, no style
sheets, scripts or external references, every text escaped, so it can be
pasted into any HTML page. Pure functions: no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ndrpdr.report.plotlegend import frame_text, legend, title
from ndrpdr.report.plotpanel import (
    GREY,
    Panel,
    axes,
    bound_lines,
    bounds_of,
    trial_marks,
    trial_spans,
    trial_tooltip,
)
from ndrpdr.report.plotscale import Scale, ZoomWindow, nice_step, zoom_window
from ndrpdr.report.svgaxes import INK
from ndrpdr.report.svgtext import CHAR_EM, FONT, escape, fit, num
from ndrpdr.report.tgplot import tg_limit_marks
from ndrpdr.report.trialfacts import (
    goal_names,
    trial_number,
    trial_time,
)
from ndrpdr.results.goalentries import record_pdr_loss_ratio
from ndrpdr.units import format_rate

_LEFT, _TOP, _BOTTOM = 78.0, 58.0, 42.0
#: Room between the whole panel's plot area and the zoom panel's [px]: tick labels, heading.
_BETWEEN = 46.0
#: The whole panel's share of the height both plot areas get.
_WHOLE_SHARE = 0.4
#: Width of the right margin (bound labels) [px]: fits the longest label, within these limits.
_RIGHT_MIN, _RIGHT_MAX_SHARE = 110.0, 0.35
#: The zoom window's mark on the whole panel is at least this tall [px].
_MARK_MIN = 12.0
_MIN_WIDTH, _MIN_HEIGHT = 480, 360
#: The least room one tick interval takes on the y / x axis [px].
_Y_TICK_ROOM, _X_TICK_ROOM = 28.0, 60.0


def _tick_count(length: float, most: int, room: float = _Y_TICK_ROOM) -> int:
    """About how many tick intervals fit along ``length`` [px]: ``most`` at the most, 2 at least."""
    return max(2, min(most, int(length / room)))


def _no_trials(record: Mapping[str, Any], width: int) -> str:
    height = 44
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="{FONT}" '
        f'role="img" aria-label="search trace: no trials">'
        f'<rect width="{width}" height="{height}" fill="#fff"/>'
        f"{title(record, [], width)}"
        f'<text x="8" y="34" fill="{GREY}" font-size="11">no trials</text></svg>'
    )


def _goal_bounds(goals: Sequence[Mapping[str, Any]]) -> list[float]:
    return [
        float(goal[key])
        for goal in goals
        for key in ("lower_bound", "upper_bound")
        if goal.get(key) is not None
    ]


def _zoom_start(
    trials: Sequence[Mapping[str, Any]], spans: Sequence[tuple[float, float]], window: ZoomWindow
) -> tuple[float, int]:
    """The start [s] of the first trial within the window, and its position in ``trials``."""
    scale = Scale(window.low, window.high, 0.0, 1.0)
    for i, (trial, (start, _)) in enumerate(zip(trials, spans, strict=True)):
        if scale.contains(float(trial.get("load_pps", 0.0))):
            return start, i
    return 0.0, 0


def _outside(window: ZoomWindow | None) -> Callable[[float], bool]:
    """Whether a load [frames/s] lies outside ``window`` (every load, without one)."""
    if window is None:
        return lambda load: True
    scale = Scale(window.low, window.high, 0.0, 1.0)
    return lambda load: not scale.contains(load)


def _zoom_mark(whole: Panel, window: ZoomWindow, start: float) -> str:
    """A dashed box on the whole panel around what the zoom panel shows."""
    top, bottom = whole.y(window.high), whole.y(window.low)
    if bottom - top < _MARK_MIN:
        middle = (top + bottom) / 2
        top, bottom = middle - _MARK_MIN / 2, middle + _MARK_MIN / 2
    x = whole.x(start) - 1
    tip = escape(f"zoomed below: {format_rate(window.low)} to {format_rate(window.high)}")
    return (
        f'<rect class="zoom-window" x="{num(x)}" y="{num(top)}" '
        f'width="{num(whole.right + 1 - x)}" height="{num(bottom - top)}" fill="none" '
        f'stroke="{INK}" stroke-dasharray="4 2"><title>{tip}</title></rect>'
    )


def _zoom_heading(
    zoom: Panel, window: ZoomWindow, trials: Sequence[Mapping[str, Any]], first: int, width: int
) -> str:
    """The zoom panel's heading: its load range and trials, cut to ``width`` [px]."""
    numbers = [n for n in (trial_number(t) for t in trials[first:]) if n is not None]
    span = f", trials {numbers[0]} to {numbers[-1]}" if len(numbers) > 1 else ""
    text = (
        f"zoom on the bounds (dashed box above): {format_rate(window.low)} to "
        f"{format_rate(window.high)}{span}; numbers as on the console"
    )
    shown = fit(text, width - zoom.left - 8)
    full = f"<title>{escape(text)}</title>" if shown != text else ""
    return (
        f'<text class="zoom-heading" x="{num(zoom.left)}" y="{num(zoom.top - 8)}" '
        f'fill="{INK}" font-weight="bold">{escape(shown)}{full}</text>'
    )


def trace_svg(record: Mapping[str, Any], *, width: int = 760, height: int = 600) -> str:
    """The search trace of a result record as one standalone inline SVG element.

    Two panels show load (y, aggregate frames/s) against search time (x,
    cumulative effective trial duration in seconds). The upper one shows
    the whole search, from 0 to the max load; the lower one zooms on the
    goals' bounds (from a quarter of their span below the lowest to a
    quarter above the highest, at least 1 % of the highest bound wide),
    from the first trial within that range to the end; a dashed box on the
    upper panel marks it. Trials outside the zoom range are thin strips at
    the zoom panel's edge. Each trial is a bar from its start to its end:
    green without loss, amber with a loss ratio of at most 0.5 %, red
    above; filled when full-length, hollow when shorter; its tooltip reads
    "#number load x duration s, loss X %, phase/strategy (goal)", with the
    number the console printed (the record's index + 1), which the zoom
    panel also writes over the bars where it fits. A grey step line
    follows the search from trial to trial. Each goal's lower bound is a
    solid line, its upper bound a dotted one, with a shaded band between;
    the lines are labelled in the right margin ("NDR lower 4.414 Mpps"),
    next to the max load (dashed grey), labels pushed apart where lines
    crowd. The title names the profile, frame size, algorithm and status
    (or "search failed: <error>"); the legend explains the colours and gives
    each goal's conditional throughput. Without any bound the zoom panel is
    left out; a record without trials gives a small SVG saying "no trials".

    Args:
        record: A result record (``SearchRecord.to_json``, ``ndrpdr.results.searchrecord``).
        width: Width of the chart [px], at least 480.
        height: Height of the chart [px], at least 360 (unused without trials).

    Returns:
        The ``<svg>`` element as a string (well-formed XML, inline styling only).

    Raises:
        ValueError: ``width`` or ``height`` is too small for the chart.
    """
    if width < _MIN_WIDTH or height < _MIN_HEIGHT:
        raise ValueError(
            f"trace_svg: size {width}x{height} px is too small "
            f"(at least {_MIN_WIDTH}x{_MIN_HEIGHT} px)"
        )
    trials: Sequence[Mapping[str, Any]] = record.get("trials") or []
    if not trials:
        return _no_trials(record, width)
    goals: Sequence[Mapping[str, Any]] = record.get("goals") or []
    names = goal_names(goals, record_pdr_loss_ratio(record))
    max_load = (record.get("search") or {}).get("max_load_pps")
    spans = trial_spans(trials)
    tips = [trial_tooltip(trial, names) for trial in trials]
    seconds = spans[-1][1] or 1.0
    loads = [float(t.get("load_pps", 0.0)) for t in trials]
    highest = max([*loads, *_goal_bounds(goals), float(max_load or 0.0), 0.0]) or 1.0
    bounds = bounds_of(goals, names, float(max_load) if max_load else None)
    longest = max((len(bound.text) for bound in bounds), default=0)
    right = width - min(max(_RIGHT_MIN, longest * FONT * CHAR_EM + 16), width * _RIGHT_MAX_SHARE)
    label_room = width - right - 12
    window = zoom_window(_goal_bounds(goals))
    plots = height - _TOP - _BOTTOM - (_BETWEEN if window else 0.0)
    whole_bottom = _TOP + (plots * _WHOLE_SHARE if window else plots)
    y_step = nice_step(highest, _tick_count(whole_bottom - _TOP, 6))
    top_pps = math.ceil(highest / y_step * (1 - 1e-9)) * y_step
    whole = Panel(Scale(0.0, seconds, _LEFT, right), Scale(0.0, top_pps, whole_bottom, _TOP))
    x_ticks = whole.x.ticks(_tick_count(right - _LEFT, 8, _X_TICK_ROOM))
    finals = [float(g["final_trial_duration_s"]) for g in goals]
    final = finals[0] if finals and len(set(finals)) == 1 else None
    label = escape(
        f"search trace: {frame_text(record)}, {record.get('status', '?')}, {len(trials)} trials"
    )
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="{FONT}" '
        f'role="img" aria-label="{label}">',
        f'<rect width="{width}" height="{height}" fill="#fff"/>',
        title(record, trials, width),
        *legend(width, goals, names, final),
        '<g class="whole">',
        *axes(whole, [i * y_step for i in range(round(top_pps / y_step) + 1)], x_ticks),
        *bound_lines(whole, goals, bounds, label_room),
        *trial_marks(whole, trials, goals, tips, numbered=_outside(window)),
        *tg_limit_marks(record, whole.x, whole.y, trial_time),
        "</g>",
    ]
    bottom_panel = whole
    if window:
        start, first = _zoom_start(trials, spans, window)
        start = min(start, seconds * (1 - 1e-6))
        zoom = Panel(
            Scale(start, seconds, _LEFT, right),
            Scale(window.low, window.high, height - _BOTTOM, whole_bottom + _BETWEEN),
        )
        zoom_x_ticks = zoom.x.ticks(_tick_count(right - _LEFT, 8, _X_TICK_ROOM))
        parts += [
            _zoom_mark(whole, window, start),
            '<g class="zoom">',
            _zoom_heading(zoom, window, trials, first, width),
            *axes(zoom, zoom.y.ticks(_tick_count(zoom.bottom - zoom.top, 8)), zoom_x_ticks),
            *bound_lines(zoom, goals, bounds, label_room),
            *trial_marks(zoom, trials, goals, tips, group="zoom-trials", numbered=zoom.y.contains),
            "</g>",
        ]
        bottom_panel = zoom
    parts += [
        f'<text x="{num((_LEFT + right) / 2)}" y="{num(bottom_panel.bottom + 31)}" '
        f'text-anchor="middle" fill="{INK}">search time [s] (cumulative trial duration)</text>',
        "</svg>",
    ]
    return "".join(parts)
