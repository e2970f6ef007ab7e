"""Soak records in the readers' pure parts: compare's metric, the trend sample, CSIT's result
(from real soak searches on the simulator)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from record_helpers import SIM, sim_soak_record

from ndrpdr.csitexport.csitmodel import RobotTest, csit_caveats, csit_test_case
from ndrpdr.report.soaksummary import soak_message, soak_metadata
from ndrpdr.topology.loader import load_topology
from ndrpdr.trend.compare import SOAK_METRIC, compare_runs, record_values
from ndrpdr.trend.history import sample_from_record

TEST = "64B-1c-ethip4-ip4base-soak"


@pytest.fixture(scope="module")
def record() -> dict[str, Any]:
    return sim_soak_record(load_topology(SIM), soak_time_s=60.0)


def test_compare_takes_the_critical_load_and_twice_its_stdev(record: dict[str, Any]) -> None:
    estimate = record["soak"]["critical_load_pps"]
    value = record_values(record)[SOAK_METRIC]
    assert value.value_pps == estimate["median"] and value.noise_pps == 2.0 * estimate["stdev"]
    lower = copy.deepcopy(record)
    lower["soak"]["critical_load_pps"]["median"] *= 0.5
    (row,) = compare_runs({TEST: record}, {TEST: lower}).rows
    assert row.verdict == "worse" and row.regressed(10.0)
    older = copy.deepcopy(record)  # format 1.13.0 and before: the mean was the estimate
    del older["soak"]["critical_load_pps"]["median"]
    assert record_values(older)[SOAK_METRIC].value_pps == estimate["mean"]


def test_a_soak_without_an_estimate_has_no_metric() -> None:
    failed = sim_soak_record(load_topology(SIM), fail_at=1)
    assert record_values(failed) == {}
    sample = sample_from_record(TEST, failed, run_id="r")
    assert sample.kind == "soak" and sample.status == "failed" and not sample.metrics


def test_the_trend_sample_of_a_soak(record: dict[str, Any]) -> None:
    sample = sample_from_record(TEST, record, run_id="r")
    assert sample.kind == "soak" and set(sample.metrics) == {SOAK_METRIC}


def test_csit_gets_the_bounds_and_a_failed_soak_is_unknown(record: dict[str, Any]) -> None:
    document = csit_test_case(record, RobotTest(TEST))
    assert document["test_type"] == "soak" and "SOAK" in document["tags"]
    assert set(document["result"]["critical_rate"]) == {"lower", "upper"}
    assert csit_caveats(record, document) == []
    failed = sim_soak_record(load_topology(SIM), fail_at=3)
    assert failed["soak"]["critical_load_pps"] is not None  # two trials' estimate ...
    document = csit_test_case(failed, RobotTest(TEST))
    assert document["result"] == {"type": "unknown"}  # ... is no soak result
    assert document["passed"] is False and document["message"] == "TG: gone"
    notes = csit_caveats(failed, document)
    assert notes == ["result type unknown: the soak failed or measured no trial"]


def test_another_loss_ratio_is_noted(record: dict[str, Any]) -> None:
    other = copy.deepcopy(record)
    other["soak"]["loss_ratio"] = 1e-6
    document = csit_test_case(other, RobotTest(TEST))
    assert csit_caveats(other, document) == ["soak for loss ratio 1e-06, CSIT's 1e-07"]


def test_the_message_and_metadata_come_from_the_record(record: dict[str, Any]) -> None:
    estimate = record["soak"]["critical_load_pps"]
    message = soak_message(record)
    assert message.startswith(f"SOAK critical load: {estimate['mean'] / 1e6:.4f} Mpps")
    assert "60 s of 60 s" in message and "beyond" not in message
    metadata = soak_metadata(record)
    assert float(metadata["SOAK_UPPER"]) == pytest.approx(estimate["upper"], rel=1e-6)
    limited = copy.deepcopy(record)
    limited["soak"].update(limited_by="max_load", stopped="max_wall_time=1 s reached")
    lines = soak_message(limited).splitlines()
    assert (
        lines[2]
        == f"the critical load may lie beyond max_load ({limited['soak']['max_load_pps']:.6g} pps)"
    )
    assert lines[3] == "stopped early: max_wall_time=1 s reached"
    failed = sim_soak_record(load_topology(SIM), fail_at=1)
    assert soak_message(failed).startswith("SOAK: no trial measured for loss ratio 1e-07")
    assert "SOAK_AVG" not in soak_metadata(failed) and soak_metadata(failed)["SOAK_TRIALS"] == "0"
