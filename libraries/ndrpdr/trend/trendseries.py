"""Results over time, per test: the series the trend report plots and the changes found in them.

``build_trend`` takes samples (``ndrpdr.trend.history.Sample``: one test
of one run) in any order and groups them per test and testbed, oldest run
first. Each of the gated metrics (NDR lower bound, PDR lower bound, MRR
mean, soak critical load, [pps]) becomes a series; its change points come from
``ndrpdr.trend.changepoint`` over the runs that passed without caveat
(an incomplete, irregular or failed run's value is plotted, marked, but
never moves a level). Latency (optional, from the records' ``latency``
section, see ``latency_of_record``) is carried along for the plots.

The last good run: ``since`` when the caller names it (the run a Jenkins
gate accepted last); else the run just before the oldest regression still
in effect (a metric whose latest change is down), so the report keeps
saying "slower since <run>" until a progression undoes it; else, with no
regression in effect, the newest run in which every test passed without
caveat. The report's table lists every change after that run.

Pure: samples in, dataclasses out, no I/O.
"""

from __future__ import annotations

import dataclasses
import datetime
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ndrpdr.trend.changepoint import Detection, segments
from ndrpdr.trend.compare import SOAK_METRIC, TestKey
from ndrpdr.trend.history import Sample

#: The metrics a trend follows, in the order of the plot's legend.
TREND_METRICS = ("NDR lower", "PDR lower", "MRR mean", SOAK_METRIC)
REGRESSION, PROGRESSION = "regression", "progression"


@dataclasses.dataclass(frozen=True)
class Latency:
    """Latency of one run of one test at its highest load point [us], worst direction."""

    percent_of_pdr: float
    p50_us: float
    p99_us: float | None


@dataclasses.dataclass(frozen=True)
class Point:
    """One run's value of one metric [pps]."""

    run_id: str
    started: datetime.datetime
    value_pps: float
    noise_pps: float
    status: str
    caveat: bool

    @property
    def clean(self) -> bool:
        """Whether the run passed without caveat (only such runs move a level)."""
        return self.status == "passed" and not self.caveat


@dataclasses.dataclass(frozen=True)
class Change:
    """A change point of one metric: the level moved from ``before_pps`` to ``after_pps``."""

    metric: str
    #: The first run at the new level.
    run_id: str
    started: datetime.datetime
    #: The last run at the old level.
    previous_run_id: str
    before_pps: float
    after_pps: float
    #: The step in standard errors of the two levels' difference.
    z: float
    #: The series' run-to-run noise sigma [pps].
    sigma_pps: float

    @property
    def relative(self) -> float:
        """(after - before) / before: -0.05 is 5 % down."""
        return self.after_pps / self.before_pps - 1.0

    @property
    def kind(self) -> str:
        """REGRESSION (lower) or PROGRESSION (higher)."""
        return REGRESSION if self.after_pps < self.before_pps else PROGRESSION


@dataclasses.dataclass(frozen=True)
class Series:
    """One metric of one test over runs, oldest first, and its levels and changes."""

    metric: str
    points: tuple[Point, ...]
    #: Levels over the clean points: (first run id, last run id, level [pps]).
    levels: tuple[tuple[str, str, float], ...]
    changes: tuple[Change, ...]
    #: Run ids of clean runs left out as outliers.
    outliers: tuple[str, ...]
    sigma_pps: float


@dataclasses.dataclass(frozen=True)
class TestTrend:
    """One test on one testbed over runs."""

    key: TestKey
    testbed: str
    kind: str
    series: tuple[Series, ...]
    #: Runs of this test without any value (a failed search): (run id, start, status).
    failed: tuple[tuple[str, datetime.datetime, str], ...]
    #: Run id -> (start, latency), for runs that measured latency.
    latency: tuple[tuple[str, datetime.datetime, Latency], ...]
    #: Every run of this test: (run id, start), oldest first.
    runs: tuple[tuple[str, datetime.datetime], ...]

    @property
    def title(self) -> str:
        """ "64B-1c-ethip4-ip4base-ndrpdr (sim)": the test's name and testbed."""
        return f"{self.key.name} ({self.testbed})" if self.testbed else self.key.name

    @property
    def latest_change(self) -> Change | None:
        """The newest change of any metric, if any."""
        changes = [change for series in self.series for change in series.changes]
        return max(changes, key=lambda c: (c.started, c.run_id)) if changes else None


@dataclasses.dataclass(frozen=True)
class Trend:
    """Every test's trend, the runs, and the last good run."""

    tests: tuple[TestTrend, ...]
    #: Every run: (run id, start), oldest first.
    runs: tuple[tuple[str, datetime.datetime], ...]
    #: The last good run (see the module's docstring), None without runs.
    last_good: str | None
    #: Whether the caller named the last good run.
    last_good_given: bool
    #: Why that run: "given", "before the oldest regression still in effect (<test>, <metric>)",
    #: or "the newest run that passed cleanly".
    last_good_why: str = ""

    def changes_since_last_good(self) -> list[tuple[TestTrend, Change]]:
        """Changes whose first new run comes after the last good run, newest first."""
        order = {run_id: i for i, (run_id, _) in enumerate(self.runs)}
        cut = order.get(self.last_good, -1) if self.last_good is not None else -1
        found = [
            (test, change)
            for test in self.tests
            for series in test.series
            for change in series.changes
            if order[change.run_id] > cut
        ]
        return sorted(found, key=lambda item: (-order[item[1].run_id], item[0].key.name))


def latency_of_record(record: Mapping[str, Any]) -> Latency | None:
    """The record's latency at its highest load point, worst direction, or None if not measured."""
    section = record.get("latency")
    if not isinstance(section, Mapping):
        return None
    points = [p for p in section.get("points") or [] if isinstance(p, Mapping)]
    if not points:
        return None
    top = max(points, key=lambda p: float(p.get("percent_of_pdr") or 0.0))
    measured = [d for d in top.get("directions") or [] if d.get("p50_us") is not None]
    if not measured:
        return None
    p99 = [float(d["p99_us"]) for d in measured if d.get("p99_us") is not None]
    return Latency(
        percent_of_pdr=float(top.get("percent_of_pdr") or 0.0),
        p50_us=max(float(d["p50_us"]) for d in measured),
        p99_us=max(p99) if p99 else None,
    )


def _series(metric: str, points: Sequence[Point]) -> Series:
    clean = [p for p in points if p.clean]
    detection: Detection = segments([p.value_pps for p in clean], [p.noise_pps for p in clean])
    levels = tuple(
        (clean[s.start].run_id, clean[s.stop - 1].run_id, s.mean) for s in detection.segments
    )
    changes = tuple(
        Change(
            metric=metric,
            run_id=clean[c.index].run_id,
            started=clean[c.index].started,
            previous_run_id=clean[c.index - 1].run_id,
            before_pps=c.before.mean,
            after_pps=c.after.mean,
            z=c.z,
            sigma_pps=c.sigma,
        )
        for c in detection.changes
    )
    return Series(
        metric=metric,
        points=tuple(points),
        levels=levels,
        changes=changes,
        outliers=tuple(clean[i].run_id for i in detection.outliers),
        sigma_pps=detection.sigma,
    )


def _test_trend(
    samples: Sequence[Sample], latency: Mapping[tuple[str, TestKey], Latency]
) -> TestTrend:
    first = samples[0]
    series = []
    for metric in TREND_METRICS:
        points = [
            Point(s.run_id, s.started, v.value_pps, v.noise_pps, s.status, s.caveat)
            for s in samples
            if (v := s.metrics.get(metric)) is not None
        ]
        if points:
            series.append(_series(metric, points))
    failed = tuple(
        (s.run_id, s.started, s.status)
        for s in samples
        if not any(m in s.metrics for m in TREND_METRICS)
    )
    lat = tuple(
        (s.run_id, s.started, found)
        for s in samples
        if (found := latency.get((s.run_id, s.key))) is not None
    )
    return TestTrend(
        key=first.key,
        testbed=first.testbed,
        kind=first.kind,
        series=tuple(series),
        failed=failed,
        latency=lat,
        runs=tuple((s.run_id, s.started) for s in samples),
    )


def _natural(text: str) -> tuple[tuple[int, str], ...]:
    """A sort key that puts "64B" before "128B": digit runs compare as numbers."""
    return tuple(
        (int(part), "") if part.isdigit() else (-1, part) for part in re.split(r"(\d+)", text)
    )


def _ordered_runs(samples: Iterable[Sample]) -> list[tuple[str, datetime.datetime]]:
    starts: dict[str, datetime.datetime] = {}
    for sample in samples:
        known = starts.get(sample.run_id)
        starts[sample.run_id] = sample.started if known is None else min(known, sample.started)
    return sorted(starts.items(), key=lambda item: (item[1], item[0]))


def _last_good(
    tests: Sequence[TestTrend],
    runs: Sequence[tuple[str, datetime.datetime]],
    samples: Iterable[Sample],
) -> tuple[str | None, str]:
    """The last good run when the caller names none, and why that one."""
    if not runs:
        return None, "no runs"
    order = {run_id: i for i, (run_id, _) in enumerate(runs)}
    in_effect = [
        (order[series.changes[-1].run_id], test.title, series.metric)
        for test in tests
        for series in test.series
        if series.changes and series.changes[-1].kind == REGRESSION
    ]
    if in_effect:
        index, title, metric = min(in_effect)
        return (
            runs[max(index - 1, 0)][0],
            f"the run before the oldest regression still in effect ({title}, {metric})",
        )
    bad = {s.run_id for s in samples if s.status != "passed" or s.caveat}
    clean = [run_id for run_id, _ in runs if run_id not in bad]
    if clean:
        return clean[-1], "no regression in effect: the newest run that passed cleanly"
    return runs[0][0], "no regression in effect and no run passed cleanly: the first run"


def build_trend(
    samples: Sequence[Sample],
    *,
    latency: Mapping[tuple[str, TestKey], Latency] | None = None,
    since: str | None = None,
) -> Trend:
    """Per test and testbed, each metric's series and changes; the last good run.

    Args:
        samples: Any number of samples, in any order; a run's second sample of
            the same test (and testbed) replaces the first.
        latency: (run id, test key) -> latency of that run of that test.
        since: The last good run's id (None: found as the module's docstring says).

    Raises:
        ValueError: ``since`` names no run among the samples.
    """
    runs = _ordered_runs(samples)
    order = {run_id: i for i, (run_id, _) in enumerate(runs)}
    if since is not None and since not in order:
        raise ValueError(f"trend: --since {since!r} is not a run of the samples given")
    grouped: dict[tuple[TestKey, str], dict[str, Sample]] = {}
    for sample in samples:
        grouped.setdefault((sample.key, sample.testbed), {})[sample.run_id] = sample
    tests = tuple(
        _test_trend(sorted(by_run.values(), key=lambda s: order[s.run_id]), latency or {})
        for (_, _), by_run in sorted(
            grouped.items(),
            key=lambda item: (_natural(item[0][0].name), item[0][0].frame_size, item[0][1]),
        )
    )
    last_good, why = (since, "given") if since is not None else _last_good(tests, runs, samples)
    return Trend(
        tests=tests,
        runs=tuple(runs),
        last_good=last_good,
        last_good_given=since is not None,
        last_good_why=why,
    )
