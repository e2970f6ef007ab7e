"""The result record of one soak search (``kind`` "soak", record format since 1.8.0).

A soak search (``ndrpdr.search.soak``, CSIT's soak test type) estimates
the critical load: the load at which the DUT's long-run loss ratio is the
target (1e-7). The record has the top-level fields the other kinds have
(version, tool, status, error, started, finished, testbed, profile) and a
``soak`` section: the loss ratio target, the load range, the time budget
and the trial seconds used [s], the estimate ``critical_load_pps`` (the
posterior's ``mean`` and ``stdev``, ``lower`` / ``upper`` = mean -/+ stdev
as CSIT shows a soak result, ``low`` / ``high`` its 95 % interval;
[frames/s, aggregate]), ``limited_by`` (the range's end the interval
reaches), ``stopped`` (why the search ended before its budget), since
1.9.0 ``bursts`` (the evidence that loss came in bursts, which the
estimate's spread does not account for: ``ndrpdr.results.soakbursts``;
null without it) and every trial (as in NDRPDR records). A search that
failed (``status`` "failed") keeps the trials measured before and the
estimate they give (``critical_load_pps`` is null without a trial).
"""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Mapping, Sequence
from typing import Any

from ndrpdr.results.record import RecordTraffic, record_head, trial_entry
from ndrpdr.results.soakbursts import find_bursts
from ndrpdr.search.soak import range_end_reached
from ndrpdr.search.soak.soakestimate import Estimate
from ndrpdr.search.trial import TrialResult


@dataclasses.dataclass(frozen=True)
class SoakSettings:
    """What the soak search was asked: the target, the load range [pps] and the budget [s]."""

    loss_ratio: float
    min_load_pps: float
    max_load_pps: float
    time_budget_s: float


def limited_by(estimate: Estimate, settings: SoakSettings) -> str | None:
    """ "min_load" / "max_load" when the 95 % interval reaches that end of the load range
    (as ``SoakResult.limited_by`` says it)."""
    return range_end_reached(
        estimate.low, estimate.high, settings.min_load_pps, settings.max_load_pps
    )


def critical_load_section(estimate: Estimate | None) -> dict[str, float] | None:
    """The record's ``critical_load_pps``: the estimate (the posterior median), mean, stdev,
    lower / upper (mean -/+ stdev: CSIT's), low / high (the 95 % interval); None without an
    estimate (no trial measured)."""
    if estimate is None:
        return None
    return {
        "median": estimate.median,
        "mean": estimate.mean,
        "stdev": estimate.stdev,
        "lower": estimate.lower,
        "upper": estimate.upper,
        "low": estimate.low,
        "high": estimate.high,
    }


def estimate_of(section: Mapping[str, Any]) -> Any:
    """The estimate of a record's ``critical_load_pps``: its ``median`` (since format
    1.14.0), else its ``mean`` (an older record's)."""
    return section.get("median", section.get("mean"))


def build_soak_record(
    *,
    traffic: RecordTraffic,
    settings: SoakSettings,
    trials: Sequence[TrialResult],
    estimate: Estimate | None,
    started: datetime.datetime,
    finished: datetime.datetime,
    stopped: str | None = None,
    error: str | None = None,
) -> dict[str, Any]:
    """The soak record as a JSON-ready dict (validate with ``ndrpdr.results.schema``).

    ``estimate`` is the posterior after the last trial (None before any);
    with ``error`` the search stopped early: ``trials`` are the ones
    measured before, and ``status`` is "failed".
    """
    bursts = find_bursts(trials, settings.loss_ratio)
    return {
        **record_head("soak", traffic, started, finished, error),
        "soak": {
            "loss_ratio": settings.loss_ratio,
            "min_load_pps": settings.min_load_pps,
            "max_load_pps": settings.max_load_pps,
            "time_budget_s": settings.time_budget_s,
            "search_time_s": sum(t.effective_seconds for t in trials),
            "trial_count": len(trials),
            "critical_load_pps": critical_load_section(estimate),
            "limited_by": None if estimate is None else limited_by(estimate, settings),
            "stopped": stopped,
            "bursts": None if bursts is None else bursts.to_json(),
            "trials": [trial_entry(i, t) for i, t in enumerate(trials)],
        },
    }
