"""The trials of one search as an HTML table, for Robot Framework's log.html.

``trials_html`` lists every trial of a result record (see
``ndrpdr.results.record``): why it was measured, its duration, load and
counts in columns that add up (intended = offered + unsent, offered =
forwarded + lost), its loss ratio (unsent frames count as lost) and the
measurer's warnings. Rows are tinted by loss class
with the colours of the trace chart (``ndrpdr.report.traceplot``). Inline
styles only, every text escaped; pure functions, no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ndrpdr.report.svgtext import escape
from ndrpdr.report.trialfacts import (
    LOSS_COLOURS,
    LOSS_TINTS,
    format_percent,
    goal_names,
    is_full_length,
    loss_class,
    phase_text,
    trial_number_text,
)
from ndrpdr.results.goalentries import record_pdr_loss_ratio
from ndrpdr.results.tglimit import trial_tg_limited
from ndrpdr.units import format_rate

#: Column headings, in order.
COLUMNS = (
    "#",
    "phase/strategy (goal)",
    "duration [s]",
    "load",
    "intended",
    "offered",
    "unsent",
    "forwarded",
    "lost",
    "loss [%]",
    "warnings",
)
_NUMERIC = frozenset({0, 2, 3, 4, 5, 6, 7, 8, 9})
_UNSENT, _LOSS, _WARNINGS = COLUMNS.index("unsent"), COLUMNS.index("loss [%]"), len(COLUMNS) - 1
_CELL = "padding:2px 6px;border:1px solid #ddd"
_TABLE = "border-collapse:collapse;font-family:sans-serif;font-size:12px"


def _count(value: object) -> str:
    """A frame count with thousands separators ("4,418,557"); "-" when missing."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return "-"
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.1f}"


def _seconds(value: object) -> str:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return "-"
    return f"{round(float(value), 9):g}"


def _unsent(trial: Mapping[str, Any]) -> object:
    """The unsent count (records before 1.1 lack it: intended - offered)."""
    if "unsent_count" in trial:
        return trial["unsent_count"]
    intended, offered = trial.get("intended_count"), trial.get("offered_count")
    if isinstance(intended, (int, float)) and isinstance(offered, (int, float)):
        return max(0.0, float(intended) - float(offered))
    return None


def _row(trial: Mapping[str, Any], goals: Sequence[Mapping[str, Any]], names: Sequence[str]) -> str:
    """One ``<tr>`` for ``trial``, tinted by its loss class."""
    ratio = float(trial.get("loss_ratio", 0.0))
    kind = loss_class(ratio)
    duration = _seconds(trial.get("duration_s"))
    if not is_full_length(trial, goals):
        duration += " (short)"
    warnings = trial.get("warnings") or []
    cells = (
        trial_number_text(trial),
        phase_text(trial, names) or "-",
        duration,
        format_rate(float(trial.get("load_pps", 0.0))),
        _count(trial.get("intended_count")),
        _count(trial.get("offered_count")),
        _count(_unsent(trial)),
        _count(trial.get("forwarded_count")),
        _count(trial.get("loss_count")),
        format_percent(ratio),
        "; ".join(map(str, warnings)),
    )
    tds = []
    for column, text in enumerate(cells):
        style = _CELL
        if column in _NUMERIC:
            style += ";text-align:right;white-space:nowrap"
        if column == _LOSS:
            style += f";color:{LOSS_COLOURS[kind]};font-weight:bold"
        if column == _UNSENT and trial_tg_limited(trial):  # the TG fell short, not the DUT
            style += ";color:#8a4b00;font-weight:bold"
        if column == _WARNINGS and warnings:
            style += ";color:#8a4b00"
        tds.append(f'<td style="{style}">{escape(text)}</td>')
    return f'<tr style="background:{LOSS_TINTS[kind]}">{"".join(tds)}</tr>'


def trials_html(record: Mapping[str, Any], *, max_rows: int | None = None) -> str:
    """The trials of a result record as an HTML ``<table>`` with inline styles.

    Columns: trial number (1 for the first trial, as on the console: the
    record's index + 1), phase/strategy (and the goal that asked for the trial),
    duration [s] (marked "(short)" below the goal's final trial duration),
    load, intended / offered / unsent / forwarded / lost frame counts
    (intended = offered + unsent, offered = forwarded + lost; an unsent
    count beyond the TG-limit tolerance is bold brown), loss [%] (lost and
    unsent frames over intended) and warnings.
    Rows are tinted green (no loss), amber (loss ratio at most 0.005) or red
    (more). With ``max_rows`` and more trials than that, the first and last
    trials are shown around one row "… N trials not shown (see the JSON
    record) …". Without trials: a paragraph "no trials measured".

    Args:
        record: A result record (``SearchRecord.to_json``, ``ndrpdr.results.searchrecord``).
        max_rows: The most trial rows to show; None shows all.

    Returns:
        The ``<table>`` (or ``<p>``) as a string (well-formed XML, all text escaped).

    Raises:
        ValueError: ``max_rows`` is negative.
    """
    if max_rows is not None and max_rows < 0:
        raise ValueError(f"trials_html: max_rows={max_rows} must be >= 0 or None")
    trials: Sequence[Mapping[str, Any]] = record.get("trials") or []
    if not trials:
        return '<p style="font-family:sans-serif;font-size:12px;color:#666">no trials measured</p>'
    goals: Sequence[Mapping[str, Any]] = record.get("goals") or []
    names = goal_names(goals, record_pdr_loss_ratio(record))
    head = "".join(
        f'<th style="{_CELL};background:#eee;text-align:left">{escape(name)}</th>'
        for name in COLUMNS
    )
    shown_first, hidden = len(trials), 0
    if max_rows is not None and len(trials) > max_rows:
        shown_first, hidden = (max_rows + 1) // 2, len(trials) - max_rows
    rows = [_row(trial, goals, names) for trial in trials[:shown_first]]
    if hidden:
        noun = "trial" if hidden == 1 else "trials"
        rows.append(
            f'<tr><td colspan="{len(COLUMNS)}" style="{_CELL};text-align:center;color:#666;'
            f'font-style:italic">\u2026 {hidden} {noun} not shown (see the JSON record) \u2026'
            "</td></tr>"
        )
        rows.extend(_row(trial, goals, names) for trial in trials[shown_first + hidden :])
    return (
        f'<table style="{_TABLE}"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )
