"""The typed record: status from the error, goal names from the record's PDR, settle's verdicts."""

from __future__ import annotations

import datetime
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from ndrpdr.families import profile_of as get_profile
from ndrpdr.goals import loss_ratio_goals
from ndrpdr.report.traceplot import trace_svg
from ndrpdr.report.trialtable import trials_html
from ndrpdr.results.irregular import IrregularPolicy, IrregularReason
from ndrpdr.results.schema import RecordError, validate_record
from ndrpdr.results.searchrecord import (
    RecordStatus,
    SearchRecord,
    SearchSettings,
    build_record,
    settle,
)
from ndrpdr.search import search
from ndrpdr.search.result import GoalIrregularity
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.model import Topology
from ndrpdr.trafficgen.sim.driver import SimTrafficGenerator

SIM = Path(__file__).resolve().parents[2] / "topologies" / "sim.yaml"
#: Three quick goals; 0.01 is called PDR below, 0.005 is then just "loss ≤ 0.5 %".
GOALS = loss_ratio_goals([0.0, 0.005, 0.01], duration_sum_s=2.0, relative_width=0.02)
PDR = 0.01
NOW = datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc)


@pytest.fixture(scope="module")
def topology() -> Topology:
    return load_topology(SIM)


def _record(
    topology: Topology,
    *,
    min_load_pps: float = 30_000.0,
    intermediate_trials: bool = False,
    **kwargs: object,
) -> SearchRecord:
    tg = SimTrafficGenerator(topology)
    settings = SearchSettings(
        "mlr", GOALS, min_load_pps, tg.max_load_pps, PDR, None, intermediate_trials
    )
    result = search(
        tg, GOALS, min_load_pps, tg.max_load_pps, "mlr", intermediate_trials=intermediate_trials
    )
    return build_record(
        topology=topology,
        profile=get_profile("ethip4-ip4base"),
        frame_size=64,
        settings=settings,
        result=result,
        trials=result.trials,
        started=NOW,
        finished=NOW,
        **kwargs,  # type: ignore[arg-type]
    )


def test_goal_names_follow_the_records_pdr_loss_ratio(topology: Topology) -> None:
    record = _record(topology)
    assert [record.label(entry) for entry in record.goals] == ["NDR", "loss ≤ 0.5 %", "PDR"]
    assert record.pdr is record.goals[2] and record.ndr is record.goals[0]
    document = record.to_json()
    validate_record(document)
    assert document["pdr"] == record.goals[2].bounds_json()
    # the log's plot and table name the goals as the keyword and the message do
    svg_texts = "".join(ET.fromstring(trace_svg(document)).itertext())
    assert "PDR lower" in svg_texts and "loss ≤ 1 %" not in svg_texts
    assert "loss ≤ 1 %" not in trials_html(document)


def test_status_is_failed_exactly_with_an_error(topology: Topology) -> None:
    passed = _record(topology)
    assert passed.status is RecordStatus.PASSED and passed.to_json()["status"] == "passed"
    failed = _record(topology, error="TG: gone")
    assert failed.status is RecordStatus.FAILED and failed.incomplete
    assert failed.to_json()["status"] == "failed"


def test_no_result_is_an_irregular_reason_of_its_own(topology: Topology) -> None:
    tg = SimTrafficGenerator(topology)
    record = build_record(
        topology=topology,
        profile=get_profile("ethip4-ip4base"),
        frame_size=64,
        settings=SearchSettings("mlr", GOALS, 1e4, tg.max_load_pps),
        result=None,
        trials=[],
        started=NOW,
        finished=NOW,
        error="TG: gone",
    )
    assert {entry.irregular_reason for entry in record.goals} == {GoalIrregularity.NO_RESULT}
    assert not any(entry.regular for entry in record.goals)
    assert record.to_json()["goals"][0]["irregular_reason"] == "no result"


@pytest.mark.parametrize("policy", list(IrregularPolicy))
def test_settle_a_lossy_min_load(topology: Topology, policy: IrregularPolicy) -> None:
    """The sim DUT loses at 10 Mpps: the min load is already an upper bound."""
    record = _record(topology, min_load_pps=10e6)
    assert record.goals[0].irregular_reason is GoalIrregularity.MIN_LOAD_IS_UPPER
    settled, verdict = settle(record, policy)
    assert [item.reason for item in settled.irregular] == [IrregularReason.MIN_LOAD_LOSSY]
    assert verdict.irregularities == settled.irregular
    if policy is IrregularPolicy.FAIL:
        assert verdict.failed and settled.status is RecordStatus.FAILED
        assert settled.error is not None and settled.error.startswith("irregular result: ")
    else:
        assert not verdict.failed and settled.error is None
    document = settled.to_json()
    validate_record(document)
    assert [entry["tag"] for entry in document["irregular"]] == ["MIN_LOAD_LOSSY"]
    assert record.irregular == ()  # settle makes a new record


def test_search_section_says_whether_intermediate_trials_ran(topology: Topology) -> None:
    document = _record(topology).to_json()
    assert document["search"]["intermediate_trials"] is False
    validate_record(document)
    older = {**document, "search": dict(document["search"])}
    del older["search"]["intermediate_trials"]  # a record from before 1.13.0 stays valid
    validate_record(older)
    with_them = _record(topology, intermediate_trials=True).to_json()
    assert with_them["search"]["intermediate_trials"] is True
    validate_record(with_them)
    wrong = {**with_them, "search": {**with_them["search"], "intermediate_trials": "yes"}}
    with pytest.raises(RecordError, match="intermediate_trials"):
        validate_record(wrong)
