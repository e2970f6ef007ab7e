"""Soak result records (kind "soak"): from real soak searches on the simulator, checked by the
schema, kept with the trials so far when the TG fails."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from record_helpers import SIM, sim_soak_record

from ndrpdr.results.record import RECORD_VERSION
from ndrpdr.results.schema import RecordError, validate_record
from ndrpdr.search.soak import soakspread
from ndrpdr.search.soak.soakestimate import Estimate
from ndrpdr.topology.loader import load_topology
from ndrpdr.trafficgen.sim.driver import SimTrafficGenerator

SOAK_TIME_S = 120.0


@pytest.fixture(scope="module")
def record() -> dict[str, Any]:
    return sim_soak_record(load_topology(SIM), soak_time_s=SOAK_TIME_S)


def test_a_soak_record_validates_and_carries_the_estimate(record: dict[str, Any]) -> None:
    validate_record(record)
    assert record["kind"] == "soak" and record["version"] == RECORD_VERSION == "1.14.0"
    assert record["status"] == "passed" and record["error"] is None
    assert record["profile"]["name"] == "ethip4-ip4base" and record["profile"]["frame_size"] == 64
    soak = record["soak"]
    assert soak["loss_ratio"] == 1e-7 and soak["time_budget_s"] == SOAK_TIME_S
    assert soak["search_time_s"] == pytest.approx(SOAK_TIME_S)
    assert soak["trial_count"] == len(soak["trials"]) > 3
    assert [t["index"] for t in soak["trials"]] == list(range(soak["trial_count"]))
    assert {t["reason"]["algorithm"] for t in soak["trials"]} == {"soak"}
    load = soak["critical_load_pps"]
    assert load["lower"] == pytest.approx(load["mean"] - load["stdev"])
    assert load["upper"] == pytest.approx(load["mean"] + load["stdev"])
    assert soak["min_load_pps"] < load["low"] <= load["median"] <= load["high"]
    assert load["low"] <= load["mean"] <= load["high"]
    assert load["high"] < soak["max_load_pps"] and soak["limited_by"] is None
    assert soak["stopped"] is None


def test_the_estimate_is_the_simulated_duts_critical_load(record: dict[str, Any]) -> None:
    tg = SimTrafficGenerator(load_topology(SIM), 64)
    truth = tg.model.true_throughput(SOAK_TIME_S, 1e-7)
    assert record["soak"]["critical_load_pps"]["median"] == pytest.approx(truth, rel=1e-3)


def test_the_record_has_the_estimate_the_search_reports(monkeypatch: pytest.MonkeyPatch) -> None:
    """The search's result reads the trials' spread in (``soakspread.estimate``) after the
    last trial; the record has that, not the estimate after the last trial (it had until
    format 1.14.0, whose ``median`` is the estimate)."""
    reported = Estimate(mean=5e6, stdev=1e5, median=4.9e6, low=4.7e6, high=5.3e6)
    monkeypatch.setattr(soakspread, "estimate", lambda posterior: reported)
    load = sim_soak_record(load_topology(SIM), soak_time_s=30.0)["soak"]["critical_load_pps"]
    assert load == {
        "median": 4.9e6,
        "mean": 5e6,
        "stdev": 1e5,
        "lower": 4.9e6,
        "upper": 5.1e6,
        "low": 4.7e6,
        "high": 5.3e6,
    }


def test_a_failing_tg_keeps_the_trials_so_far() -> None:
    failed = sim_soak_record(load_topology(SIM), fail_at=4, message="TG: gone")
    validate_record(failed)
    assert failed["status"] == "failed" and failed["error"] == "TG: gone"
    soak = failed["soak"]
    assert soak["trial_count"] == len(soak["trials"]) == 3
    assert soak["critical_load_pps"] is not None  # what three trials give
    assert soak["search_time_s"] == pytest.approx(sum(t["duration_s"] for t in soak["trials"]))


def test_a_tg_failing_at_once_leaves_no_estimate() -> None:
    failed = sim_soak_record(load_topology(SIM), fail_at=1)
    validate_record(failed)
    assert failed["soak"]["trials"] == [] and failed["soak"]["critical_load_pps"] is None


def _drop_soak(record: dict[str, Any]) -> None:
    del record["soak"]


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    """A change of ``record`` at the dotted ``path``."""

    def change(record: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        for name in parents:
            record = record[name]
        record[last] = value

    return change


@pytest.mark.parametrize(
    ("change", "where"),
    [
        (_drop_soak, r"\(record\): 'soak' is a required"),
        (_set("mrr", {}), r"\(record\): Additional properties"),
        (_set("soak.critical_load_pps.stdev", -1.0), r"soak\.critical_load_pps"),
        (_set("soak.loss_ratio", 1.0), r"soak\.loss_ratio"),
        (_set("soak.limited_by", "tg"), r"soak\.limited_by"),
        (_set("status", 3), r"status"),  # the fields all kinds have: as the MRR record's
    ],
)
def test_the_schema_checks_the_soak_branch(
    record: dict[str, Any], change: Callable[[dict[str, Any]], None], where: str
) -> None:
    broken = copy.deepcopy(record)
    change(broken)
    with pytest.raises(RecordError, match=rf"^result record: {where}"):
        validate_record(broken)
