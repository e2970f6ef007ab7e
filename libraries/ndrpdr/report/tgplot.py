"""The trace plot's TG-limit marks: where the traffic generator, not the DUT, fell short.

For every TG-limited trial (``ndrpdr.results.tglimit``) a dashed brown
segment at the rate the TG really sent, under the trial's bar at the
intended load; when the record is TG-limited, a dotted brown line across
the plot at the most the TG ever sent, labelled. Drawn through the plot's
own coordinate functions, so any panel can call it.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ndrpdr.report.trialfacts import trial_number_text
from ndrpdr.results.tglimit import offered_rate_pps, trial_tg_limited
from ndrpdr.units import format_rate

#: The colour of TG-limit marks (the trial table's unsent cells use it too).
TG_LIMIT_COLOUR = "#8a4b00"


def tg_limit_marks(
    record: Mapping[str, Any],
    x: Callable[[float], float],
    y: Callable[[float], float],
    seconds_of: Callable[[Mapping[str, Any]], float],
) -> list[str]:
    """SVG elements marking the record's TG-limited trials and the TG's ceiling.

    ``x(seconds)`` and ``y(pps)`` map search time and load to pixels;
    ``seconds_of(trial)`` is the search time one trial adds. Empty when no
    trial was TG-limited and the record is not.
    """
    trials: Sequence[Mapping[str, Any]] = record.get("trials") or []
    segments: list[str] = []
    start = 0.0
    for trial in trials:
        end = start + seconds_of(trial)
        if trial_tg_limited(trial):
            sent = offered_rate_pps(trial)
            tip = html.escape(
                f"#{trial_number_text(trial)}: TG-limited, sent {format_rate(sent)} of the "
                f"intended {format_rate(float(trial.get('load_pps', 0.0)))}"
            )
            segments.append(
                f'<line x1="{x(start):.1f}" x2="{x(end):.1f}" y1="{y(sent):.1f}" '
                f'y2="{y(sent):.1f}"><title>{tip}</title></line>'
            )
        start = end
    parts: list[str] = []
    if segments:
        parts.append(
            f'<g class="tg-limited" stroke="{TG_LIMIT_COLOUR}" stroke-width="2" '
            f'stroke-dasharray="3 2">{"".join(segments)}</g>'
        )
    limit = record.get("tg_limit") or {}
    ceiling = limit.get("max_offered_pps")
    if limit.get("limited") and ceiling is not None:
        level = y(float(ceiling))
        parts.append(
            f'<g class="tg-ceiling" fill="{TG_LIMIT_COLOUR}">'
            f'<line x1="{x(0.0):.1f}" x2="{x(start):.1f}" y1="{level:.1f}" y2="{level:.1f}" '
            f'stroke="{TG_LIMIT_COLOUR}" stroke-dasharray="1 3"/>'
            f'<text x="{x(0.0) + 4:.1f}" y="{level - 3:.1f}">TG-limited: sent at most '
            f"{html.escape(format_rate(float(ceiling)))}</text></g>"
        )
    return parts
