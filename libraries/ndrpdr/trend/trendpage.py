"""The trend report: one self-contained HTML page with a chart per test and the changes found.

``trend_html`` turns a ``trendseries.Trend`` into one HTML document that
needs no network (inline CSS, inline SVG, a small inline script for the
hover read-out; no fonts, images or scripts fetched), so a Jenkins job can
archive it and anyone can open it from the artifacts. From the top:

- the runs it covers and the last good run (named by the caller, or found:
  see ``trendseries``);
- a table of the regressions and progressions since the last good run
  (``#regressions``): test, metric, the first run at the new level, when,
  the level before and after, the change [%] and how many sigma of the
  run-to-run noise it is;
- a table with each test's latest change, its noise and its caveats
  (``#latest``);
- one chart per test (``trendplot``), latency below when measured.

``trend_report(samples)`` does both steps for any sequence of
``history.Sample`` (from record directories or the results store).
Pure: a string out, no I/O.
"""

from __future__ import annotations

import datetime
import json
import re
from collections.abc import Mapping, Sequence

from ndrpdr.report.svgtext import escape
from ndrpdr.trend.changepoint import HORIZON_RUNS, MIN_SEGMENT, PENALTY_PER_LN_N
from ndrpdr.trend.compare import TestKey
from ndrpdr.trend.history import Sample
from ndrpdr.trend.trendplot import (
    CAVEAT,
    METRIC_COLOURS,
    PROGRESSION_COLOUR,
    REGRESSION_COLOUR,
    TimeAxis,
    latency_svg,
    trend_svg,
)
from ndrpdr.trend.trendseries import (
    TREND_METRICS,
    Change,
    Latency,
    TestTrend,
    Trend,
    build_trend,
)
from ndrpdr.units import format_rate

_STYLE = """
body{font-family:sans-serif;margin:16px 24px;color:#222;max-width:1040px}
h1{font-size:20px;margin:0 0 4px} h2{font-size:16px;margin:22px 0 6px}
h3{font-size:14px;margin:0 0 2px} p{margin:4px 0}
.facts{color:#555;font-size:12px}
table{border-collapse:collapse;font-size:12px;margin:4px 0}
th,td{border:1px solid #ddd;padding:3px 7px;text-align:left;white-space:nowrap}
th{background:#f3f3f3} td.num{text-align:right}
tr.regression td{background:#fdecea} tr.progression td{background:#edf7ee}
.regression .kind{color:REG;font-weight:bold}
.progression .kind{color:PROG;font-weight:bold}
.none{color:#2e7d32}
article.trend-test{border-top:1px solid #ccc;padding:10px 0 4px}
.legend span{margin-right:14px;font-size:12px;white-space:nowrap}
.legend svg{vertical-align:middle;margin-right:4px}
#tip{position:fixed;display:none;background:#fff;border:1px solid #999;padding:4px 6px;
font-size:12px;pointer-events:none;box-shadow:1px 1px 4px rgba(0,0,0,.25);white-space:pre}
""".replace("REG", REGRESSION_COLOUR).replace("PROG", PROGRESSION_COLOUR)

# The hover read-out: the run nearest the pointer in the chart under it.
_SCRIPT = """
(function () {
  var tip = document.getElementById("tip");
  document.querySelectorAll("article.trend-test").forEach(function (article) {
    var svg = article.querySelector("svg.trend-plot");
    var data = JSON.parse(article.querySelector("script.trend-runs").textContent);
    if (!svg || !data.length) { return; }
    svg.addEventListener("mousemove", function (event) {
      var box = svg.getBoundingClientRect();
      var x = (event.clientX - box.left) * svg.viewBox.baseVal.width / box.width;
      var lo = 0, hi = data.length - 1;
      while (lo < hi) {
        var mid = (lo + hi) >> 1;
        if (data[mid][0] < x) { lo = mid + 1; } else { hi = mid; }
      }
      if (lo > 0 && x - data[lo - 1][0] < data[lo][0] - x) { lo -= 1; }
      tip.textContent = data[lo][1];
      tip.style.left = (event.clientX + 14) + "px";
      tip.style.top = (event.clientY + 10) + "px";
      tip.style.display = "block";
    });
    svg.addEventListener("mouseleave", function () { tip.style.display = "none"; });
  });
})();
"""


def _anchor(test: TestTrend) -> str:
    return "t-" + re.sub(r"[^A-Za-z0-9_-]+", "-", f"{test.key.name}-{test.testbed}").strip("-")


def _when(moment: datetime.datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M")


def _change_cells(change: Change) -> str:
    return (
        f'<td>{escape(change.metric)}</td><td class="kind">{change.kind}</td>'
        f"<td>{escape(change.run_id)}</td><td>{_when(change.started)}</td>"
        f'<td class="num">{escape(format_rate(change.before_pps))}</td>'
        f'<td class="num">{escape(format_rate(change.after_pps))}</td>'
        f'<td class="num">{100 * change.relative:+.2f} %</td>'
        f'<td class="num">{abs(change.z):.1f} \u03c3</td>'
    )


def _regressions(trend: Trend) -> list[str]:
    found = trend.changes_since_last_good()
    heads = (
        "Test",
        "Metric",
        "Kind",
        "From run",
        "When",
        "Before",
        "After",
        "Change",
        "Beyond noise",
    )
    rows = [
        f'<tr class="{change.kind}"><td><a href="#{_anchor(test)}">{escape(test.title)}</a></td>'
        f"{_change_cells(change)}</tr>"
        for test, change in found
    ]
    regressions = sum(change.kind == "regression" for _, change in found)
    text = (
        f"{regressions} regressions, {len(found) - regressions} progressions"
        if found
        else '<span class="none">no change</span>'
    )
    return [
        f"<h2>Regressions and progressions since the last good run: {text}</h2>",
        '<table id="regressions"><thead><tr>'
        + "".join(f"<th>{h}</th>" for h in heads)
        + "</tr></thead><tbody>"
        + ("".join(rows) or f'<tr><td colspan="{len(heads)}">none</td></tr>')
        + "</tbody></table>",
    ]


def _latest(trend: Trend) -> list[str]:
    heads = ("Test", "Runs", "Noise (2\u03c3)", "Caveats / failed", "Latest change")
    rows = []
    for test in trend.tests:
        change = test.latest_change
        noise = ", ".join(
            f"{s.metric.split()[0]} \u00b1{200 * s.sigma_pps / s.levels[-1][2]:.1f} %"
            for s in test.series
            if s.levels and s.levels[-1][2] > 0
        )
        caveats = max((sum(not p.clean for p in s.points) for s in test.series), default=0)
        if change is None:
            latest, kind = "none", ""
        else:
            latest = (
                f"{escape(change.metric)} {100 * change.relative:+.2f} % from run "
                f"{escape(change.run_id)} ({change.started:%Y-%m-%d}), {abs(change.z):.1f} \u03c3"
            )
            kind = change.kind
        rows.append(
            f'<tr class="{kind}"><td><a href="#{_anchor(test)}">{escape(test.title)}</a></td>'
            f'<td class="num">{len(test.runs)}</td><td>{noise}</td>'
            f'<td class="num">{caveats} / {len(test.failed)}</td><td>{latest}</td></tr>'
        )
    return [
        "<h2>Latest change per test</h2>",
        '<table id="latest"><thead><tr>'
        + "".join(f"<th>{h}</th>" for h in heads)
        + "</tr></thead><tbody>"
        + "".join(rows)
        + "</tbody></table>",
    ]


def _legend() -> str:
    def swatch(shape: str) -> str:
        return f'<svg width="22" height="12" viewBox="0 0 22 12">{shape}</svg>'

    items = [
        swatch(
            f'<path d="M11 6h0" stroke="{METRIC_COLOURS[m]}" stroke-width="6" '
            'stroke-linecap="round"/>'
        )
        + escape(m)
        for m in TREND_METRICS
    ]
    items += [
        swatch('<path d="M1 6H21" stroke="#555" stroke-width="2.5" stroke-opacity="0.45"/>')
        + "level (between change points)",
        swatch(f'<rect x="8" y="3" width="6" height="6" fill="#fff" stroke="{CAVEAT}"/>')
        + "incomplete, irregular or failed run (not used for levels)",
        swatch('<path d="M7 2l8 8m0 -8l-8 8" stroke="#c62828" stroke-width="2"/>')
        + "run without a value",
        swatch(f'<path d="M6 2h10l-5 8z" fill="{REGRESSION_COLOUR}"/>') + "regression",
        swatch(f'<path d="M6 10h10l-5 -8z" fill="{PROGRESSION_COLOUR}"/>') + "progression",
    ]
    return '<p class="legend">' + "".join(f"<span>{item}</span>" for item in items) + "</p>"


def _runs_json(test: TestTrend, axis: TimeAxis) -> str:
    """[[x px, read-out text], ...] per run, for the hover script (``</`` kept out)."""
    values: dict[str, list[str]] = {run_id: [] for run_id, _ in test.runs}
    for series in test.series:
        for point in series.points:
            note = "" if point.clean else f" ({point.status}, caveat)"
            values[point.run_id].append(
                f"{series.metric}: {format_rate(point.value_pps)} \u00b1"
                f"{format_rate(point.noise_pps)}{note}"
            )
    for run_id, _, status in test.failed:
        values[run_id].append(f"{status}: no value")
    for run_id, _, lat in test.latency:
        p99 = "" if lat.p99_us is None else f", p99 {lat.p99_us:.1f} us"
        values[run_id].append(f"latency p50 {lat.p50_us:.1f} us{p99}")
    rows = [
        [round(axis.x(started), 1), f"run {run_id}, {_when(started)}\n" + "\n".join(values[run_id])]
        for run_id, started in test.runs
    ]
    return json.dumps(rows, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")


def _test_article(test: TestTrend, axis: TimeAxis) -> str:
    changes = sum(len(s.changes) for s in test.series)
    facts = (
        f"frame size {escape(test.key.frame_size)}, profile {escape(test.key.profile)}, "
        f"{test.kind}, {len(test.runs)} runs, {changes} change points"
    )
    return (
        f'<article class="trend-test" id="{_anchor(test)}" data-test="{escape(test.key.name)}">'
        f'<h3>{escape(test.title)}</h3><p class="facts">{facts}</p>'
        f"{trend_svg(test, axis)}{latency_svg(test, axis)}"
        f'<script type="application/json" class="trend-runs">{_runs_json(test, axis)}</script>'
        "</article>"
    )


def trend_html(
    trend: Trend,
    *,
    title: str = "ndrpdr trend",
    generated: datetime.datetime | None = None,
    width: int = 1000,
) -> str:
    """The whole report as one HTML document (see the module's docstring)."""
    runs: Sequence[tuple[str, datetime.datetime]] = trend.runs
    head = (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{escape(title)}</title><style>{_STYLE}</style></head><body>"
        f"<h1>{escape(title)}</h1>"
    )
    if not runs:
        return head + "<p>No runs.</p></body></html>"
    axis = TimeAxis(runs[0][1], runs[-1][1], width)
    starts = dict(runs)
    if trend.last_good is None:
        good = "none"
    else:
        good = (
            f"<b>{escape(trend.last_good)}</b> ({_when(starts[trend.last_good])}; "
            f"{escape(trend.last_good_why)})"
        )
    made = f", generated {_when(generated)} UTC" if generated is not None else ""
    parts = [
        head,
        f'<p class="facts">{len(runs)} runs from {_when(runs[0][1])} to {_when(runs[-1][1])} '
        f"UTC, {len(trend.tests)} tests{made}.</p>",
        f"<p>Last good run: {good}.</p>",
        *_regressions(trend),
        *_latest(trend),
        "<h2>Tests over time</h2>",
        _legend(),
        f'<p class="facts">Levels and change points: minimum description length over the runs '
        f"that passed without caveat; a change costs {PENALTY_PER_LN_N:g} "
        f"ln(max(runs, {HORIZON_RUNS})) nats and "
        f"needs {MIN_SEGMENT} runs at the new level; noise \u03c3 from the run-to-run "
        "differences, at least half the searches' own width. Hover a chart for the runs' "
        "values.</p>",
        *(_test_article(test, axis) for test in trend.tests),
        f'<div id="tip"></div><script>{_SCRIPT}</script></body></html>',
    ]
    return "".join(parts)


def trend_report(
    samples: Sequence[Sample],
    *,
    latency: Mapping[tuple[str, TestKey], Latency] | None = None,
    since: str | None = None,
    title: str = "ndrpdr trend",
    generated: datetime.datetime | None = None,
) -> str:
    """The report of ``samples`` (any source: record directories, the results store) as HTML.

    ``build_trend`` then ``trend_html``; ValueError for a ``since`` that names no run.
    """
    trend = build_trend(samples, latency=latency, since=since)
    return trend_html(trend, title=title, generated=generated)
