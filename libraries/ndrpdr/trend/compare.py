"""Two runs' results side by side, per test, and whether each change is beyond noise.

Pure: records in, rows out (no paths, no printing), so a directory of JSON
records, an output.xml or a later results store can all feed it. A run is a
mapping ``test name -> record`` (the record as ``ndrpdr.results.record``
writes it). Tests are matched by the key (test name, frame size, profile
name).

The noise of a bound: an NDRPDR search only knows its goal's throughput to
lie between the lower and the upper bound; it stops when they are within
the goal's ``relative_width`` w (RFC 9971: ``(upper - lower) / upper <= w``),
so the noise of the lower bound is ``upper - lower``: at least what the goal
allows, ``lower x w / (1 - w)``, more when the result is wider (a capped
search). A change of a bound (and of the conditional throughput, which lies
between the bounds) is beyond noise when it exceeds the sum of both runs'
noise. The noise of an MRR result is its mean receive rate's
uncertainty: ``2 x stdev / sqrt(n)`` over its trials (about a 95 %
interval of the mean); a change is beyond noise when it exceeds the sum of
both runs' uncertainties. A soak result (kind "soak") is compared by its
critical load's estimate (the posterior median; an older record's mean),
its noise ``2 x stdev`` of the posterior (about half its 95 % interval), as
MRR's. All rates are
aggregate over directions [pps].
"""

from __future__ import annotations

import dataclasses
import math
import statistics
from collections.abc import Mapping
from typing import Any

from ndrpdr.results.soakrecord import estimate_of

#: (metric label, record section, field).
_BOUND_METRICS = (
    ("NDR lower", "ndr", "lower_bound"),
    ("NDR cond", "ndr", "conditional_throughput"),
    ("PDR lower", "pdr", "lower_bound"),
    ("PDR cond", "pdr", "conditional_throughput"),
)
#: The verdict of a metric A has and B has not.
LOST = "lost in B"
#: The metric of a soak record.
SOAK_METRIC = "Soak critical"
#: Metrics the regression gate looks at (conditional throughputs are shown only).
GATED = frozenset({"NDR lower", "PDR lower", "MRR mean", SOAK_METRIC})


@dataclasses.dataclass(frozen=True)
class TestKey:
    """What matches a test of run A with one of run B."""

    name: str
    frame_size: str
    profile: str


@dataclasses.dataclass(frozen=True)
class Value:
    """One metric of one run: ``value_pps`` and its noise ``noise_pps`` (both [pps])."""

    value_pps: float
    noise_pps: float


@dataclasses.dataclass(frozen=True)
class Row:
    """One metric of one test in both runs."""

    key: TestKey
    metric: str
    a_pps: float
    #: None when B has no value for a metric A has (verdict ``lost in B``).
    b_pps: float | None
    #: (B - A) / A [%], None when lost in B.
    change_pct: float | None
    #: Sum of both runs' noise, relative to A [%], None when lost in B.
    noise_pct: float | None
    #: ``better`` / ``worse`` (beyond noise), ``within noise``, or ``lost in B`` (a failed
    #: search in B that found no such bound).
    verdict: str
    #: What is odd about either record (``A failed``, ``B incomplete``), or "".
    note: str

    @property
    def gated(self) -> bool:
        """Whether ``--fail-on-regression`` looks at this metric."""
        return self.metric in GATED

    def regressed(self, threshold_pct: float) -> bool:
        """Worse beyond noise and by more than ``threshold_pct`` [%], or lost, on a gated metric."""
        if not self.gated:
            return False
        if self.verdict == LOST:
            return True
        return (
            self.verdict == "worse"
            and self.change_pct is not None
            and (-self.change_pct > threshold_pct)
        )

    def to_json(self) -> dict[str, Any]:
        """The row as a JSON object (rates in pps, changes in percent)."""
        return {
            "test": self.key.name,
            "frame_size": self.key.frame_size,
            "profile": self.key.profile,
            "metric": self.metric,
            "a_pps": self.a_pps,
            "b_pps": self.b_pps,
            "change_pct": self.change_pct,
            "noise_pct": self.noise_pct,
            "verdict": self.verdict,
            "gated": self.gated,
            "note": self.note,
        }


@dataclasses.dataclass(frozen=True)
class Comparison:
    """Rows for the tests in both runs, and the tests only in one of them."""

    rows: tuple[Row, ...]
    only_a: tuple[TestKey, ...]
    only_b: tuple[TestKey, ...]

    def regressions(self, threshold_pct: float) -> tuple[Row, ...]:
        """Rows worse beyond noise and by more than ``threshold_pct`` [%]."""
        return tuple(row for row in self.rows if row.regressed(threshold_pct))


def test_key(name: str, record: Mapping[str, Any]) -> TestKey:
    """The key of test ``name`` whose record is ``record``."""
    profile = record.get("profile") or {}
    return TestKey(
        name=name,
        frame_size=str(profile.get("frame_size", "")),
        profile=str(profile.get("name", "")),
    )


def _finite(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) and value > 0 else None


def _goal_width(record: Mapping[str, Any], section: str) -> float | None:
    """The relative width of the goal behind ``record[section]`` ("ndr" or "pdr")."""
    search = record.get("search") or {}
    loss = 0.0 if section == "ndr" else search.get("pdr_loss_ratio", 0.005)
    for goal in record.get("goals") or []:
        if goal.get("loss_ratio") == loss:
            width = _finite(goal.get("relative_width"))
            return width if width is not None else 0.0
    return None


def bound_values(record: Mapping[str, Any]) -> dict[str, Value]:
    """NDR / PDR lower bounds and conditional throughputs, each with its noise [pps].

    The noise is ``upper - lower``, at least ``lower x w / (1 - w)`` for the
    goal's ``relative_width`` w (the span the goal allows; also when no upper
    bound was found).
    """
    values: dict[str, Value] = {}
    for metric, section, field in _BOUND_METRICS:
        bounds = record.get(section) or {}
        value = _finite(bounds.get(field))
        lower = _finite(bounds.get("lower_bound"))
        width = _goal_width(record, section)
        if value is None or lower is None or width is None:
            continue
        span = lower * width / (1.0 - width) if width < 1.0 else lower
        upper = _finite(bounds.get("upper_bound"))
        if upper is not None:
            span = max(span, upper - lower)
        values[metric] = Value(value, span)
    return values


def mrr_value(record: Mapping[str, Any]) -> Value | None:
    """The mean receive rate of an MRR record and ``2 x stdev / sqrt(n)`` [pps], or None.

    Reads ``mrr.receive_rate_pps`` (``ndrpdr.results.mrrrecord``): the trials'
    receive rates in ``values``, else its ``mean`` and ``stdev``; None when no
    trial was measured.
    """
    section = record.get("mrr")
    stats = section.get("receive_rate_pps") if isinstance(section, Mapping) else None
    if not isinstance(stats, Mapping):
        return None
    rates = [rate for item in stats.get("values") or [] if (rate := _finite(item)) is not None]
    if rates:
        stdev = statistics.stdev(rates) if len(rates) > 1 else 0.0
        return Value(statistics.fmean(rates), 2.0 * stdev / math.sqrt(len(rates)))
    mean = _finite(stats.get("mean"))
    if mean is None:
        return None
    return Value(mean, 2.0 * (_finite(stats.get("stdev")) or 0.0))


def soak_value(record: Mapping[str, Any]) -> Value | None:
    """The critical load of a soak record (its estimate, ``soakrecord.estimate_of``) and
    ``2 x stdev`` [pps], or None.

    Reads ``soak.critical_load_pps`` (``ndrpdr.results.soakrecord``); None
    when the search measured no trial.
    """
    section = record.get("soak")
    estimate = section.get("critical_load_pps") if isinstance(section, Mapping) else None
    if not isinstance(estimate, Mapping):
        return None
    found = _finite(estimate_of(estimate))
    if found is None:
        return None
    return Value(found, 2.0 * (_finite(estimate.get("stdev")) or 0.0))


def record_values(record: Mapping[str, Any]) -> dict[str, Value]:
    """Every metric of ``record`` this comparison knows, by label."""
    if record.get("kind") == "mrr":
        value = mrr_value(record)
        return {} if value is None else {"MRR mean": value}
    if record.get("kind") == "soak":
        value = soak_value(record)
        return {} if value is None else {SOAK_METRIC: value}
    return bound_values(record)


def _note(record_a: Mapping[str, Any], record_b: Mapping[str, Any]) -> str:
    notes = []
    for run, record in (("A", record_a), ("B", record_b)):
        if record.get("status") not in (None, "passed"):
            notes.append(f"{run} {record.get('status')}")
        elif record.get("incomplete"):
            notes.append(f"{run} incomplete")
        if record.get("irregular"):
            notes.append(f"{run} irregular")
    return ", ".join(notes)


def compare_values(a: Value, b: Value) -> tuple[float, float, str]:
    """(change [%], noise [%], verdict) of going from ``a`` to ``b``."""
    change = b.value_pps / a.value_pps - 1.0
    noise = (a.noise_pps + b.noise_pps) / a.value_pps
    verdict = "within noise" if abs(change) <= noise else "better" if change > 0 else "worse"
    return 100.0 * change, 100.0 * noise, verdict


def compare_runs(
    run_a: Mapping[str, Mapping[str, Any]], run_b: Mapping[str, Mapping[str, Any]]
) -> Comparison:
    """Each test of both runs (``test name -> record``), metric by metric, in A's order."""
    keyed_a = {test_key(name, record): record for name, record in run_a.items()}
    keyed_b = {test_key(name, record): record for name, record in run_b.items()}
    rows: list[Row] = []
    for key, record_a in keyed_a.items():
        record_b = keyed_b.get(key)
        if record_b is None:
            continue
        values_a, values_b = record_values(record_a), record_values(record_b)
        note = _note(record_a, record_b)
        for metric, value_a in values_a.items():
            value_b = values_b.get(metric)
            if value_b is None:
                rows.append(Row(key, metric, value_a.value_pps, None, None, None, LOST, note))
                continue
            change, noise, verdict = compare_values(value_a, value_b)
            rows.append(
                Row(key, metric, value_a.value_pps, value_b.value_pps, change, noise, verdict, note)
            )
    return Comparison(
        rows=tuple(rows),
        only_a=tuple(key for key in keyed_a if key not in keyed_b),
        only_b=tuple(key for key in keyed_b if key not in keyed_a),
    )
