"""The trace of one search as an inline SVG chart, for Robot Framework's log.html.

``trace_svg`` draws every trial of a result record (see
``ndrpdr.results.record``) against search time: the x axis is the
cumulative effective trial duration [s], the y axis the aggregate load
[frames/s]. Each trial is a bar from its start to its end, coloured by its
loss ratio (green: no loss, amber: at most the PDR loss ratio, red: more)
and filled when it is full-length (as long as its goal's final trial
duration) or hollow when shorter. Each goal's lower (solid) and upper
(dotted) bounds are horizontal lines, labelled in the right margin.

The SVG is one self-contained element: inline attributes only, no style
sheets, scripts or external references, every text escaped, so it can be
pasted into any HTML page. Pure functions: no I/O.
"""

from __future__ import annotations

import dataclasses
import html
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from ndrpdr.goals import PDR_LOSS_RATIO, goal_label
from ndrpdr.results.tgplot import tg_limit_marks
from ndrpdr.units import format_rate

#: Loss classes of a trial: no loss, loss ratio <= PDR_LOSS_RATIO, more.
ZERO_LOSS, LOW_LOSS, HIGH_LOSS = "zero", "low", "high"
#: Marker colour of each loss class.
LOSS_COLOURS: Mapping[str, str] = {ZERO_LOSS: "#2ca02c", LOW_LOSS: "#e6a100", HIGH_LOSS: "#d62728"}
#: Light background tint of each loss class (table rows).
LOSS_TINTS: Mapping[str, str] = {ZERO_LOSS: "#e8f5e9", LOW_LOSS: "#fff5d6", HIGH_LOSS: "#fde4e4"}

_GOAL_COLOURS = ("#1f77b4", "#9467bd", "#8c564b", "#17becf", "#e377c2", "#7f7f7f")
_GREY, _INK, _FAIL = "#9e9e9e", "#222", "#c62828"
_XML_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
#: Rough width of one character relative to the font size (sans-serif).
_CHAR_EM = 0.58
_FONT = 10
_LABEL_GAP = 12.0
_LEFT, _TOP, _BOTTOM = 78.0, 58.0, 42.0
#: Width of the right margin (bound labels) [px]: fits the longest label, within these limits.
_RIGHT_MIN, _RIGHT_MAX_SHARE = 110.0, 0.35
_MIN_WIDTH, _MIN_HEIGHT = 480, 200


def escape(text: object) -> str:
    """``text`` as a string safe in XML/HTML text and quoted attribute values.

    Characters XML 1.0 does not allow at all (most control characters) are
    replaced by U+FFFD, then ``& < > " '`` are escaped.

    Args:
        text: Anything; it is converted with ``str``.

    Returns:
        The escaped text.
    """
    return html.escape(_XML_ILLEGAL.sub("\ufffd", str(text)), quote=True)


def loss_class(loss_ratio: float) -> str:
    """The loss class of a trial: ZERO_LOSS, LOW_LOSS (<= PDR_LOSS_RATIO) or HIGH_LOSS.

    Args:
        loss_ratio: The trial's loss ratio, 0 to 1.

    Returns:
        One of ZERO_LOSS, LOW_LOSS, HIGH_LOSS (keys of LOSS_COLOURS and LOSS_TINTS).
    """
    if loss_ratio <= 0:
        return ZERO_LOSS
    return LOW_LOSS if loss_ratio <= PDR_LOSS_RATIO else HIGH_LOSS


def format_percent(ratio: float) -> str:
    """A ratio as a percentage with three significant digits, without the % sign.

    Args:
        ratio: A ratio such as a loss ratio (0.0039 is 0.39 %).

    Returns:
        "0" for zero, else e.g. "0.389", "0.5", "85.2", "100", "0.0000227"
        (trailing zeros dropped).
    """
    percent = ratio * 100
    if percent == 0 or not math.isfinite(percent):
        return f"{percent:g}"
    decimals = max(0, 2 - math.floor(math.log10(abs(percent))))
    text = f"{percent:.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def goal_names(goals: Sequence[Mapping[str, Any]]) -> list[str]:
    """The names of a record's goals, made unique with the goal index when needed.

    Args:
        goals: The record's ``goals`` entries.

    Returns:
        One name per goal, e.g. ["NDR", "PDR"] or ["NDR (goal 0)", "NDR (goal 1)"].
    """
    names = [goal_label(float(goal.get("loss_ratio", 0.0))) for goal in goals]
    return [f"{name} (goal {i})" if names.count(name) > 1 else name for i, name in enumerate(names)]


def phase_text(trial: Mapping[str, Any], names: Sequence[str]) -> str:
    """Why a trial was measured: "phase/strategy", plus the goal's name when known.

    Args:
        trial: One entry of the record's ``trials``.
        names: The goal names (``goal_names`` of the record's goals).

    Returns:
        e.g. "final/expect-fail (NDR)", "probe/probe", or "" without a reason.
    """
    reason = trial.get("reason")
    if not isinstance(reason, Mapping):
        return ""
    text = f"{reason.get('phase', '?')}/{reason.get('strategy', '?')}"
    goal = reason.get("goal")
    if isinstance(goal, int) and 0 <= goal < len(names):
        text += f" ({names[goal]})"
    return text


def trial_time(trial: Mapping[str, Any]) -> float:
    """The seconds a trial adds to the search time (effective duration, else duration).

    Args:
        trial: One entry of the record's ``trials``.

    Returns:
        The trial's effective duration [s] when positive, else its duration [s].
    """
    effective = trial.get("effective_duration_s")
    if isinstance(effective, (int, float)) and effective > 0:
        return float(effective)
    return float(trial.get("duration_s") or 0.0)


def is_full_length(trial: Mapping[str, Any], goals: Sequence[Mapping[str, Any]]) -> bool:
    """Whether a trial lasted its goal's final trial duration.

    The goal is the one that nominated the trial; for trials serving all
    goals (or without a reason) the shortest final duration of all goals.

    Args:
        trial: One entry of the record's ``trials``.
        goals: The record's ``goals``.

    Returns:
        True for a full-length trial, False for a shorter one (and when
        there are no goals to compare with, True).
    """
    finals = [float(goal["final_trial_duration_s"]) for goal in goals]
    if not finals:
        return True
    reason = trial.get("reason")
    index = reason.get("goal") if isinstance(reason, Mapping) else None
    final = finals[index] if isinstance(index, int) and 0 <= index < len(finals) else min(finals)
    return float(trial.get("duration_s") or 0.0) >= final * (1 - 1e-9)


def _num(value: float) -> str:
    """A coordinate rounded to one decimal, without a useless ".0"."""
    text = f"{value:.1f}"
    if text == "-0.0":
        return "0"
    return text[:-2] if text.endswith(".0") else text


def _seconds(value: float) -> str:
    return f"{round(value, 9):g}"


def _fit(text: str, width_px: float, font_px: float = _FONT) -> str:
    """``text`` on one line, cut with an ellipsis to about ``width_px``."""
    text = " ".join(text.split())
    room = max(4, int(width_px / (font_px * _CHAR_EM)))
    return text if len(text) <= room else text[: room - 1].rstrip() + "\u2026"


def _nice_step(span: float, target: int) -> float:
    """A 1-2-5 step giving about ``target`` intervals over ``span``."""
    raw = span / target
    magnitude = 10.0 ** math.floor(math.log10(raw))
    for multiple in (1, 2, 5):
        if multiple * magnitude >= raw * (1 - 1e-9):
            return multiple * magnitude
    return 10 * magnitude


def _spread(wanted: list[float], low: float, high: float) -> list[float]:
    """Label positions near ``wanted`` (sorted), at least _LABEL_GAP apart, within low..high."""
    placed = list(wanted)
    for i in range(1, len(placed)):
        placed[i] = max(placed[i], placed[i - 1] + _LABEL_GAP)
    if placed and placed[-1] > high:
        placed[-1] = high
        for i in range(len(placed) - 2, -1, -1):
            placed[i] = min(placed[i], placed[i + 1] - _LABEL_GAP)
    return [max(low, y) for y in placed]


def _frame_text(record: Mapping[str, Any]) -> str:
    profile = record.get("profile") or {}
    frame = profile.get("frame_size", "?")
    frame_text = f"{frame} B" if isinstance(frame, (int, float)) else str(frame)
    algorithm = (record.get("search") or {}).get("algorithm", "?")
    return f"{profile.get('name', '?')}, {frame_text}, {algorithm}"


def _title(record: Mapping[str, Any], trials: Sequence[Mapping[str, Any]], width: float) -> str:
    """The title line: profile, frame size, algorithm, then the status (or the error)."""
    head = _frame_text(record) + ": "
    if record.get("status") == "failed":
        error = str(record.get("error") or "unknown error")
        tail, colour = f"search failed: {error}", _FAIL
    else:
        seconds = sum(trial_time(t) for t in trials)
        count = "1 trial" if len(trials) == 1 else f"{len(trials)} trials"
        tail, colour = f"{record.get('status', '?')} ({count}, {_seconds(seconds)} s)", _INK
    font = 12
    room = width - 16 - len(head) * font * _CHAR_EM
    shown = _fit(tail, room, font)
    full = f"<title>{escape(' '.join(tail.split()))}</title>" if shown != tail else ""
    return (
        f'<text x="8" y="16" font-size="{font}" font-weight="bold" fill="{_INK}">'
        f'{escape(head)}<tspan fill="{colour}">{escape(shown)}</tspan>{full}</text>'
    )


def _no_trials(record: Mapping[str, Any], width: int) -> str:
    height = 44
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="{_FONT}" '
        f'role="img" aria-label="search trace: no trials">'
        f'<rect width="{width}" height="{height}" fill="#fff"/>'
        f"{_title(record, [], width)}"
        f'<text x="8" y="34" fill="{_GREY}" font-size="11">no trials</text></svg>'
    )


class _Canvas:
    """Coordinate transforms from (seconds, pps) to pixels."""

    def __init__(
        self, width: int, height: int, right_margin: float, seconds: float, top_pps: float
    ) -> None:
        self.width = width
        self.left, self.right = _LEFT, width - right_margin
        self.top, self.bottom = _TOP, height - _BOTTOM
        self.seconds = seconds
        self.top_pps = top_pps

    def x(self, seconds: float) -> float:
        return self.left + (self.right - self.left) * seconds / self.seconds

    def y(self, pps: float) -> float:
        return self.bottom - (self.bottom - self.top) * pps / self.top_pps


def _axes(canvas: _Canvas, y_step: float) -> list[str]:
    """Grid lines, ticks, tick labels and axis titles."""
    c = canvas
    parts = ['<g stroke="#e6e6e6" stroke-width="1">']
    ticks = []
    count = round(c.top_pps / y_step)
    for i in range(count + 1):
        pps = i * y_step
        y = _num(c.y(pps))
        parts.append(f'<line x1="{_num(c.left)}" x2="{_num(c.right)}" y1="{y}" y2="{y}"/>')
        ticks.append(
            f'<text x="{_num(c.left - 5)}" y="{_num(c.y(pps) + 3.5)}">{escape(format_rate(pps))}'
            "</text>"
        )
    parts.append("</g>")
    parts.append(f'<g text-anchor="end" fill="{_INK}">{"".join(ticks)}</g>')
    x_step = _nice_step(c.seconds, 8)
    x_ticks = []
    for i in range(int(c.seconds / x_step * (1 + 1e-9)) + 1):
        x = _num(c.x(i * x_step))
        x_ticks.append(
            f'<line x1="{x}" x2="{x}" y1="{_num(c.bottom)}" y2="{_num(c.bottom + 4)}" '
            f'stroke="{_INK}"/><text x="{x}" y="{_num(c.bottom + 15)}">'
            f"{_seconds(i * x_step)}</text>"
        )
    parts.append(f'<g text-anchor="middle" fill="{_INK}">{"".join(x_ticks)}</g>')
    parts.append(
        f'<path d="M{_num(c.left)} {_num(c.top)}V{_num(c.bottom)}H{_num(c.right)}" '
        f'fill="none" stroke="{_INK}"/>'
    )
    middle_y = _num((c.top + c.bottom) / 2)
    parts.append(
        f'<text x="{_num(c.left + (c.right - c.left) / 2)}" y="{_num(c.bottom + 31)}" '
        f'text-anchor="middle" fill="{_INK}">search time [s] (cumulative trial duration)</text>'
        f'<text transform="rotate(-90 12 {middle_y})" x="12" y="{middle_y}" '
        f'text-anchor="middle" fill="{_INK}">load [frames/s, aggregate]</text>'
    )
    return parts


@dataclasses.dataclass(frozen=True)
class _Bound:
    """A horizontal line at ``value`` [pps], labelled ``text`` in the right margin."""

    value: float
    text: str
    colour: str
    dash: str  # stroke-dasharray, "" for a solid line
    width: str  # stroke-width


def _bounds(
    goals: Sequence[Mapping[str, Any]], names: Sequence[str], max_load: float | None
) -> list[_Bound]:
    """The max load, then each goal's lower (solid) and upper (dotted) bound."""
    bounds = []
    if max_load:
        bounds.append(_Bound(max_load, f"max load {format_rate(max_load)}", _GREY, "6 3", "1"))
    for i, (goal, name) in enumerate(zip(goals, names, strict=True)):
        colour = _GOAL_COLOURS[i % len(_GOAL_COLOURS)]
        for key, kind, dash in (("lower_bound", "lower", ""), ("upper_bound", "upper", "2 2")):
            value = goal.get(key)
            if value is not None:
                text = f"{name} {kind} {format_rate(float(value))}"
                bounds.append(_Bound(float(value), text, colour, dash, "1.5"))
    return bounds


def _bound_lines(
    canvas: _Canvas, goals: Sequence[Mapping[str, Any]], bounds: Sequence[_Bound]
) -> list[str]:
    """Shaded bands between each goal's bounds, the bound lines, their labels."""
    c = canvas
    x1, x2 = _num(c.left), _num(c.right)
    shapes: list[str] = []
    for i, goal in enumerate(goals):
        lower, upper = goal.get("lower_bound"), goal.get("upper_bound")
        if lower is not None and upper is not None:
            top, bottom = c.y(float(upper)), c.y(float(lower))
            shapes.append(
                f'<rect x="{x1}" y="{_num(top)}" width="{_num(c.right - c.left)}" '
                f'height="{_num(max(bottom - top, 0.0))}" '
                f'fill="{_GOAL_COLOURS[i % len(_GOAL_COLOURS)]}" fill-opacity="0.12"/>'
            )
    for bound in bounds:
        y = _num(c.y(bound.value))
        dashes = f' stroke-dasharray="{bound.dash}"' if bound.dash else ""
        shapes.append(
            f'<line x1="{x1}" x2="{x2}" y1="{y}" y2="{y}" stroke="{bound.colour}" '
            f'stroke-width="{bound.width}"{dashes}/>'
        )
    # Labels top-down by value, pushed apart where the lines crowd.
    ordered = sorted(bounds, key=lambda bound: -bound.value)
    placed = _spread([c.y(bound.value) for bound in ordered], c.top + 4, c.bottom)
    room = c.width - c.right - 12
    for bound, label_y in zip(ordered, placed, strict=True):
        shapes.append(
            f'<path d="M{_num(c.right)} {_num(c.y(bound.value))}L{_num(c.right + 8)} '
            f'{_num(label_y)}" stroke="{bound.colour}" fill="none"/>'
            f'<text x="{_num(c.right + 10)}" y="{_num(label_y + 3.5)}" fill="{bound.colour}">'
            f"{escape(_fit(bound.text, room))}</text>"
        )
    return shapes


def _trial_tooltip(trial: Mapping[str, Any], names: Sequence[str]) -> str:
    text = (
        f"#{trial.get('index', '?')} {format_rate(float(trial.get('load_pps', 0.0)))} x "
        f"{_seconds(float(trial.get('duration_s', 0.0)))} s, "
        f"loss {format_percent(float(trial.get('loss_ratio', 0.0)))} %"
    )
    why = phase_text(trial, names)
    if why:
        text += f", {why}"
    warnings = trial.get("warnings") or []
    if warnings:
        text += "; warning: " + _fit("; ".join(map(str, warnings)), 600)
    return escape(text)


def _trial_marks(
    canvas: _Canvas,
    trials: Sequence[Mapping[str, Any]],
    goals: Sequence[Mapping[str, Any]],
    names: Sequence[str],
) -> list[str]:
    """The search's walk (a grey step line) and one bar with a tooltip per trial."""
    c = canvas
    walk: list[str] = []
    bars: list[str] = []
    start = 0.0
    for trial in trials:
        end = start + trial_time(trial)
        x0, x1 = c.x(start), c.x(end)
        y = c.y(float(trial.get("load_pps", 0.0)))
        walk.append(f"M{_num(x0)} {_num(y)}" if not walk else f"V{_num(y)}")
        walk.append(f"H{_num(x1)}")
        colour = LOSS_COLOURS[loss_class(float(trial.get("loss_ratio", 0.0)))]
        bar_width = max(x1 - x0 - 1.0, 1.0) if x1 - x0 > 2.0 else max(x1 - x0, 0.8)
        if is_full_length(trial, goals):
            half, paint = 3.5, f'fill="{colour}"'
        else:
            half, paint = 2.5, f'fill="#fff" stroke="{colour}"'
        bars.append(
            f'<rect x="{_num(x0)}" y="{_num(y - half)}" width="{_num(bar_width)}" '
            f'height="{_num(2 * half)}" {paint}><title>{_trial_tooltip(trial, names)}</title>'
            "</rect>"
        )
        start = end
    return [
        f'<path d="{"".join(walk)}" fill="none" stroke="#bdbdbd" stroke-width="0.8"/>',
        f'<g class="trials" stroke-width="1.2">{"".join(bars)}</g>',
    ]


def _legend(
    width: int, goals: Sequence[Mapping[str, Any]], names: Sequence[str], final: float | None
) -> list[str]:
    """Two legend rows: marker meanings, then each goal's conditional throughput."""
    items: list[tuple[str, str]] = []  # (swatch SVG at (0, 0), label)

    def box(paint: str) -> str:
        return f'<rect y="-7" width="10" height="7" {paint}/>'

    def line(colour: str, dash: str = "") -> str:
        dashes = f' stroke-dasharray="{dash}"' if dash else ""
        return f'<path d="M0 -3.5H14" stroke="{colour}" stroke-width="1.5"{dashes}/>'

    items.append((box(f'fill="{LOSS_COLOURS[ZERO_LOSS]}"'), "no loss"))
    pdr = format_percent(PDR_LOSS_RATIO)
    items.append((box(f'fill="{LOSS_COLOURS[LOW_LOSS]}"'), f"loss \u2264 {pdr} %"))
    items.append((box(f'fill="{LOSS_COLOURS[HIGH_LOSS]}"'), f"loss > {pdr} %"))
    full = "full-length" if final is None else f"full-length (\u2265 {_seconds(final)} s)"
    items.append((box(f'fill="{_GREY}"'), full))
    items.append((box(f'fill="#fff" stroke="{_GREY}"'), "shorter"))
    items.append((line(_INK), "lower bound"))
    items.append((line(_INK, "2 2"), "upper bound"))
    rows = [_legend_row(items, 32, width)]
    goal_items = []
    reasons = [
        str(goal["irregular_reason"])
        if goal.get("conditional_throughput") is not None
        and not goal.get("regular", True)
        and goal.get("irregular_reason")
        else ""
        for goal in goals
    ]
    shared = len(set(reasons)) == 1 and len(reasons) > 1
    for i, (goal, name, reason) in enumerate(zip(goals, names, reasons, strict=True)):
        colour = _GOAL_COLOURS[i % len(_GOAL_COLOURS)]
        value = goal.get("conditional_throughput")
        text = f"{name} " + (
            "no result" if value is None else f"conditional throughput {format_rate(float(value))}"
        )
        if reason and not shared:
            text += f" ({reason})"
        goal_items.append((line(colour), text))
    if shared and reasons[0]:
        goal_items.append(("", f"({reasons[0]})"))
    if goal_items:
        rows.append(_legend_row(goal_items, 46, width))
    return rows


def _legend_row(items: Sequence[tuple[str, str]], y: float, width: int) -> str:
    x = 8.0
    parts = [f'<g fill="{_INK}">']
    for swatch, label in items:
        room = width - x - 24
        if room < 40:
            break
        text = _fit(label, room)
        indent = 18 if swatch else 0
        parts.append(
            f'<g transform="translate({_num(x)} {_num(y)})">{swatch}'
            f'<text x="{indent}">{escape(text)}</text></g>'
        )
        x += indent + len(text) * _FONT * _CHAR_EM + 12
    parts.append("</g>")
    return "".join(parts)


def trace_svg(record: Mapping[str, Any], *, width: int = 760, height: int = 360) -> str:
    """The search trace of a result record as one standalone inline SVG element.

    The chart shows load (y, aggregate frames/s) against search time (x,
    cumulative effective trial duration in seconds). Each trial is a bar from
    its start to its end: green without loss, amber with a loss ratio of at
    most 0.5 %, red above; filled when full-length, hollow when shorter; its
    tooltip reads "#index load x duration s, loss X %, phase/strategy (goal)".
    A grey step line follows the search from trial to trial. Each goal's
    lower bound is a solid line, its upper bound a dotted one, with a shaded
    band between; the lines are labelled in the right margin ("NDR lower
    4.414 Mpps"), next to the max load (dashed grey). The title names the
    profile, frame size, algorithm and status (or "search failed: <error>");
    the legend explains the colours and gives each goal's conditional
    throughput. A record without trials gives a small SVG saying "no trials".

    Args:
        record: A result record (``ndrpdr.results.record.build_record``).
        width: Width of the chart [px], at least 480.
        height: Height of the chart [px], at least 200 (unused without trials).

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
    names = goal_names(goals)
    max_load = (record.get("search") or {}).get("max_load_pps")
    seconds = sum(trial_time(t) for t in trials) or 1.0
    values = [float(t.get("load_pps", 0.0)) for t in trials]
    values += [
        float(g[key])
        for g in goals
        for key in ("lower_bound", "upper_bound")
        if g.get(key) is not None
    ]
    if max_load:
        values.append(float(max_load))
    highest = max([*values, 0.0]) or 1.0
    y_step = _nice_step(highest, 6)
    top_pps = math.ceil(highest / y_step * (1 - 1e-9)) * y_step
    bounds = _bounds(goals, names, float(max_load) if max_load else None)
    longest = max((len(bound.text) for bound in bounds), default=0)
    right = min(max(_RIGHT_MIN, longest * _FONT * _CHAR_EM + 16), width * _RIGHT_MAX_SHARE)
    canvas = _Canvas(width, height, right, seconds, top_pps)
    finals = [float(g["final_trial_duration_s"]) for g in goals]
    final = finals[0] if finals and len(set(finals)) == 1 else None
    label = escape(
        f"search trace: {_frame_text(record)}, {record.get('status', '?')}, {len(trials)} trials"
    )
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="{_FONT}" '
        f'role="img" aria-label="{label}">',
        f'<rect width="{width}" height="{height}" fill="#fff"/>',
        _title(record, trials, width),
        *_legend(width, goals, names, final),
        *_axes(canvas, y_step),
        *_bound_lines(canvas, goals, bounds),
        *_trial_marks(canvas, trials, goals, names),
        *tg_limit_marks(record, canvas.x, canvas.y, trial_time),
        "</svg>",
    ]
    return "".join(parts)
