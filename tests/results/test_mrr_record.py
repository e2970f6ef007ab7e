"""MRR result records (kind "mrr"): built from real simulator trials, checked by the schema."""

from __future__ import annotations

import copy
import datetime
import statistics
from pathlib import Path
from typing import Any

import pytest

from ndrpdr.families import profile_of as get_profile
from ndrpdr.results.mrrrecord import build_mrr_record
from ndrpdr.results.record import RECORD_VERSION, RecordTraffic
from ndrpdr.results.schema import RecordError, validate_record
from ndrpdr.search.trial import TrialResult
from ndrpdr.topology.loader import load_topology
from ndrpdr.trafficgen.sim.driver import SimTrafficGenerator

SIM = Path(__file__).resolve().parents[2] / "topologies" / "sim.yaml"
START = datetime.datetime(2025, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc)


def _record(trials: list[TrialResult], error: str | None = None) -> dict[str, Any]:
    return build_mrr_record(
        traffic=RecordTraffic(load_topology(SIM), get_profile("ethip4-ip4base"), 64, 2),
        load_pps=1e7,
        trial_duration_s=1.0,
        trials=trials,
        started=START,
        finished=START + datetime.timedelta(seconds=3),
        error=error,
    )


@pytest.fixture(scope="module")
def trials() -> list[TrialResult]:
    """Three 1 s trials of the simulated TG at its max load (the DUT drops some)."""
    tg = SimTrafficGenerator(load_topology(SIM), 64)
    return [tg.measure(1.0, tg.max_load_pps) for _ in range(3)]


def test_passed_mrr_record(trials: list[TrialResult]) -> None:
    record = _record(trials)
    validate_record(record)
    assert record["kind"] == "mrr" and record["version"] == RECORD_VERSION
    assert record["status"] == "passed" and record["error"] is None
    assert record["profile"]["frame_size"] == 64
    mrr = record["mrr"]
    assert mrr["trial_count"] == 3 and len(mrr["trials"]) == 3
    rates = [float(t.forwarded_count or 0) / t.duration for t in trials]
    stats = mrr["receive_rate_pps"]
    assert stats["values"] == rates
    assert stats["mean"] == pytest.approx(statistics.fmean(rates))
    assert stats["stdev"] == pytest.approx(statistics.stdev(rates))
    assert stats["min"] == min(rates) and stats["max"] == max(rates)
    assert 0 < stats["mean"] < 1e7 * 1.000001


def test_failed_mrr_record_without_trials_validates() -> None:
    record = _record([], error="TrafficError: the TG went away")
    validate_record(record)
    assert record["status"] == "failed"
    assert record["mrr"]["receive_rate_pps"] is None


def test_one_trial_has_stdev_zero(trials: list[TrialResult]) -> None:
    assert _record(trials[:1])["mrr"]["receive_rate_pps"]["stdev"] == 0.0


def test_schema_checks_the_mrr_branch(trials: list[TrialResult]) -> None:
    """The kind picks the branch: an MRR record must have ``mrr`` and no search fields."""
    good = _record(trials)
    missing = copy.deepcopy(good)
    del missing["mrr"]
    with pytest.raises(RecordError, match=r"^result record: \(record\): 'mrr' is a required"):
        validate_record(missing)
    extra = copy.deepcopy(good)
    extra["search"] = {}
    with pytest.raises(RecordError, match="Additional properties"):
        validate_record(extra)
    negative = copy.deepcopy(good)
    negative["mrr"]["receive_rate_pps"]["mean"] = -1.0
    with pytest.raises(RecordError, match=r"^result record: mrr\.receive_rate_pps"):
        validate_record(negative)
    as_ndrpdr = copy.deepcopy(good)
    as_ndrpdr["kind"] = "ndrpdr"  # the NDRPDR branch wants its search fields
    with pytest.raises(RecordError, match="required property"):
        validate_record(as_ndrpdr)
