"""The irregularity rules (ndrpdr.results.irregular) on records of real sim searches.

Each record comes from a real ``run_search`` on sim.yaml (DUT NDR about
4.41 Mpps, PDR about 4.44 Mpps); a case the simulator cannot produce on
demand (bswlv reporting NDR above PDR, seen on a noisy Linux DUT: 624.1 >
607.1 kpps) is made by editing a real typed record's bounds, as stated per test.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

import pytest

from ndrpdr.families import profile_of as get_profile
from ndrpdr.goals import ndr_pdr_goals
from ndrpdr.results.caveats import caveat_lines, caveat_tags
from ndrpdr.results.irregular import (
    CLI_NAMES,
    ROBOT_NAMES,
    IrregularPolicy,
    IrregularReason,
    find_irregularities,
    irregular_tags,
)
from ndrpdr.results.oneway import one_way_warning
from ndrpdr.results.schema import validate_record
from ndrpdr.results.searchrecord import GoalEntry, SearchRecord, settle
from ndrpdr.topology.loader import load_topology
from ndrpdr.trafficgen.sim.driver import SimTrafficGenerator
from search_call import search_call

SIM = Path(__file__).resolve().parents[2] / "topologies" / "sim.yaml"
GOALS = ndr_pdr_goals(duration_sum_s=2.0, relative_width=0.02)


def _run(
    *,
    algorithm: str = "mlr",
    min_load_pps: float | None = None,
    max_search_time_s: float | None = None,
    sends_pps: float | None = None,
    policy: IrregularPolicy = IrregularPolicy.FAIL,
) -> Any:
    topology = load_topology(SIM)
    if sends_pps is not None:
        tg = dataclasses.replace(
            topology.tg, options={**topology.tg.options, "max_offered_pps": sends_pps}
        )
        topology = dataclasses.replace(topology, nodes={**topology.nodes, "TG": tg})
    return search_call(
        SimTrafficGenerator(topology),
        topology=topology,
        profile=get_profile("ethip4-ip4base"),
        frame_size=64,
        goals=GOALS,
        algorithm=algorithm,
        min_load_pps=min_load_pps,
        max_search_time_s=max_search_time_s,
        calibrate=sends_pps is not None,
        irregular=policy,
    )


@pytest.fixture(scope="module")
def regular_record() -> SearchRecord:
    record: SearchRecord = _run().record
    return record


@pytest.fixture(scope="module")
def regular(regular_record: SearchRecord) -> dict[str, Any]:
    return regular_record.to_json()


def _bounds(entry: GoalEntry, lower: float | None, upper: float | None) -> GoalEntry:
    return dataclasses.replace(entry, lower_bound_pps=lower, upper_bound_pps=upper)


def _with_goals(record: SearchRecord, *goals: GoalEntry) -> SearchRecord:
    return dataclasses.replace(record, goals=goals)


def _reasons(record: SearchRecord) -> list[IrregularReason]:
    return [item.reason for item in find_irregularities(record)]


def test_a_regular_search_has_no_irregularity(
    regular_record: SearchRecord, regular: dict[str, Any]
) -> None:
    validate_record(regular)
    assert regular["status"] == "passed" and regular["irregular"] == []
    assert _reasons(regular_record) == []
    assert irregular_tags(regular) == []


@pytest.mark.parametrize("algorithm", ["mlr", "binary", "bswlv"])
def test_lossy_min_load_fails_for_every_algorithm(algorithm: str) -> None:
    outcome = _run(algorithm=algorithm, min_load_pps=10e6)
    record = outcome.record.to_json()
    validate_record(record)
    assert outcome.irregular_failed
    assert [item.reason for item in outcome.irregular] == [IrregularReason.MIN_LOAD_LOSSY]
    assert record["status"] == "failed"
    assert record["error"].startswith("irregular result: NDR and PDR: the min load 10 Mpps")
    assert "give a lower --min-rate" in record["error"]
    assert record["irregular"][0]["tag"] == "MIN_LOAD_LOSSY"
    assert record["incomplete"] is False  # the search finished: its result is irregular
    at_min = [t["loss_ratio"] for t in record["trials"] if t["load_pps"] <= 10e6 * 1.0001]
    number = r"([0-9]+(?:\.[0-9]+)?)"
    said = re.search(rf"\(loss {number}(?:\.\.{number})? % in its (\d+) trials?\)", record["error"])
    assert said is not None, record["error"]
    assert float(said[1]) == pytest.approx(100 * min(at_min), rel=5e-3, abs=1e-6)
    assert float(said[2] or said[1]) == pytest.approx(100 * max(at_min), rel=5e-3, abs=1e-6)
    assert int(said[3]) == len(at_min)


def test_a_one_way_black_hole_at_the_min_load_is_named_not_blamed_on_the_rate() -> None:
    record = _run(min_load_pps=10e6).record
    low = record.settings.min_load_pps
    warning = one_way_warning(1, 0, 1234)
    trials = tuple(
        dataclasses.replace(t, warnings=(*t.warnings, warning)) if t.load <= low * 1.0001 else t
        for t in record.trials
    )
    (found,) = find_irregularities(dataclasses.replace(record, trials=trials))
    assert found.reason is IrregularReason.MIN_LOAD_LOSSY
    assert found.message.endswith(
        f"so there is no lower bound; one direction received nothing: {warning}; a lower "
        "--min-rate will not help"
    )


def test_lossy_min_load_passes_with_warn_and_keeps_the_list() -> None:
    outcome = _run(min_load_pps=10e6, policy=IrregularPolicy.WARN)
    record = outcome.record.to_json()
    validate_record(record)
    assert not outcome.irregular_failed and outcome.error is None
    assert record["status"] == "passed" and record["error"] is None
    assert [item["tag"] for item in record["irregular"]] == ["MIN_LOAD_LOSSY"]
    assert caveat_tags(record) == ["IRREGULAR", "MIN_LOAD_LOSSY"]
    assert any(line.startswith("irregular (allowed): NDR and PDR: the min load") for line in
               caveat_lines(record))  # fmt: skip


def test_messages_name_the_robot_settings() -> None:
    record = _run(min_load_pps=10e6).record
    (item,) = find_irregularities(record, ROBOT_NAMES)
    assert "give a lower min_rate (${MIN_RATE})" in item.message
    (item,) = find_irregularities(record, CLI_NAMES)
    assert "give a lower --min-rate" in item.message


def test_bswlv_ndr_above_pdr_is_out_of_order(regular_record: SearchRecord) -> None:
    """The issue's bswlv result (NDR 624.1 > PDR 607.1 kpps) written into a real record:
    each goal alone is fine, together they contradict each other."""
    ndr, pdr = regular_record.goals
    record = _with_goals(
        regular_record, _bounds(ndr, 624.1e3, 627.0e3), _bounds(pdr, 607.1e3, 610.0e3)
    )
    record = dataclasses.replace(
        record, settings=dataclasses.replace(record.settings, algorithm="bswlv")
    )
    (item,) = find_irregularities(record)
    assert item.reason is IrregularReason.BOUNDS_OUT_OF_ORDER
    assert "NDR lower bound 624.1 kpps is above PDR's 607.1 kpps" in item.message
    assert "NDR upper bound 627 kpps is above PDR's 610 kpps" in item.message
    assert "--algorithm mlr" in item.message
    settled, verdict = settle(record)
    assert verdict.failed and settled.to_json()["status"] == "failed"
    validate_record(settled.to_json())


def test_equal_bounds_and_different_exceed_ratios_are_in_order(
    regular_record: SearchRecord,
) -> None:
    ndr, pdr = regular_record.goals
    pdr = _bounds(pdr, ndr.lower_bound_pps, ndr.upper_bound_pps)
    assert _reasons(_with_goals(regular_record, ndr, pdr)) == []  # a step DUT: they coincide
    assert pdr.lower_bound_pps is not None
    ndr = _bounds(ndr, pdr.lower_bound_pps * 1.01, ndr.upper_bound_pps)
    # PDR now asks more in time, NDR more in loss: no order
    pdr = dataclasses.replace(pdr, goal=dataclasses.replace(pdr.goal, exceed_ratio=0.0))
    assert _reasons(_with_goals(regular_record, ndr, pdr)) == []


def test_lower_above_upper_in_one_goal(regular_record: SearchRecord) -> None:
    ndr, pdr = regular_record.goals
    record = _with_goals(
        regular_record, ndr, _bounds(pdr, pdr.upper_bound_pps, pdr.lower_bound_pps)
    )
    (item,) = find_irregularities(record)
    assert item.reason is IrregularReason.BOUNDS_OUT_OF_ORDER
    assert "PDR lower bound" in item.message and "is above its upper bound" in item.message


def test_tg_limited_bounds_are_irregular() -> None:
    outcome = _run(sends_pps=1e6)
    record = outcome.record.to_json()
    assert record["tg_limit"]["limited"] is True
    assert [item.reason for item in outcome.irregular] == [IrregularReason.TG_LIMITED]
    assert "it sent at most 1 Mpps" in outcome.irregular[0].message
    assert "give a --max-rate the TG can send" in outcome.irregular[0].message
    assert outcome.irregular_failed and record["status"] == "failed"


def test_time_cap_fails_and_warn_passes_it_incomplete(regular: dict[str, Any]) -> None:
    cap = 0.5 * regular["search"]["search_time_s"]
    failed = _run(max_search_time_s=cap)
    assert failed.irregular_failed
    assert [item.reason for item in failed.irregular] == [IrregularReason.TIME_CAP]
    message = failed.irregular[0].message
    assert f"time cap of {cap:g} s of trials" in message
    assert "give a longer --max-search-time" in message
    assert failed.record.to_json()["search"]["max_search_time_s"] == cap
    allowed = _run(max_search_time_s=cap, policy=IrregularPolicy.WARN)
    record = allowed.record.to_json()
    validate_record(record)
    assert record["status"] == "passed" and record["error"] is None
    assert record["incomplete"] is True and record["search"]["time_capped"] is True
    assert irregular_tags(record) == ["IRREGULAR", "TIME_CAP"]


def test_another_failure_keeps_its_error(regular_record: SearchRecord) -> None:
    ndr, pdr = regular_record.goals
    limited = dataclasses.replace(pdr, tg_limit_reason="the TG sent short")
    record = dataclasses.replace(
        _with_goals(regular_record, ndr, limited), error="TG: the link went down"
    )
    settled, verdict = settle(record, IrregularPolicy.WARN)
    assert not verdict.failed
    document = settled.to_json()
    assert document["error"] == "TG: the link went down" and document["status"] == "failed"
    assert [item["tag"] for item in document["irregular"]] == ["TG_LIMITED"]


def test_the_judgement_reads_the_typed_record_not_its_document(
    regular_record: SearchRecord, monkeypatch: pytest.MonkeyPatch
) -> None:
    ndr, pdr = regular_record.goals
    swapped = _bounds(pdr, pdr.upper_bound_pps, pdr.lower_bound_pps)
    record = _with_goals(regular_record, ndr, swapped)

    def no_document(self: SearchRecord) -> dict[str, Any]:
        raise AssertionError("the record was judged through its JSON document")

    monkeypatch.setattr(SearchRecord, "to_json", no_document)
    settled, verdict = settle(record)
    assert [item.reason for item in settled.irregular] == [IrregularReason.BOUNDS_OUT_OF_ORDER]
    assert verdict.failed and settled.error is not None
    assert settled.error.startswith("irregular result: bounds out of order: PDR lower bound")


@pytest.mark.parametrize(
    ("options", "tags"),
    [
        ({"min_load_pps": 10e6}, ["IRREGULAR", "MIN_LOAD_LOSSY"]),
        ({"sends_pps": 1e6}, ["IRREGULAR", "TG_LIMITED"]),
    ],
)
def test_the_written_record_carries_the_typed_judgement(
    options: dict[str, Any], tags: list[str]
) -> None:
    outcome = _run(policy=IrregularPolicy.WARN, **options)
    document = outcome.record.to_json()
    validate_record(document)
    judged = [item.to_json() for item in find_irregularities(outcome.record)]
    assert document["irregular"] == judged == [item.to_json() for item in outcome.irregular]
    assert irregular_tags(document) == tags
