"""Bad search variables and irregular results in real Robot runs of suites/ on the simulator.

A bad variable of resources/performance.resource fails the suite setup in
``Check Search Settings``, naming the variable (``${MIN_RATE}``), its value
and the accepted range, before ``Set Up Testbed`` runs (it is NOT RUN in
output.xml) and without a record. A rate relative to the TG is checked when
the search starts, before its first trial, still naming the variable. A
lossy min load fails the test, or passes it with ``IRREGULAR:warn``, tagged
``IRREGULAR`` and ``MIN_LOAD_LOSSY`` either way.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from acceptance_helpers import SUITES, index_tests, read_output, run_robot
from robot import result as robot_result

SUITE = SUITES / "ip4" / "ethip4-ip4base-ndrpdr.robot"
TEST = "64B-1c-ethip4-ip4base-ndrpdr"


def _setup_steps(suite: robot_result.TestSuite) -> dict[str, str]:
    """The suite setup's keywords (name -> status), e.g. Set Up Testbed -> NOT RUN."""
    while not suite.tests and suite.suites:
        suite = suite.suites[0]
    steps: dict[str, str] = {}

    def walk(item: Any) -> None:
        for child in getattr(item, "body", ()):
            if isinstance(child, robot_result.Keyword):
                steps[child.name] = child.status
            walk(child)  # also into IF / ELSE branches, where the testbed is set up

    walk(suite.setup)
    return steps


@pytest.mark.parametrize(
    ("variable", "message"),
    [
        ("MIN_RATE:0", "${MIN_RATE}=0: must be more than 0; accepted: a rate > 0"),
        ("MAX_RATE:0", "${MAX_RATE}=0: must be more than 0; accepted: a rate > 0"),
        (
            "FINAL_TRIAL_DURATION:1e9",
            "${FINAL_TRIAL_DURATION}=1e9: 1e+09 s is above the limit; accepted: more than 0 s, "
            "at most 600 s",
        ),
        ("DURATION_SUM:1e12", "${DURATION_SUM}=1e12: 1e+12 s is out of range; accepted: at least"),
        (
            "INITIAL_TRIAL_DURATION:2s",
            "${INITIAL_TRIAL_DURATION}=2s: 2 s is above the final trial duration 1 s",
        ),
        ("IRREGULAR:maybe", "${IRREGULAR}=maybe: not a choice; accepted: fail, warn"),
        # given to Check Search Settings as Find NDR And PDR's "algorithm" and "latency"
        (
            "SEARCH_ALGORITHM:fastest",
            "${SEARCH_ALGORITHM}=fastest: not a choice; accepted: mlr, binary, bswlv",
        ),
        ("LATENCY:maybe", "${LATENCY}=maybe: not a choice; accepted: true, false"),
        (
            "INTERMEDIATE_TRIALS:maybe",
            "${INTERMEDIATE_TRIALS}=maybe: not a choice; accepted: true, false",
        ),
    ],
)
def test_bad_variable_fails_before_the_testbed(tmp_path: Path, variable: str, message: str) -> None:
    process = run_robot(tmp_path, "--variable", variable, "--include", "64B AND 1C", str(SUITE))
    assert process.returncode == 1, process.stdout + process.stderr
    result = read_output(tmp_path)
    test = index_tests(result)[TEST]
    assert test.status == "FAIL"
    assert test.message.startswith(f"Parent suite setup failed:\n{message}"), test.message
    steps = _setup_steps(result.suite)
    assert steps["Check Search Settings"] == "FAIL"
    assert steps["Set Up Testbed"] == "NOT RUN"
    assert not list(tmp_path.glob("*.json"))  # no record: no search started


def test_rate_relative_to_the_tg_names_the_variables(tmp_path: Path) -> None:
    """10 % of the sim TG's 29.76 Mpps is below the 10 Mpps min: known only with the TG."""
    process = run_robot(
        tmp_path,
        "--variable", "MIN_RATE:10Mpps",
        "--variable", "MAX_RATE:10%",
        "--include", "64B AND 1C",
        str(SUITE),
    )  # fmt: skip
    assert process.returncode == 1, process.stdout + process.stderr
    test = index_tests(read_output(tmp_path))[TEST]
    assert test.status == "FAIL"
    assert test.message == (
        "${MIN_RATE}=10Mpps: 10 Mpps is not below ${MAX_RATE} 2.976 Mpps; "
        "accepted: a rate below 2.976 Mpps"
    )
    assert not list(tmp_path.glob("*.json"))  # refused before the first trial


@pytest.mark.parametrize("irregular", ["fail", "warn"])
def test_lossy_min_load_is_irregular(tmp_path: Path, irregular: str) -> None:
    process = run_robot(
        tmp_path,
        "--variable", "MIN_RATE:20Mpps",
        "--variable", "DURATION_SUM:2s",
        "--variable", f"IRREGULAR:{irregular}",
        "--include", "64B AND 1C",
        str(SUITE),
    )  # fmt: skip
    output = process.stdout + process.stderr
    test = index_tests(read_output(tmp_path))[TEST]
    assert {"IRREGULAR", "MIN_LOAD_LOSSY"} <= set(test.tags)
    record = json.loads((tmp_path / f"{TEST}.json").read_text())
    assert [item["tag"] for item in record["irregular"]] == ["MIN_LOAD_LOSSY"]
    if irregular == "fail":
        assert process.returncode == 1, output
        assert test.status == "FAIL"
        assert test.message.startswith("NDRPDR search irregular: NDR and PDR: the min load 20 Mpps")
        assert "give a lower min_rate (${MIN_RATE})" in test.message
        assert record["status"] == "failed"
    else:
        assert process.returncode == 0, output
        assert test.status == "PASS"
        assert "[ WARN ] NDRPDR search irregular (irregular=warn): NDR and PDR: the min" in output
        assert record["status"] == "passed"


@pytest.mark.parametrize("intermediate", ["True", "False"])
def test_intermediate_trials_variable(tmp_path: Path, intermediate: str) -> None:
    process = run_robot(
        tmp_path,
        "--variable", f"INTERMEDIATE_TRIALS:{intermediate}",
        "--variable", "FINAL_TRIAL_DURATION:10s",
        "--variable", "DURATION_SUM:10s",
        "--variable", "EXCEED_RATIO:0",
        "--variable", "LATENCY:False",
        "--include", "64B AND 1C",
        str(SUITE),
    )  # fmt: skip
    assert process.returncode == 0, process.stdout + process.stderr
    record = json.loads((tmp_path / f"{TEST}.json").read_text())
    on = intermediate == "True"
    assert record["search"]["intermediate_trials"] is on
    phases = [trial["reason"]["phase"] for trial in record["trials"]]
    assert ("intermediate" in phases) is on
