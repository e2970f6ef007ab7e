"""The trace plot's header: the title line and the legend rows.

The title names the profile, frame size, algorithm and status (or the
error); the legend explains the marks and gives each goal's conditional
throughput. Pure functions returning SVG element strings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ndrpdr.goals import PDR_LOSS_RATIO
from ndrpdr.report.plotpanel import GREY, goal_colour
from ndrpdr.report.svgaxes import INK
from ndrpdr.report.svgtext import CHAR_EM, FONT, escape, fit, num, seconds_text
from ndrpdr.report.trialfacts import (
    HIGH_LOSS,
    LOSS_COLOURS,
    LOW_LOSS,
    ZERO_LOSS,
    format_percent,
    trial_time,
)
from ndrpdr.units import format_rate

FAIL = "#c62828"
#: Baselines of the title and of the two legend rows [px].
TITLE_Y, LEGEND_Y, GOALS_Y = 16, 32, 46


def frame_text(record: Mapping[str, Any]) -> str:
    """ "ethip4-ip4base, 64 B, mlr": profile, frame size, algorithm."""
    profile = record.get("profile") or {}
    frame = profile.get("frame_size", "?")
    frame_text = f"{frame} B" if isinstance(frame, (int, float)) else str(frame)
    algorithm = (record.get("search") or {}).get("algorithm", "?")
    return f"{profile.get('name', '?')}, {frame_text}, {algorithm}"


def title(record: Mapping[str, Any], trials: Sequence[Mapping[str, Any]], width: float) -> str:
    """The title line: profile, frame size, algorithm, then the status (or the error)."""
    head = frame_text(record) + ": "
    if record.get("status") == "failed":
        error = str(record.get("error") or "unknown error")
        tail, colour = f"search failed: {error}", FAIL
    else:
        seconds = sum(trial_time(t) for t in trials)
        count = "1 trial" if len(trials) == 1 else f"{len(trials)} trials"
        tail, colour = f"{record.get('status', '?')} ({count}, {seconds_text(seconds)} s)", INK
    font = 12
    room = width - 16 - len(head) * font * CHAR_EM
    shown = fit(tail, room, font)
    full = f"<title>{escape(' '.join(tail.split()))}</title>" if shown != tail else ""
    return (
        f'<text x="8" y="{TITLE_Y}" font-size="{font}" font-weight="bold" fill="{INK}">'
        f'{escape(head)}<tspan fill="{colour}">{escape(shown)}</tspan>{full}</text>'
    )


def legend(
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
    full = "full-length" if final is None else f"full-length (\u2265 {seconds_text(final)} s)"
    items.append((box(f'fill="{GREY}"'), full))
    items.append((box(f'fill="#fff" stroke="{GREY}"'), "shorter"))
    items.append((line(INK), "lower bound"))
    items.append((line(INK, "2 2"), "upper bound"))
    rows = [_legend_row(items, LEGEND_Y, width)]
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
        value = goal.get("conditional_throughput")
        if value is not None:
            text = f"{name} conditional throughput {format_rate(float(value))}"
        elif goal.get("lower_bound") is not None:  # a binary search without the duration sum
            text = f"{name} conditional throughput not computed"
        else:
            text = f"{name} no result"
        if reason and not shared:
            text += f" ({reason})"
        goal_items.append((line(goal_colour(i)), text))
    if shared and reasons[0]:
        goal_items.append(("", f"({reasons[0]})"))
    if goal_items:
        rows.append(_legend_row(goal_items, GOALS_Y, width))
    return rows


def _legend_row(items: Sequence[tuple[str, str]], y: float, width: int) -> str:
    x = 8.0
    parts = [f'<g fill="{INK}">']
    for swatch, label in items:
        room = width - x - 24
        if room < 40:
            break
        text = fit(label, room)
        indent = 18 if swatch else 0
        parts.append(
            f'<g transform="translate({num(x)} {num(y)})">{swatch}'
            f'<text x="{indent}">{escape(text)}</text></g>'
        )
        x += indent + len(text) * FONT * CHAR_EM + 12
    parts.append("</g>")
    return "".join(parts)
