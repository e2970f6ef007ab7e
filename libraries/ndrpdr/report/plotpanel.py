"""One panel of the trace plot: axes, bound lines with their labels, one bar per trial.

A ``Panel`` is a rectangle of the SVG with a time scale (x, search time
[s]) and a load scale (y, [frames/s]). The trace plot
(``ndrpdr.report.traceplot``) draws two: the whole search, and a zoom on
the goals' bounds where trials outside the window show as thin strips at
its edge. Each function returns SVG element strings; pure, no I/O.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ndrpdr.report import svgaxes
from ndrpdr.report.plotscale import Scale, spread
from ndrpdr.report.svgaxes import INK
from ndrpdr.report.svgtext import escape, fit, num, seconds_text, text_width
from ndrpdr.report.trialfacts import (
    LOSS_COLOURS,
    format_percent,
    is_full_length,
    loss_class,
    phase_text,
    trial_number_text,
    trial_time,
)
from ndrpdr.units import format_rate

GOAL_COLOURS = ("#1f77b4", "#9467bd", "#8c564b", "#17becf", "#e377c2", "#7f7f7f")
GREY = "#9e9e9e"
#: Least vertical distance between two bound labels [px].
LABEL_GAP = 12.0
#: Font size of the trial numbers over the bars [px].
NUMBER_FONT = 9
#: Half the height of a full-length / a shorter trial's bar [px].
FULL_HALF, SHORT_HALF = 3.5, 2.5
#: Height of the strip that stands for a trial outside the zoom window [px].
STRIP = 3.0


@dataclasses.dataclass(frozen=True)
class Panel:
    """A plot area: ``x`` maps search time [s] and ``y`` load [frames/s] to pixels."""

    x: Scale
    y: Scale

    @property
    def left(self) -> float:
        return self.x.start

    @property
    def right(self) -> float:
        return self.x.end

    @property
    def top(self) -> float:
        return self.y.end

    @property
    def bottom(self) -> float:
        return self.y.start


@dataclasses.dataclass(frozen=True)
class Bound:
    """A horizontal line at ``value`` [frames/s], labelled ``text`` in the right margin."""

    value: float
    text: str
    colour: str
    dash: str  # stroke-dasharray, "" for a solid line
    width: str  # stroke-width


def goal_colour(index: int) -> str:
    """The colour of goal ``index``'s lines and labels."""
    return GOAL_COLOURS[index % len(GOAL_COLOURS)]


def bounds_of(
    goals: Sequence[Mapping[str, Any]], names: Sequence[str], max_load: float | None
) -> list[Bound]:
    """The max load, then each goal's lower (solid) and upper (dotted) bound."""
    bounds = []
    if max_load:
        bounds.append(Bound(max_load, f"max load {format_rate(max_load)}", GREY, "6 3", "1"))
    for i, (goal, name) in enumerate(zip(goals, names, strict=True)):
        for key, kind, dash in (("lower_bound", "lower", ""), ("upper_bound", "upper", "2 2")):
            value = goal.get(key)
            if value is not None:
                text = f"{name} {kind} {format_rate(float(value))}"
                bounds.append(Bound(float(value), text, goal_colour(i), dash, "1.5"))
    return bounds


def axes(panel: Panel, y_ticks: Sequence[float], x_ticks: Sequence[float]) -> list[str]:
    """Grid lines, ticks and tick labels, the axis lines and the y axis title."""
    p = panel
    return svgaxes.axes(
        (p.left, p.top, p.right, p.bottom),
        [(p.y(pps), format_rate(pps)) for pps in y_ticks],
        [(p.x(seconds), seconds_text(seconds)) for seconds in x_ticks],
        "load [frames/s, aggregate]",
    )


def bound_lines(
    panel: Panel, goals: Sequence[Mapping[str, Any]], bounds: Sequence[Bound], label_room: float
) -> list[str]:
    """Shaded bands between each goal's bounds, the bound lines, their labels.

    Only what lies within the panel's load range is drawn. The labels sit
    in the right margin in the order of their values, at least LABEL_GAP
    apart; a leader line joins each label to its line where they crowd.
    """
    p = panel
    x1, x2 = num(p.left), num(p.right)
    shapes: list[str] = []
    for i, goal in enumerate(goals):
        lower, upper = goal.get("lower_bound"), goal.get("upper_bound")
        if lower is not None and upper is not None:
            top, bottom = p.y.clamp(float(upper)), p.y.clamp(float(lower))
            if bottom - top > 0:
                shapes.append(
                    f'<rect x="{x1}" y="{num(top)}" width="{num(p.right - p.left)}" '
                    f'height="{num(bottom - top)}" fill="{goal_colour(i)}" fill-opacity="0.12"/>'
                )
    shown = [bound for bound in bounds if p.y.contains(bound.value)]
    for bound in shown:
        y = num(p.y(bound.value))
        dashes = f' stroke-dasharray="{bound.dash}"' if bound.dash else ""
        shapes.append(
            f'<line x1="{x1}" x2="{x2}" y1="{y}" y2="{y}" stroke="{bound.colour}" '
            f'stroke-width="{bound.width}"{dashes}/>'
        )
    ordered = sorted(shown, key=lambda bound: -bound.value)  # top-down on screen
    placed = spread([p.y(bound.value) for bound in ordered], p.top + 4, p.bottom, LABEL_GAP)
    for bound, label_y in zip(ordered, placed, strict=True):
        shapes.append(
            f'<path d="M{num(p.right)} {num(p.y(bound.value))}L{num(p.right + 8)} '
            f'{num(label_y)}" stroke="{bound.colour}" fill="none"/>'
            f'<text class="bound-label" x="{num(p.right + 10)}" y="{num(label_y + 3.5)}" '
            f'fill="{bound.colour}">{escape(fit(bound.text, label_room))}</text>'
        )
    return shapes


def trial_tooltip(trial: Mapping[str, Any], names: Sequence[str]) -> str:
    """The escaped tooltip of a trial's bar: "#7 4.414 Mpps x 1 s, loss 0 %, final/... (NDR)"."""
    text = (
        f"#{trial_number_text(trial)} {format_rate(float(trial.get('load_pps', 0.0)))} x "
        f"{seconds_text(float(trial.get('duration_s', 0.0)))} s, "
        f"loss {format_percent(float(trial.get('loss_ratio', 0.0)))} %"
    )
    why = phase_text(trial, names)
    if why:
        text += f", {why}"
    warnings = trial.get("warnings") or []
    if warnings:
        text += "; warning: " + fit("; ".join(map(str, warnings)), 600)
    return escape(text)


def trial_spans(trials: Sequence[Mapping[str, Any]]) -> list[tuple[float, float]]:
    """Each trial's start and end on the search-time axis [s]."""
    spans = []
    start = 0.0
    for trial in trials:
        end = start + trial_time(trial)
        spans.append((start, end))
        start = end
    return spans


def trial_marks(
    panel: Panel,
    trials: Sequence[Mapping[str, Any]],
    goals: Sequence[Mapping[str, Any]],
    tips: Sequence[str],
    *,
    group: str = "trials",
    numbered: Callable[[float], bool] | None = None,
) -> list[str]:
    """The search's walk (a grey step line) and one bar per trial with its tooltip from ``tips``.

    Trials that end before the panel's time range are left out. A trial
    whose load lies outside the panel's load range is a thin strip at the
    edge it went past. Trials whose load passes ``numbered(load)`` get
    their number over the bar wherever it fits without overlapping another.
    """
    p = panel
    walk: list[str] = []
    bars: list[str] = []
    numbers: list[str] = []
    taken: list[tuple[float, float, float, float]] = []
    for trial, tip_text, (start, end) in zip(trials, tips, trial_spans(trials), strict=True):
        if end <= p.x.low:
            continue
        x0, x1 = p.x(max(start, p.x.low)), p.x(end)
        load = float(trial.get("load_pps", 0.0))
        y = p.y.clamp(load)
        walk.append(f"M{num(x0)} {num(y)}" if not walk else f"V{num(y)}")
        walk.append(f"H{num(x1)}")
        colour = LOSS_COLOURS[loss_class(float(trial.get("loss_ratio", 0.0)))]
        width = max(x1 - x0 - 1.0, 1.0) if x1 - x0 > 2.0 else max(x1 - x0, 0.8)
        tip = f"<title>{tip_text}</title>"
        if not p.y.contains(load):
            top = p.top if y <= p.top else p.bottom - STRIP
            bars.append(
                f'<rect class="off" x="{num(x0)}" y="{num(top)}" width="{num(width)}" '
                f'height="{num(STRIP)}" fill="{colour}" fill-opacity="0.6">{tip}</rect>'
            )
            continue
        if is_full_length(trial, goals):
            half, paint = FULL_HALF, f'fill="{colour}"'
        else:
            half, paint = SHORT_HALF, f'fill="#fff" stroke="{colour}"'
        bars.append(
            f'<rect x="{num(x0)}" y="{num(y - half)}" width="{num(width)}" '
            f'height="{num(2 * half)}" {paint}>{tip}</rect>'
        )
        if numbered is not None and numbered(load):
            label = _number_label(trial, (x0 + x1) / 2, y, half, p, taken)
            if label:
                numbers.append(label)
    parts = [
        f'<path d="{"".join(walk)}" fill="none" stroke="#bdbdbd" stroke-width="0.8"/>',
        f'<g class="{group}" stroke-width="1.2">{"".join(bars)}</g>',
    ]
    if numbers:
        parts.append(
            f'<g class="trial-numbers" text-anchor="middle" font-size="{NUMBER_FONT}" '
            f'fill="{INK}">{"".join(numbers)}</g>'
        )
    return parts


def _number_label(
    trial: Mapping[str, Any],
    centre: float,
    y: float,
    half: float,
    panel: Panel,
    taken: list[tuple[float, float, float, float]],
) -> str:
    """The trial's number over its bar (under it near the top), or "" where it would overlap.

    ``taken`` holds the boxes (left, top, right, bottom) [px] of the numbers
    placed so far; the new one is added to it.
    """
    text = trial_number_text(trial)
    half_width = text_width(text, NUMBER_FONT) / 2 + 1
    baseline = y - half - 2
    if baseline - NUMBER_FONT < panel.top:
        baseline = y + half + NUMBER_FONT
    box = (centre - half_width, baseline - NUMBER_FONT, centre + half_width, baseline + 1)
    if box[0] < panel.left or box[2] > panel.right:
        return ""
    for other in taken[-64:]:  # numbers run left to right: only recent ones can collide
        if box[0] < other[2] and other[0] < box[2] and box[1] < other[3] and other[1] < box[3]:
            return ""
    taken.append(box)
    return f'<text x="{num(centre)}" y="{num(baseline)}">{escape(text)}</text>'
