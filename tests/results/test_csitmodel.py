"""Records of real sim searches and MRR trials as CSIT test_case documents: the mapping itself.

These tests need no CSIT schema (test_csit_schema.py validates against
it): they check each field against the record it came from.
"""

from __future__ import annotations

import copy
import math
import re
import statistics
from pathlib import Path, PurePosixPath
from typing import Any

import pytest
from record_helpers import SIM, sim_mrr_record, sim_record, sim_search

from ndrpdr.csitexport.csitmodel import RobotTest, csit_caveats, csit_test_case, names_of_test
from ndrpdr.csitexport.csitnames import csit_names, default_suite, info_path
from ndrpdr.csitexport.csitresult import CsitModelError, latency_sections
from ndrpdr.goals import ndr_pdr_goals
from ndrpdr.profiles import bandwidth_bps
from ndrpdr.search import Goal
from ndrpdr.topology.loader import load_topology

NDRPDR = "64B-1c-ethip4-ip4base-ndrpdr"
MRR = "64B-1c-ethip4-ip4base-mrr"
RFC3339_Z = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$")


@pytest.fixture(scope="module")
def passed() -> dict[str, Any]:
    """A real sim search with latency measured after it (1 s per point)."""
    return sim_record(load_topology(SIM), latency_duration_s=1.0)


@pytest.fixture(scope="module")
def incomplete() -> dict[str, Any]:
    """A real sim search whose TG fails on its 5th trial."""
    return sim_record(load_topology(SIM), fail_at=5, message="TG: link down")


def _noisy_sim(directory: Path) -> Path:
    """sim.yaml with the DUT model noisyknee: the receive rate differs from trial to trial."""
    text = SIM.read_text()
    assert "model: sharp" in text, "sim.yaml changed: update _noisy_sim"
    path = directory / "noisy.yaml"
    path.write_text(text.replace("model: sharp", "model: noisyknee"))
    return path


def _mrr(topology_path: Path, count: int, error: str | None = None) -> dict[str, Any]:
    return sim_mrr_record(load_topology(topology_path), count, error=error)


@pytest.fixture(scope="module")
def mrr(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Ten real 1 s MRR trials of a noisy sim DUT at the TG's max load."""
    return _mrr(_noisy_sim(tmp_path_factory.mktemp("topology")), 10)


def test_ndr_and_pdr_lower_are_the_conditional_throughput_not_the_lower_bound(
    passed: dict[str, Any],
) -> None:
    document = csit_test_case(passed, RobotTest(NDRPDR))
    result = document["result"]
    assert result["type"] == "ndrpdr" and document["test_type"] == "ndrpdr"
    for section in ("ndr", "pdr"):
        ours = passed[section]
        lower = result[section]["lower"]
        assert lower["rate"] == {"value": ours["conditional_throughput"], "unit": "pps"}
        assert lower["bandwidth"] == {
            "value": bandwidth_bps(ours["conditional_throughput"], 64),
            "unit": "bps",
        }
        assert "upper" not in result[section]  # CSIT leaves it out: ours stays in our record
    # the sim DUT loses nothing below its capacity, so only PDR's differ here
    pdr = passed["pdr"]
    assert pdr["conditional_throughput"] != pdr["lower_bound"]
    assert result["pdr"]["lower"]["rate"]["value"] != pdr["lower_bound"]


def test_latency_points_become_forward_and_reverse_in_whole_microseconds(
    passed: dict[str, Any],
) -> None:
    assert passed["latency"]["status"] == "measured"
    sections = csit_test_case(passed, RobotTest(NDRPDR))["result"]
    for index, name in enumerate(("latency_forward", "latency_reverse")):
        assert set(sections[name]) == {"pdr_0", "pdr_10", "pdr_50", "pdr_90"}
        for point in passed["latency"]["points"]:
            ours = point["directions"][index]
            theirs = sections[name][f"pdr_{round(point['percent_of_pdr'])}"]
            assert theirs["min"] == math.floor(ours["min_us"]) <= ours["min_us"]
            assert theirs["avg"] == round(ours["avg_us"])
            assert theirs["max"] == math.ceil(ours["max_us"]) >= ours["max_us"]
            assert theirs["max"] >= 1 and theirs["unit"] == "us" and theirs["hdrh"] == ""


def test_a_direction_without_frames_measured_is_left_out(passed: dict[str, Any]) -> None:
    record = copy.deepcopy(passed)
    reverse = record["latency"]["points"][2]["directions"][1]
    reverse.update(frames_measured=0, min_us=None, avg_us=None, max_us=None)
    sections = latency_sections(record)
    assert list(sections) == ["latency_forward"]
    document = csit_test_case(record, RobotTest(NDRPDR))
    assert "latency_reverse" not in document["result"]
    assert any("latency_reverse" in note for note in csit_caveats(record, document))
    record["latency"]["points"] = record["latency"]["points"][:3]  # no 90 % point
    assert latency_sections(record) == {}


def test_latency_not_asked_for_leaves_no_latency_section() -> None:
    record = sim_record(load_topology(SIM))
    assert record["latency"]["status"] == "not measured"
    result = csit_test_case(record, RobotTest(NDRPDR))["result"]
    assert result["type"] == "ndrpdr"
    assert "latency_forward" not in result and "latency_reverse" not in result


def test_an_incomplete_search_has_an_unknown_result_and_fails(incomplete: dict[str, Any]) -> None:
    assert incomplete["incomplete"] and incomplete["status"] == "failed"
    document = csit_test_case(incomplete, RobotTest(NDRPDR))
    assert document["result"] == {"type": "unknown"}
    assert document["passed"] is False
    assert "TG: link down" in document["message"]
    assert csit_caveats(incomplete, document) == ["result type unknown: the search stopped early"]


def test_robots_verdict_and_message_win(passed: dict[str, Any]) -> None:
    """A test can fail after its record passed (a teardown): Robot's word is the test's."""
    failed = csit_test_case(passed, RobotTest(NDRPDR, status="FAIL", message="Teardown: DUT gone"))
    assert failed["passed"] is False and failed["message"] == "Teardown: DUT gone"
    assert failed["result"]["type"] == "ndrpdr"  # the bounds were found; the verdict says the rest
    skipped = csit_test_case(passed, RobotTest(NDRPDR, status="SKIP"))
    assert skipped["passed"] is False and skipped["message"] == "Robot status SKIP"
    ok = csit_test_case(passed, RobotTest(NDRPDR, status="PASS", message="NDR: ..."))
    assert ok["passed"] is True and ok["message"] == ""  # the model wants "" when passed


def test_mrr_rates_with_population_stdev_and_bandwidth(mrr: dict[str, Any]) -> None:
    document = csit_test_case(mrr, RobotTest(MRR))
    assert document["test_type"] == "mrr"
    result = document["result"]
    values = mrr["mrr"]["receive_rate_pps"]["values"]
    assert len(set(values)) > 1, "the noisy sim DUT should give different rates"
    rate = result["receive_rate"]["rate"]
    assert rate["values"] == values and rate["unit"] == "pps"
    assert rate["avg"] == pytest.approx(statistics.fmean(values))
    assert rate["stdev"] == pytest.approx(statistics.pstdev(values))
    assert rate["stdev"] < mrr["mrr"]["receive_rate_pps"]["stdev"]  # the record's is n - 1
    bandwidth = result["receive_rate"]["bandwidth"]
    assert bandwidth["unit"] == "bps"
    assert bandwidth["values"] == [bandwidth_bps(v, 64) for v in values]
    assert bandwidth["avg"] == pytest.approx(bandwidth_bps(rate["avg"], 64))


def test_an_mrr_without_trials_is_unknown_and_failed() -> None:
    record = _mrr(SIM, 0, error="TrafficGeneratorError: TG: gone")
    document = csit_test_case(record, RobotTest(MRR))
    assert document["result"] == {"type": "unknown"}
    assert document["passed"] is False and document["message"].endswith("TG: gone")
    assert csit_caveats(record, document) == ["result type unknown: no trial measured"]


def test_times_are_utc_rfc3339_and_duration_their_difference(mrr: dict[str, Any]) -> None:
    record = copy.deepcopy(mrr)
    record["started"] = "2026-11-25T22:59:58+01:00"
    record["finished"] = "2026-11-25T23:00:08+01:00"
    document = csit_test_case(record, RobotTest(MRR))
    assert document["start_time"] == "2026-11-25T21:59:58.000000Z"
    assert document["end_time"] == "2026-11-25T22:00:08.000000Z"
    assert RFC3339_Z.match(document["start_time"]) and document["duration"] == 10.0
    record["finished"] = "2026-11-25T22:00:00+01:00"
    with pytest.raises(CsitModelError, match=rf"^{MRR}: finished .* is before started"):
        csit_test_case(record, RobotTest(MRR))
    record["finished"] = "yesterday"
    with pytest.raises(CsitModelError, match=rf"^{MRR}: finished: not an ISO 8601 time"):
        csit_test_case(record, RobotTest(MRR))


def test_nodes_drivers_versions_and_hosts(passed: dict[str, Any]) -> None:
    document = csit_test_case(passed, RobotTest(NDRPDR))
    tool = passed["tool"]["version"]
    assert (document["dut_type"], document["tg_type"]) == ("sim", "sim")
    assert document["dut_version"] == document["tg_version"] == f"ndrpdr {tool}"
    assert document["hosts"] == ["sim/TG", "sim/DUT1"]
    record = copy.deepcopy(passed)
    record["testbed"]["duts"] = [
        {"node": "DUT1", "driver": "vpp"},
        {"node": "DUT2", "driver": "vpp"},
    ]
    record["testbed"]["tg"] = {"node": "TG", "driver": "trex"}
    record["run"] = {"versions": {"DUT1": "26.06-release", "TG": "v3.08"}}
    document = csit_test_case(record, RobotTest(NDRPDR))
    assert (document["dut_type"], document["tg_type"]) == ("vpp", "trex")
    assert document["dut_version"] == "26.06-release+unknown"  # DUT2's was not recorded
    assert document["tg_version"] == "v3.08"
    assert document["hosts"] == ["sim/TG", "sim/DUT1", "sim/DUT2"]


def test_tags_from_robot_else_the_run_else_the_record(passed: dict[str, Any]) -> None:
    assert csit_test_case(passed, RobotTest(NDRPDR))["tags"] == ["NDRPDR", "64B"]
    robot = RobotTest(NDRPDR, tags=("NDRPDR", "64B", "1C", "2T1C"))
    document = csit_test_case(passed, robot)
    assert document["tags"] == ["NDRPDR", "64B", "1C", "2T1C"]
    assert document["test_name_long"] == "sim-64b-2t1c-ethip4-ip4base"
    record = {**passed, "run": {"tags": ["MRR", "IMIX"], "suite": "Nightly.Ip4"}}
    document = csit_test_case(record, RobotTest(NDRPDR))
    assert document["tags"] == ["MRR", "IMIX"]
    assert document["test_id"] == f"nightly.ip4.{NDRPDR.lower()}"


def test_names_ids_and_paths_as_csit_forms_them(passed: dict[str, Any]) -> None:
    test = RobotTest(NDRPDR, suite="Throughput.Ethip4-Ip4Base-Ndrpdr")
    document = csit_test_case(passed, test)
    assert document["test_id"] == "throughput.ethip4-ip4base-ndrpdr.64b-1c-ethip4-ip4base-ndrpdr"
    assert document["test_name_short"] == "ethip4-ip4base"
    assert document["test_name_long"] == "sim-64b-1c-ethip4-ip4base"
    assert info_path(names_of_test(passed, test)) == PurePosixPath(
        "throughput/ethip4-ip4base-ndrpdr/64b-1c-ethip4-ip4base-ndrpdr.info.json"
    )
    assert default_suite(NDRPDR) == "ethip4-ip4base-ndrpdr"
    assert csit_test_case(passed, RobotTest(NDRPDR))["test_id"].startswith("ethip4-ip4base-ndrpdr.")
    other = csit_names(
        suite="My Suite",
        test_name="Fast Path",
        test_type="ndrpdr",
        profile="ethip4-ip4base",
        frame_size="IMIX",
        testbed="",
        tags=(),
    )
    assert other.test_id == "my_suite.fast_path"
    assert (other.test_name_short, other.test_name_long) == (
        "ethip4-ip4base",
        "imix-ethip4-ip4base",
    )
    with pytest.raises(CsitModelError, match=r"^Fast Path: no suite: .*--suite NAME"):
        csit_test_case(passed, RobotTest("Fast Path"))
    fallback = RobotTest("Fast Path", fallback_suite="Nightly")
    assert csit_test_case(passed, fallback)["test_id"] == "nightly.fast_path"
    named = {**passed, "run": {"suite": "From Record"}}
    assert csit_test_case(named, fallback)["test_id"] == "from_record.fast_path"


def test_goals_other_than_csits_are_noted() -> None:
    goals = [
        Goal(loss_ratio=0.0, exceed_ratio=0.0),
        *[g for g in ndr_pdr_goals() if g.loss_ratio > 0],
    ]
    record = sim_record(load_topology(SIM), goals=goals)
    document = csit_test_case(record, RobotTest(NDRPDR))
    assert document["result"]["type"] == "ndrpdr"
    assert csit_caveats(record, document) == [
        "NDR goal has loss ratio 0 and exceed ratio 0.0, CSIT's 0 and 0.5"
    ]


def test_a_kind_the_model_has_no_type_for_is_refused(passed: dict[str, Any]) -> None:
    with pytest.raises(CsitModelError, match=rf"^{NDRPDR}: kind: 'trial' has no test type"):
        csit_test_case({**passed, "kind": "trial"}, RobotTest(NDRPDR))


def test_a_binary_search_exports_its_lower_bounds_and_says_so() -> None:
    """RFC 2544's binary search has no conditional throughput: its lower bound is its result."""
    record = sim_record(load_topology(SIM), algorithm="binary")
    assert record["ndr"]["conditional_throughput"] is None
    document = csit_test_case(record, RobotTest(NDRPDR))
    result = document["result"]
    assert result["type"] == "ndrpdr" and document["passed"] is True
    for section in ("ndr", "pdr"):
        assert result[section]["lower"]["rate"]["value"] == record[section]["lower_bound"]
    assert csit_caveats(record, document) == [
        f"{s}.lower is the binary search's lower bound: it gives no conditional throughput"
        for s in ("ndr", "pdr")
    ]


def test_a_lossy_min_load_has_no_lower_bound_and_an_unknown_result() -> None:
    record = sim_search(load_topology(SIM), min_load_pps=5e6).record.to_json()
    assert record["status"] == "failed" and not record["incomplete"]
    document = csit_test_case(record, RobotTest(NDRPDR))
    assert document["result"] == {"type": "unknown"} and document["passed"] is False
    assert "min load 5 Mpps already loses" in document["message"]
    assert csit_caveats(record, document) == ["result type unknown: NDR or PDR has no lower bound"]
