"""The result record of one MRR measurement (``kind`` "mrr", record format since 1.4.0).

MRR (maximum receive rate, CSIT's MRR test type) is no search: a number
of trials at one load (by default the TG's maximum). The record has the
NDRPDR record's top-level fields where they apply (version, tool, status,
error, started, finished, testbed, profile) and an ``mrr`` section: the
load [frames/s, aggregate], the trial duration [s], every trial (as in
NDRPDR records) and the receive rate (forwarded / duration) of the trials:
mean, sample stdev (0 for one trial), min, max and each value [frames/s].
"""

from __future__ import annotations

import datetime
import statistics
from collections.abc import Mapping, Sequence
from typing import Any

from ndrpdr.results.record import RecordTraffic, record_head, trial_entry
from ndrpdr.search.trial import TrialResult


def receive_rate(trial: TrialResult) -> float:
    """Frames forwarded per second of the trial's duration [frames/s]."""
    return float(trial.forwarded_count or 0.0) / trial.duration


def receive_rate_stats(trials: Sequence[TrialResult]) -> dict[str, Any] | None:
    """Mean, sample stdev, min, max and every value of the receive rate [frames/s]."""
    rates = [receive_rate(t) for t in trials]
    if not rates:
        return None
    return {
        "mean": statistics.fmean(rates),
        "stdev": statistics.stdev(rates) if len(rates) > 1 else 0.0,
        "min": min(rates),
        "max": max(rates),
        "values": rates,
    }


def build_mrr_record(
    *,
    traffic: RecordTraffic,
    load_pps: float,
    trial_duration_s: float,
    trials: Sequence[TrialResult],
    started: datetime.datetime,
    finished: datetime.datetime,
    error: str | None = None,
) -> dict[str, Any]:
    """The MRR record as a JSON-ready dict (validate with ``ndrpdr.results.schema``).

    With ``error`` the measurement stopped early: ``trials`` are the ones
    measured before, and ``status`` is "failed".
    """
    return {
        **record_head("mrr", traffic, started, finished, error),
        "mrr": {
            "load_pps": load_pps,
            "trial_duration_s": trial_duration_s,
            "trial_count": len(trials),
            "receive_rate_pps": receive_rate_stats(trials),
            "trials": [trial_entry(i, t) for i, t in enumerate(trials)],
        },
    }


def mrr_message(record: Mapping[str, Any]) -> str:
    """``MRR: avg 9.5000 Mpps, stdev 0.0000 Mpps (min ..., max ...; 10 x 1 s at 10.0000 Mpps)``."""
    mrr = record["mrr"]
    stats = mrr["receive_rate_pps"]
    load = mrr["load_pps"] / 1e6
    run = f"{mrr['trial_count']} x {mrr['trial_duration_s']:g} s at {load:.4f} Mpps"
    if stats is None:
        return f"MRR: no trial measured ({run})"
    return (
        f"MRR: avg {stats['mean'] / 1e6:.4f} Mpps, stdev {stats['stdev'] / 1e6:.4f} Mpps "
        f"(min {stats['min'] / 1e6:.4f}, max {stats['max'] / 1e6:.4f}; {run})"
    )
