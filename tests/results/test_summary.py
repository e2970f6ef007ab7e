"""The test message and metadata of a search, from real records of searches on the simulator."""

from __future__ import annotations

import copy
import math
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from record_helpers import SIM, sim_search

from ndrpdr.goals import loss_ratio_goals, ndr_pdr_goals
from ndrpdr.profiles import FrameSize, bandwidth_bps
from ndrpdr.report.summary import bounds_line, plain_number, search_message, search_metadata
from ndrpdr.results.schema import validate_record
from ndrpdr.search import Goal
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.model import Topology

#: Quick goals: 1 s trials, 2 s per load, 2 % width.
GOALS = ndr_pdr_goals(duration_sum_s=2.0, relative_width=0.02)
BOUND_KEYS = ("LOWER", "UPPER", "CONDITIONAL")
PLAIN = re.compile(r"-?\d+(?:\.\d{1,3})?")
GOAL_LINE = re.compile(
    r"(?P<label>NDR|PDR): lower (?P<lower>[\d.]+) Mpps (?P<lower_gbps>[\d.]+) Gbps, "
    r"upper (?:(?P<upper>[\d.]+) Mpps (?P<upper_gbps>[\d.]+) Gbps"
    r"|none \(max load (?P<max>[\d.]+) Mpps reached\)), "
    r"conditional (?P<conditional>[\d.]+) Mpps"
)


@pytest.fixture(scope="module")
def topology() -> Topology:
    return load_topology(SIM)


def _record(topology: Topology, frame_size: FrameSize, **kwargs: Any) -> dict[str, Any]:
    outcome = sim_search(
        topology, frame_size=frame_size, goals=kwargs.pop("goals", GOALS), **kwargs
    )
    assert outcome.error is None, outcome.error
    validate_record(outcome.record.to_json())
    return outcome.record.to_json()


@pytest.fixture(scope="module")
def records(topology: Topology) -> dict[str, dict[str, Any]]:
    """Passed records for 64 B, IMIX and 9000 B frames (no upper bound at 9000 B)."""
    return {
        "64": _record(topology, 64),
        "IMIX": _record(topology, "IMIX"),
        "9000": _record(topology, 9000),
    }


@pytest.fixture(scope="module")
def failed(topology: Topology) -> dict[str, Any]:
    outcome = sim_search(topology, goals=GOALS, fail_at=3, message="TG: the sender died")
    assert outcome.record.to_json()["status"] == "failed"
    return outcome.record.to_json()


def _mpps(pps: float) -> str:
    return f"{pps / 1e6:.4f}"


def _gbps(pps: float, frame_size: FrameSize) -> str:
    return f"{bandwidth_bps(pps, frame_size) / 1e9:.3f}"


# -- search_message -------------------------------------------------------------------------


@pytest.mark.parametrize("size", ["64", "IMIX"])
def test_message_has_both_goals_with_bounds(records: dict[str, dict[str, Any]], size: str) -> None:
    record = records[size]
    frame_size = record["profile"]["frame_size"]
    lines = search_message(record).splitlines()
    assert len(lines) == 2
    for line, key in zip(lines, ("ndr", "pdr"), strict=True):
        match = GOAL_LINE.fullmatch(line)
        assert match is not None, line
        assert match["label"] == key.upper()
        bounds = record[key]
        assert bounds["upper_bound"] is not None
        assert match["lower"] == _mpps(bounds["lower_bound"])
        assert match["upper"] == _mpps(bounds["upper_bound"])
        assert match["conditional"] == _mpps(bounds["conditional_throughput"])
        assert match["lower_gbps"] == _gbps(bounds["lower_bound"], frame_size)
        assert match["upper_gbps"] == _gbps(bounds["upper_bound"], frame_size)
        assert match["max"] is None


def test_imix_bandwidth_uses_the_average_frame(records: dict[str, dict[str, Any]]) -> None:
    record = records["IMIX"]
    lower = record["ndr"]["lower_bound"]
    match = GOAL_LINE.fullmatch(search_message(record).splitlines()[0])
    assert match is not None
    # (4246 B / 12 + 20 B) * 8 bits per frame, not 64 B frames
    assert float(match["lower_gbps"]) == pytest.approx(lower * (4246 / 12 + 20) * 8 / 1e9, abs=6e-4)
    assert match["lower_gbps"] != _gbps(lower, 64)


def test_message_without_upper_bound_at_9000(records: dict[str, dict[str, Any]]) -> None:
    record = records["9000"]
    assert record["ndr"]["upper_bound"] is None  # the max load was a lower bound
    maximum = record["search"]["max_load_pps"]
    lines = search_message(record).splitlines()
    assert len(lines) == 2
    for line, key in zip(lines, ("ndr", "pdr"), strict=True):
        match = GOAL_LINE.fullmatch(line)
        assert match is not None, line
        assert match["upper"] is None
        assert f"upper none (max load {_mpps(maximum)} Mpps reached)" in line
        assert match["lower"] == _mpps(record[key]["lower_bound"])
    assert _mpps(maximum) == "0.2772"


def test_message_of_a_failed_record(failed: dict[str, Any]) -> None:
    message = search_message(failed)
    assert message.splitlines() == [
        "search failed: TG: the sender died (2 trials kept in the record)",
        "bounds incomplete: the search stopped early; these are what its 2 trials support",
    ]
    assert "NDR" not in message  # two short trials support no bound


def test_a_stopped_search_does_not_claim_the_max_load_was_reached(topology: Topology) -> None:
    """Stopped after lossless trials (a dead TG): a lower bound and no upper bound, which is
    not the max load being reached."""
    record = sim_search(topology, goals=GOALS, fail_at=4, message="TG: gone").record.to_json()
    assert record["incomplete"] is True
    lines = search_message(record).splitlines()
    with_lower = [line for line in lines if line.startswith(("NDR: lower", "PDR: lower"))]
    assert with_lower, lines
    for line in with_lower:
        assert "max load" not in line
        assert ("upper not found (the search stopped first)" in line) or (" Mpps, upper " in line)
    assert any("upper not found (the search stopped first)" in line for line in with_lower)


def test_message_with_the_ndr_goal_only(topology: Topology) -> None:
    goal = Goal(
        loss_ratio=0.0,
        exceed_ratio=0.0,
        relative_width=0.02,
        initial_trial_duration=1.0,
        final_trial_duration=1.0,
        duration_sum=1.0,
    )
    record = _record(topology, 64, goals=[goal], algorithm="binary")
    lines = search_message(record).splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("NDR: lower ")
    metadata = search_metadata(record)
    assert not [key for key in metadata if key.startswith("PDR_")]
    assert {f"NDR_{suffix}" for suffix in BOUND_KEYS} <= set(metadata)


def test_message_when_nothing_was_found(records: dict[str, dict[str, Any]]) -> None:
    record = copy.deepcopy(records["64"])
    for goal in record["goals"]:
        goal["lower_bound"] = None
    assert search_message(record) == "no bounds found"


def test_three_loss_ratios_each_get_a_line_and_metadata(topology: Topology) -> None:
    goals = loss_ratio_goals((0.0, 0.005, 0.02), duration_sum_s=2.0, relative_width=0.02)
    record = _record(topology, 64, goals=goals)
    lines = search_message(record).splitlines()
    assert [line.split(":")[0] for line in lines] == ["NDR", "PDR", "loss \u2264 2 %"]
    metadata = search_metadata(record)
    for key, entry in zip(("NDR", "PDR", "LOSS_2PCT"), record["goals"], strict=True):
        assert float(metadata[f"{key}_LOWER"]) == pytest.approx(entry["lower_bound"], abs=1e-3)
    for line, entry in zip(lines, record["goals"], strict=True):
        assert f"lower {_mpps(entry['lower_bound'])} Mpps" in line
    # More loss allowed, more throughput: the bounds are in order on a monotonic DUT.
    lowers = [entry["lower_bound"] for entry in record["goals"]]
    assert lowers[0] <= lowers[1] <= lowers[2]
    assert lowers[0] < lowers[2]


def test_a_pdr_of_one_percent_is_still_called_pdr(topology: Topology) -> None:
    goals = ndr_pdr_goals(duration_sum_s=2.0, relative_width=0.02, pdr_loss_ratio=0.01)
    record = _record(topology, 64, goals=goals, pdr_loss_ratio=0.01)
    assert record["search"]["pdr_loss_ratio"] == 0.01
    assert record["pdr"]["lower_bound"] == record["goals"][1]["lower_bound"] is not None
    assert search_message(record).splitlines()[1].startswith("PDR: lower ")
    assert "PDR_LOWER" in search_metadata(record)
    assert not [key for key in search_metadata(record) if key.startswith("LOSS_")]


# -- search_metadata ------------------------------------------------------------------------


@pytest.mark.parametrize("size", ["64", "IMIX"])
def test_metadata_of_a_passed_record(records: dict[str, dict[str, Any]], size: str) -> None:
    record = records[size]
    metadata = search_metadata(record)
    expected_keys = {f"{goal}_{suffix}" for goal in ("NDR", "PDR") for suffix in BOUND_KEYS}
    expected_keys |= {"FRAME_SIZE", "TRIALS", "SEARCH_TIME_S", "STATUS"}
    expected_keys |= {"TG_LIMITED", "INCOMPLETE"}
    assert set(metadata) == expected_keys
    assert metadata["TG_LIMITED"] == metadata["INCOMPLETE"] == "false"
    for goal in ("ndr", "pdr"):
        for field, suffix in zip(
            ("lower_bound", "upper_bound", "conditional_throughput"), BOUND_KEYS, strict=True
        ):
            text = metadata[f"{goal.upper()}_{suffix}"]
            assert PLAIN.fullmatch(text), text
            assert float(text) == pytest.approx(record[goal][field], abs=5e-4)
    assert metadata["FRAME_SIZE"] == size
    assert metadata["TRIALS"] == str(len(record["trials"]))
    assert float(metadata["SEARCH_TIME_S"]) == pytest.approx(
        sum(t["duration_s"] for t in record["trials"]), abs=5e-4
    )
    assert metadata["STATUS"] == "passed"
    assert float(metadata["NDR_LOWER"]) <= float(metadata["NDR_UPPER"])


def test_metadata_leaves_out_the_missing_upper_bound(records: dict[str, dict[str, Any]]) -> None:
    metadata = search_metadata(records["9000"])
    assert "NDR_UPPER" not in metadata
    assert "PDR_UPPER" not in metadata
    assert float(metadata["NDR_LOWER"]) == pytest.approx(
        records["9000"]["search"]["max_load_pps"], abs=5e-4
    )
    assert "NDR_CONDITIONAL" in metadata
    assert metadata["FRAME_SIZE"] == "9000"


def test_metadata_of_a_failed_record(failed: dict[str, Any]) -> None:
    metadata = search_metadata(failed)
    assert metadata == {
        "FRAME_SIZE": "64",
        "TRIALS": "2",
        "SEARCH_TIME_S": plain_number(failed["search"]["search_time_s"]),
        "STATUS": "failed",
        "TG_LIMITED": "false",
        "INCOMPLETE": "true",
    }
    assert float(metadata["SEARCH_TIME_S"]) > 0


def test_metadata_leaves_out_non_finite_bounds(records: dict[str, dict[str, Any]]) -> None:
    record = copy.deepcopy(records["64"])
    pdr = record["goals"][1]
    assert pdr["loss_ratio"] == 0.005
    pdr["upper_bound"] = math.inf
    pdr["conditional_throughput"] = math.nan
    metadata = search_metadata(record)
    assert "PDR_UPPER" not in metadata
    assert "PDR_CONDITIONAL" not in metadata
    assert "PDR_LOWER" in metadata


def test_all_metadata_numbers_parse(records: dict[str, dict[str, Any]]) -> None:
    for record in records.values():
        for key, text in search_metadata(record).items():
            if (
                key in ("FRAME_SIZE", "STATUS", "TG_LIMITED", "INCOMPLETE")
                and not text[:1].isdigit()
            ):
                continue
            assert PLAIN.fullmatch(text), (key, text)
            assert math.isfinite(float(text))
            assert "e" not in text.lower()


# -- plain_number ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (4413663.484, "4413663.484"),
        (4458104.01, "4458104.01"),
        (34.0, "34"),
        (1.5, "1.5"),
        (0.0, "0"),
        (0.0004, "0"),
        (0.0006, "0.001"),
        (2.0004, "2"),
        (1e20, "100000000000000000000"),
        (29_761_904.76190476, "29761904.762"),
        (1e-9, "0"),
        (100.0, "100"),
        (10, "10"),
    ],
)
def test_plain_number(value: float, text: str) -> None:
    assert plain_number(value) == text
    float(text)  # parseable


@settings(derandomize=True, max_examples=300, deadline=None)
@given(st.floats(min_value=0, max_value=1e15, allow_nan=False, allow_infinity=False))
def test_plain_number_is_a_plain_decimal(value: float) -> None:
    text = plain_number(value)
    assert PLAIN.fullmatch(text), text
    assert abs(float(text) - value) <= 5e-4 + value * 1e-15
    assert not text.endswith(("0", ".")) or text == "0" or "." not in text


def test_bounds_line_keeps_bounds_and_mrr_numbers_only() -> None:
    metadata = {
        "NDR_LOWER": "100",
        "NDR_CONDITIONAL": "101",
        "PDR_LOWER": "110",
        "PDR_UPPER": "111",
        "LOSS_2PCT_LOWER": "120",
        "TRIALS": "30",
        "LAT_90PDR_FWD_AVG_US": "12",
        "TG_LIMITED": "false",
    }
    assert bounds_line(metadata) == (
        "NDR_LOWER=100 NDR_CONDITIONAL=101 PDR_LOWER=110 PDR_UPPER=111 LOSS_2PCT_LOWER=120"
    )
    mrr = {"MRR_AVG": "5", "MRR_STDEV": "0", "MRR_MIN": "5", "MRR_MAX": "5", "MRR_RATES": "5,5"}
    assert bounds_line(mrr) == "MRR_AVG=5 MRR_STDEV=0 MRR_MIN=5 MRR_MAX=5"
    assert bounds_line({}) == ""
