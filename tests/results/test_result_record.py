"""The result record: built from a search, valid against its schema, and the schema's teeth."""

from __future__ import annotations

import copy
import datetime
import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest

import ndrpdr
from ndrpdr.families import profile_of as get_profile
from ndrpdr.goals import ndr_pdr_goals
from ndrpdr.profiles import FrameSize, bandwidth_bps
from ndrpdr.results.record import RECORD_VERSION, trial_entry, write_record
from ndrpdr.results.schema import RecordError, record_schema, validate_record
from ndrpdr.results.searchrecord import SearchSettings, build_record
from ndrpdr.search import SearchResult, search
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.model import Topology
from ndrpdr.trafficgen.sim.driver import SimTrafficGenerator

SIM = Path(__file__).resolve().parents[2] / "topologies" / "sim.yaml"
GOALS = ndr_pdr_goals(duration_sum_s=2.0, relative_width=0.02)
STARTED = datetime.datetime(2025, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc)
FINISHED = STARTED + datetime.timedelta(seconds=42)


@pytest.fixture(scope="module")
def topology() -> Topology:
    return load_topology(SIM)


def _searched(
    topology: Topology, frame_size: FrameSize = 64, profile: str = "ethip4-ip4base"
) -> tuple[SearchResult, dict[str, Any], SearchSettings]:
    tg = SimTrafficGenerator(topology, frame_size)
    settings = SearchSettings("mlr", GOALS, 30_000.0, tg.max_load_pps)
    result = search(tg, GOALS, settings.min_load_pps, settings.max_load_pps, "mlr")
    record = build_record(
        topology=topology,
        profile=get_profile(profile),
        frame_size=frame_size,
        settings=settings,
        result=result,
        trials=result.trials,
        started=STARTED,
        finished=FINISHED,
        telemetry={"DUT1": {"state": "simulated"}},
    ).to_json()
    return result, record, settings


@pytest.fixture(scope="module")
def passed(topology: Topology) -> tuple[SearchResult, dict[str, Any], SearchSettings]:
    return _searched(topology)


@pytest.fixture
def good(passed: tuple[SearchResult, dict[str, Any], SearchSettings]) -> dict[str, Any]:
    """A deep copy of the passed search's record (tests may spoil it)."""
    return copy.deepcopy(passed[1])


def test_schema_is_a_valid_draft_2020_12_schema() -> None:
    schema = record_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_passed_record_validates(
    passed: tuple[SearchResult, dict[str, Any], SearchSettings],
) -> None:
    result, record, settings = passed
    validate_record(record)
    assert record["status"] == "passed"
    assert record["error"] is None
    assert record["kind"] == "ndrpdr"
    assert record["tool"] == {"name": "ndrpdr", "version": ndrpdr.__version__}
    assert record["started"] == "2025-01-02T03:04:05+00:00"
    assert record["finished"] == "2025-01-02T03:04:47+00:00"
    assert record["testbed"] == {
        "topology": str(SIM),
        "tg": {"node": "TG", "driver": "sim"},
        "duts": [{"node": "DUT1", "driver": "sim"}],
    }
    assert record["search"]["trial_count"] == len(result.trials)
    assert record["search"]["search_time_s"] == pytest.approx(result.search_time)
    assert record["search"]["wall_time_s"] == result.wall_time
    assert record["search"]["max_load_pps"] == settings.max_load_pps
    assert record["telemetry"] == {"DUT1": {"state": "simulated"}}


def test_version_field(good: dict[str, Any]) -> None:
    assert good["version"] == RECORD_VERSION
    assert re.fullmatch(r"1\.[0-9]+\.[0-9]+", RECORD_VERSION)
    good["version"] = "2.0.0"
    with pytest.raises(RecordError, match=r"^result record: version: "):
        validate_record(good)


def test_bounds_and_goals(passed: tuple[SearchResult, dict[str, Any], SearchSettings]) -> None:
    result, record, _ = passed
    ndr_result, pdr_result = result.goal_results
    assert record["ndr"] == {
        "lower_bound": ndr_result.lower_bound,
        "upper_bound": ndr_result.upper_bound,
        "conditional_throughput": ndr_result.conditional_throughput,
        "lower_bound_bps": bandwidth_bps(ndr_result.lower_bound or 0.0, 64),
    }
    assert record["pdr"]["lower_bound"] == pdr_result.lower_bound
    assert len(record["goals"]) == 2
    for entry, goal in zip(record["goals"], GOALS, strict=True):
        assert entry["loss_ratio"] == goal.loss_ratio
        assert entry["duration_sum_s"] == goal.duration_sum
        assert entry["regular"] is True
        assert entry["irregular_reason"] is None
    assert record["ndr"]["lower_bound"] <= record["pdr"]["lower_bound"]


def test_trials(passed: tuple[SearchResult, dict[str, Any], SearchSettings]) -> None:
    result, record, _ = passed
    assert [t["index"] for t in record["trials"]] == list(range(len(result.trials)))
    first, entry = result.trials[0], record["trials"][0]
    assert entry == trial_entry(0, first)
    assert entry["load_pps"] == first.load
    assert entry["forwarded_count"] + entry["loss_count"] == entry["offered_count"]
    assert entry["reason"]["algorithm"] == "mlr"


def test_imix_l2_record_validates(topology: Topology) -> None:
    _, record, _ = _searched(topology, "IMIX", "eth-l2xcbase")
    validate_record(record)
    assert record["profile"]["frame_size"] == "IMIX"
    assert record["profile"]["average_frame_size_b"] == pytest.approx(4246 / 12)
    assert record["profile"]["layer"] == "L2"


def test_failed_record_validates(topology: Topology) -> None:
    tg = SimTrafficGenerator(topology)
    trials = [tg.measure(1.0, 1e6), tg.measure(1.0, 2e6)]
    record = build_record(
        topology=topology,
        profile=get_profile("ethip4-ip4base"),
        frame_size=64,
        settings=SearchSettings("bswlv", GOALS, 1e4, tg.max_load_pps),
        result=None,
        trials=trials,
        started=STARTED,
        finished=FINISHED,
        error="TG: gone",
        directions=1,
    ).to_json()
    validate_record(record)
    assert record["status"] == "failed"
    assert record["error"] == "TG: gone"
    assert record["ndr"] == {
        "lower_bound": None,
        "upper_bound": None,
        "conditional_throughput": None,
        "lower_bound_bps": None,
    }
    assert len(record["trials"]) == 2
    assert record["search"]["search_time_s"] == 2.0
    assert record["search"]["wall_time_s"] is None
    assert record["profile"]["directions"] == 1
    assert record["telemetry"] == {}


def test_written_record_round_trips(good: dict[str, Any], tmp_path: Path) -> None:
    path = tmp_path / "deep" / "dir" / "record.json"
    write_record(good, path)
    loaded = json.loads(path.read_text())
    assert loaded == good
    validate_record(loaded)
    assert path.read_text().endswith("}\n")


@pytest.mark.parametrize("field", record_schema()["$defs"]["ndrpdr_record"]["required"])
def test_missing_required_field(field: str, good: dict[str, Any]) -> None:
    del good[field]
    with pytest.raises(RecordError) as raised:
        validate_record(good)
    assert str(raised.value) == f"result record: (record): '{field}' is a required property"


@pytest.mark.parametrize(
    ("path", "where"),
    [
        (("trials", 0, "load_pps"), "trials.0"),
        (("ndr", "lower_bound"), "ndr"),
        (("goals", 1, "loss_ratio"), "goals.1"),
        (("profile", "frame_size"), "profile"),
        (("search", "algorithm"), "search"),
    ],
)
def test_missing_nested_field(path: tuple[Any, ...], where: str, good: dict[str, Any]) -> None:
    parent: Any = good
    for key in path[:-1]:
        parent = parent[key]
    del parent[path[-1]]
    with pytest.raises(RecordError) as raised:
        validate_record(good)
    assert str(raised.value) == f"result record: {where}: '{path[-1]}' is a required property"


@pytest.mark.parametrize(
    ("path", "value", "where"),
    [
        (("trials", 1, "load_pps"), -1.0, "trials.1.load_pps"),
        (("ndr", "lower_bound"), -5.0, "ndr.lower_bound"),
        (("search", "max_load_pps"), 0, "search.max_load_pps"),
        (("goals", 0, "relative_width"), 1.5, "goals.0.relative_width"),
        (("trials", 0, "loss_ratio"), 1.5, "trials.0.loss_ratio"),
        (("profile", "frame_size"), 63, "profile.frame_size"),
        (("profile", "directions"), 3, "profile.directions"),
        (("status",), "ok", "status"),
        (("search", "algorithm"), "linear", "search.algorithm"),
        (("telemetry", "DUT1", "state"), 7, "telemetry.DUT1.state"),
    ],
)
def test_bad_value_names_the_field(
    path: tuple[Any, ...], value: Any, where: str, good: dict[str, Any]
) -> None:
    parent: Any = good
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = value
    with pytest.raises(RecordError) as raised:
        validate_record(good)
    assert str(raised.value).startswith(f"result record: {where}: ")


def test_unknown_top_level_field(good: dict[str, Any]) -> None:
    good["extra"] = 1
    with pytest.raises(RecordError, match="'extra' was unexpected"):
        validate_record(good)


def test_not_a_mapping() -> None:
    with pytest.raises(RecordError, match=r"^result record: \(record\): "):
        validate_record([])


def test_profile_section_names_the_family_and_its_traffic(
    passed: tuple[SearchResult, dict[str, Any], SearchSettings],
) -> None:
    profile = passed[1]["profile"]
    assert (profile["name"], profile["flows_per_direction"]) == ("ethip4-ip4base", 253)
    assert profile["min_frame_size_b"] == 64
    first, second = profile["traffic"]
    assert first == {
        "direction": 0,
        "layout": "Ether / IPv4(proto 61)",
        "src": "198.18.0.2",
        "dst": "198.18.1.2",
        "flows": 253,
        "vary": [{"field": "ip.src", "count": 253, "op": "inc", "step": 1, "every": 1}],
        "pcap_frames": 253,
    }
    assert (second["direction"], second["src"], second["dst"]) == (1, "198.18.1.2", "198.18.0.2")


def test_profile_section_says_how_many_frames_a_pcap_sends(topology: Topology) -> None:
    _, record, _ = _searched(topology, 9000, "eth-l2bdscale1mmaclrn")
    validate_record(record)
    (first, _) = record["profile"]["traffic"]
    assert first["flows"] == 500_000
    assert first["pcap_frames"] == 64 * 2**20 // 9000  # the pcap's byte cap at 9000 B
    assert [v["field"] for v in first["vary"]] == ["eth.src", "eth.dst", "ip.src", "ip.dst"]


def test_profile_section_of_one_direction_has_one_traffic_entry(topology: Topology) -> None:
    tg = SimTrafficGenerator(topology)
    record = build_record(
        topology=topology,
        profile=get_profile("dot1q-l2bdbasemaclrn"),
        frame_size=64,
        settings=SearchSettings("bswlv", GOALS, 1e4, tg.max_load_pps),
        result=None,
        trials=[tg.measure(1.0, 1e6)],
        started=STARTED,
        finished=FINISHED,
        error="TG: gone",
        directions=1,
    ).to_json()
    validate_record(record)
    ((traffic,),) = [record["profile"]["traffic"]]
    assert traffic["layout"] == "Ether / Dot1Q(100) / IPv4(proto 61)"
    assert {v["op"] for v in traffic["vary"]} == {"random"}
    bad = copy.deepcopy(record)
    bad["profile"]["traffic"][0]["vary"][0]["op"] = "dec"
    with pytest.raises(RecordError):
        validate_record(bad)
