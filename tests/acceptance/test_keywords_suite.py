"""tests/acceptance/keywords.robot run with robot: the keywords called directly on the simulator.

The Robot suite checks the keywords' return values itself; this module runs
it once and checks what only the output shows: statuses, the failure
message of the ``expected-fail`` test, records, metadata, logged plots, and
that the SSH password never reaches the output.
"""

from __future__ import annotations

import dataclasses
import json
import re
import secrets
import subprocess
from pathlib import Path
from typing import Any

import pytest
from acceptance_helpers import (
    ACCEPTANCE,
    SIM,
    close,
    index_tests,
    log_html_strings,
    logged_messages,
    plain_float,
    read_output,
    run_robot,
)
from robot.result import Result
from robot.result import TestCase as RobotTest

from ndrpdr.families import profile_of
from ndrpdr.results.schema import validate_record
from ndrpdr.topology.loader import load_topology
from ndrpdr.trafficgen.sim.driver import SimTrafficGenerator
from NdrPdrLibrary.robotout import safe_file_name

SUITE = ACCEPTANCE / "keywords.robot"
EXPECTED_FAIL_TAG = "expected-fail"
EXPECTED_FAIL = "Search Whose Min Load Already Loses Frames"
MIN_LOAD_PPS = 20e6
#: An exception's class name at the start of a message or after a colon (``KeywordError: ..``).
_EXCEPTION_NAME = re.compile(r"(^|:\s*)[A-Z][A-Za-z]*(Error|Exception)\b")


@dataclasses.dataclass(frozen=True)
class KeywordsRun:
    """One robot run of keywords.robot."""

    outputdir: Path
    process: subprocess.CompletedProcess[str]
    result: Result
    tests: dict[str, RobotTest]
    password: str


def dut_capacity_pps() -> float:
    """What the sim DUT forwards of ethip4-ip4base at 64 B on 1 core [pps]: the model's NDR."""
    tg = SimTrafficGenerator(load_topology(SIM), 64, profile=profile_of("ethip4-ip4base"))
    return tg.model.true_ndr(1.0)


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> KeywordsRun:
    """``python3 -m robot tests/acceptance/keywords.robot`` with a random dummy SSH password."""
    outputdir = tmp_path_factory.mktemp("keywords-suite")
    password = f"pw-{secrets.token_hex(8)}"
    process = run_robot(
        outputdir,
        "--variable",
        f"DUT_CAPACITY:{dut_capacity_pps()!r}",
        str(SUITE),
        env_extra={"NDRPDR_ACCEPTANCE_PASSWORD": password},
    )
    assert (outputdir / "output.xml").exists(), process.stdout + process.stderr
    result = read_output(outputdir)
    return KeywordsRun(outputdir, process, result, index_tests(result), password)


def record_of(run: KeywordsRun, test_name: str, suffix: str = "") -> dict[str, Any]:
    """The record a search of ``test_name`` wrote (``suffix``: ``-2`` for its second search)."""
    path = run.outputdir / f"{safe_file_name(test_name)}{suffix}.json"
    assert path.is_file(), f"no {path.name} in {sorted(p.name for p in run.outputdir.iterdir())}"
    record = json.loads(path.read_text())
    validate_record(record)
    assert isinstance(record, dict)
    return record


def test_only_the_expected_fail_test_fails(run: KeywordsRun) -> None:
    assert run.process.stderr == ""
    expected = [name for name, t in run.tests.items() if EXPECTED_FAIL_TAG in t.tags]
    assert expected == [EXPECTED_FAIL]
    unexpected = {
        name: f"{t.status}: {t.message}"
        for name, t in run.tests.items()
        if name != EXPECTED_FAIL and t.status != "PASS"
    }
    assert not unexpected
    assert run.tests[EXPECTED_FAIL].status == "FAIL"
    assert run.process.returncode == 1, run.process.stdout  # robot's rc: failed tests
    assert len(run.tests) >= 12


def test_expected_fail_message_says_why_in_plain_words(run: KeywordsRun) -> None:
    message = run.tests[EXPECTED_FAIL].message
    assert message.startswith("NDRPDR search irregular: NDR and PDR: the min load 20 Mpps")
    assert "min load" in message
    assert "give a lower min_rate" in message  # what to change
    assert "20 Mpps" in message  # the min load the user gave
    assert "Traceback" not in message
    assert not _EXCEPTION_NAME.search(message), message
    assert "\n" not in message.strip()


def test_expected_fail_record_keeps_the_trials(run: KeywordsRun) -> None:
    test = run.tests[EXPECTED_FAIL]
    record = record_of(run, EXPECTED_FAIL)
    trials = record["trials"]
    assert len(trials) == record["search"]["trial_count"] > 0
    assert test.metadata["TRIALS"] == str(len(trials))
    assert f"{safe_file_name(EXPECTED_FAIL)}.json" in test.message
    assert str(len(trials)) in test.message
    assert close(record["search"]["min_load_pps"], MIN_LOAD_PPS)
    assert all(t["loss_ratio"] > 0 for t in trials)
    assert any(close(t["load_pps"], MIN_LOAD_PPS, rel=1e-4) for t in trials)
    for goal in record["goals"]:
        assert goal["irregular_reason"] == "min load is an upper bound"
        assert goal["lower_bound"] is None
        assert close(goal["upper_bound"], MIN_LOAD_PPS)
    for key, label in (("ndr", "NDR"), ("pdr", "PDR")):
        assert record[key]["lower_bound"] is None
        assert close(record[key]["upper_bound"], MIN_LOAD_PPS)
        assert f"{label}_LOWER" not in test.metadata
        assert plain_float(test.metadata[f"{label}_UPPER"]) == MIN_LOAD_PPS


def test_expected_fail_record_says_failed(run: KeywordsRun) -> None:
    test = run.tests[EXPECTED_FAIL]
    record = record_of(run, EXPECTED_FAIL)
    assert record["status"] == "failed"
    assert record["error"] is not None
    assert "min load" in record["error"]
    assert [item["tag"] for item in record["irregular"]] == ["MIN_LOAD_LOSSY"]
    assert test.metadata["STATUS"] == "failed"
    assert {"IRREGULAR", "MIN_LOAD_LOSSY"} <= set(test.tags)


def test_expected_fail_logs_its_plot(run: KeywordsRun) -> None:
    html = [m.message for m in logged_messages(run.tests[EXPECTED_FAIL]) if m.html]
    assert any(text.lstrip().startswith("<svg") for text in html)
    assert any("<table" in text for text in html)


def test_records_validate(run: KeywordsRun) -> None:
    binary = record_of(run, "Binary Search Agrees With Find NDR And PDR", "-2")
    mlr = record_of(run, "Binary Search Agrees With Find NDR And PDR")
    assert binary["search"]["algorithm"] == "binary"
    assert mlr["search"]["algorithm"] == "mlr"
    assert len(binary["goals"]) == 1
    assert binary["pdr"] is None or binary["pdr"]["lower_bound"] is None
    assert abs(binary["ndr"]["lower_bound"] / mlr["ndr"]["lower_bound"] - 1) < 0.01
    imix = record_of(run, "Read And Log A Result Record")
    assert imix["status"] == "passed"
    assert imix["profile"]["frame_size"] == "IMIX"


def test_metadata_of_a_test_with_two_searches_is_the_last_ones(run: KeywordsRun) -> None:
    test = run.tests["Binary Search Agrees With Find NDR And PDR"]
    binary = record_of(run, test.name, "-2")
    assert close(plain_float(test.metadata["NDR_LOWER"]), binary["ndr"]["lower_bound"], abs_=0.01)
    assert test.metadata["TRIALS"] == str(binary["search"]["trial_count"])
    assert test.message.startswith("NDR: ")
    assert "PDR:" not in test.message


def test_no_stale_metadata_from_the_first_search(run: KeywordsRun) -> None:
    test = run.tests["Binary Search Agrees With Find NDR And PDR"]
    assert not [key for key in test.metadata if key.startswith("PDR_")]


def test_mrr_metadata_is_the_last_measurement(run: KeywordsRun) -> None:
    test = run.tests["Measure MRR Returns One Rate Per Trial"]
    rates = test.metadata["MRR_RATES"].split(",")
    assert len(rates) == 2
    assert test.message.startswith("MRR: avg ")
    first, last = record_of(run, test.name), record_of(run, test.name, "-2")
    assert first["kind"] == last["kind"] == "mrr"
    assert (first["mrr"]["trial_count"], last["mrr"]["trial_count"]) == (3, 2)
    values = last["mrr"]["receive_rate_pps"]["values"]
    assert values == pytest.approx([float(r) for r in rates], abs=0.0015)


def test_log_result_record_logs_bounds_plot_and_table(run: KeywordsRun) -> None:
    messages = logged_messages(run.tests["Read And Log A Result Record"])
    log_result = [m for m in messages if m.parent.name == "Log Result Record"]
    assert any(m.message.startswith("NDR: lower") for m in log_result)
    assert any(m.html and m.message.lstrip().startswith("<svg") for m in log_result)
    assert any(m.html and "<table" in m.message for m in log_result)


def test_log_result_record_of_an_mrr_record(run: KeywordsRun) -> None:
    test = run.tests["Measure MRR Returns One Rate Per Trial"]
    log_result = [m for m in logged_messages(test) if m.parent.name == "Log Result Record"]
    assert [m.message for m in log_result if not m.html] == [test.message]
    assert any(m.html and "<table" in m.message for m in log_result)


def test_the_password_is_never_written(run: KeywordsRun) -> None:
    assert run.tests["Set SSH Password After Setup Fails"].status == "PASS"
    assert run.password not in (run.outputdir / "output.xml").read_text()
    assert not [t for t in log_html_strings(run.outputdir / "log.html") if run.password in t]
    assert run.password not in run.process.stdout


def _bound_lines(message: str) -> list[str]:
    """The message's lines without the latency lines (``Latency at ...``) after them."""
    return [line for line in message.splitlines() if not line.startswith("Latency at ")]


def test_loss_ratios_leave_every_goal_in_message_and_metadata(run: KeywordsRun) -> None:
    three = "Find Throughput For Loss Ratios Returns Every Goal With Its Label"
    test = run.tests[three]
    assert test.status == "PASS", test.message
    record = record_of(run, three)
    assert [goal["loss_ratio"] for goal in record["goals"]] == [0.0, 0.005, 0.02]
    assert [line.split(":")[0] for line in _bound_lines(test.message)] == [
        "NDR",
        "PDR",
        "loss \u2264 2 %",
    ]
    for key, goal in zip(("NDR", "PDR", "LOSS_2PCT"), record["goals"], strict=True):
        assert float(test.metadata[f"{key}_LOWER"]) == pytest.approx(
            goal["lower_bound"], abs=0.0015
        )
    listed = "Find NDR And PDR Takes Loss Ratios As A List And Another PDR"
    test = run.tests[listed]
    assert test.status == "PASS", test.message
    record = record_of(run, listed)
    assert record["search"]["pdr_loss_ratio"] == 0.01
    assert record["pdr"]["lower_bound"] == record["goals"][0]["lower_bound"]
    assert [line.split(":")[0] for line in _bound_lines(test.message)] == ["PDR", "NDR"]
    # latency at the PDR found: the 1 % goal's lower bound
    assert record["latency"]["pdr_pps"] == record["pdr"]["lower_bound"]
    assert not [key for key in test.metadata if key.startswith("LOSS_")]
