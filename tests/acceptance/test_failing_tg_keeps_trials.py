"""A TG that raises mid-search (or mid-soak), or when its traffic is stopped (search, MRR,
soak), in a real Robot run: the test fails naming the error, and the record and output.xml
keep every trial measured before it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from acceptance_helpers import SIM, index_tests, read_output, run_robot
from failing_sim_tg import STOP_ERROR

from ndrpdr.results.schema import validate_record

HERE = Path(__file__).resolve().parent

SUITE = """\
*** Settings ***
Library    NdrPdrLibrary    {topology}
Library    {helper}
Suite Setup    Set Up Testbed
Suite Teardown    Tear Down Testbed

*** Test Cases ***
TG Fails Mid Search
    Make The Sim TG Fail At Trial    5    {kind}
    Configure DUTs For Traffic    ethip4-ip4base    64
    Find NDR And PDR    ethip4-ip4base    64
"""


@pytest.mark.parametrize(
    ("kind", "error", "recorded"),
    [
        ("tg", "TG: the sim TG failed on purpose", "TG: the sim TG failed on purpose"),
        ("bug", "a bug in the sim TG", "stopped by RuntimeError: a bug in the sim TG"),
    ],
)
def test_a_failing_tg_keeps_the_trials_so_far(
    tmp_path: Path, kind: str, error: str, recorded: str
) -> None:
    suite = tmp_path / "failing.robot"
    suite.write_text(
        SUITE.format(topology=SIM, helper=HERE / "failing_sim_tg.py", kind=kind),
        encoding="utf-8",
    )
    process = run_robot(tmp_path / "out", str(suite))
    assert process.returncode == 1, process.stdout + process.stderr
    test = index_tests(read_output(tmp_path / "out"))["TG Fails Mid Search"]
    assert test.status == "FAIL" and error in test.message
    assert "INCOMPLETE" in test.tags
    record = json.loads((tmp_path / "out" / "TG_Fails_Mid_Search.json").read_text())
    validate_record(record)
    assert record["status"] == "failed" and recorded in record["error"]
    assert record["incomplete"] is True
    # the calibration's trials come first, then the search's until the 5th call raised
    count = len(record["trials"])
    assert 1 <= count == record["search"]["trial_count"] <= 4
    logged = (tmp_path / "out" / "output.xml").read_text(encoding="utf-8")
    assert f"these are what its {count} trials support" in logged  # the log says so too


SOAK_SUITE = """\
*** Settings ***
Library    NdrPdrLibrary    {topology}
Library    {helper}
Suite Setup    Set Up Testbed
Suite Teardown    Tear Down Testbed

*** Test Cases ***
TG Fails Mid Soak
    Make The Sim TG Fail At Trial    4    tg
    Configure DUTs For Traffic    ethip4-ip4base    64
    Find Critical Load    ethip4-ip4base    64    soak_time=1 min
"""


def test_a_failing_tg_keeps_the_soaks_trials_so_far(tmp_path: Path) -> None:
    suite = tmp_path / "failing_soak.robot"
    suite.write_text(
        SOAK_SUITE.format(topology=SIM, helper=HERE / "failing_sim_tg.py"), encoding="utf-8"
    )
    process = run_robot(tmp_path / "out", str(suite))
    assert process.returncode == 1, process.stdout + process.stderr
    test = index_tests(read_output(tmp_path / "out"))["TG Fails Mid Soak"]
    assert test.status == "FAIL" and "TG: the sim TG failed on purpose" in test.message
    record = json.loads((tmp_path / "out" / "TG_Fails_Mid_Soak.json").read_text())
    validate_record(record)
    assert record["kind"] == "soak" and record["status"] == "failed"
    assert record["error"] == "TG: the sim TG failed on purpose"
    assert record["soak"]["trial_count"] == len(record["soak"]["trials"]) == 3
    assert record["soak"]["critical_load_pps"] is not None
    logged = (tmp_path / "out" / "output.xml").read_text(encoding="utf-8")
    assert 'href="TG_Fails_Mid_Soak.json"' in logged


STOP_SUITE = """\
*** Settings ***
Library    NdrPdrLibrary    {topology}
Library    {helper}
Suite Setup    Set Up Testbed
Suite Teardown    Tear Down Testbed
Test Setup    Configure DUTs For Traffic    ethip4-ip4base    64

*** Test Cases ***
Search Whose Stop Fails
    Make The Sim TG Fail To Stop
    Find NDR And PDR    ethip4-ip4base    64    final_trial_duration=1s    duration_sum=1s

MRR Whose Stop Fails
    Make The Sim TG Fail To Stop
    Measure MRR    ethip4-ip4base    64    trials=2

Soak Whose Stop Fails
    Make The Sim TG Fail To Stop
    Find Critical Load    ethip4-ip4base    64    soak_time=1 min
"""


@pytest.fixture(scope="module")
def stop_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The output directory of a run whose search, MRR and soak each fail to stop traffic."""
    out = tmp_path_factory.mktemp("stop")
    suite = out / "failing_stop.robot"
    suite.write_text(
        STOP_SUITE.format(topology=SIM, helper=HERE / "failing_sim_tg.py"), encoding="utf-8"
    )
    process = run_robot(out / "out", str(suite))
    assert process.returncode == 3, process.stdout + process.stderr  # the three tests fail
    return out / "out"


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("Search Whose Stop Fails", "ndrpdr"),
        ("MRR Whose Stop Fails", "mrr"),
        ("Soak Whose Stop Fails", "soak"),
    ],
)
def test_a_failing_stop_keeps_the_record_with_the_error_in_it(
    stop_run: Path, name: str, kind: str
) -> None:
    test = index_tests(read_output(stop_run))[name]
    assert test.status == "FAIL" and STOP_ERROR in test.message
    record = json.loads((stop_run / f"{name.replace(' ', '_')}.json").read_text())
    validate_record(record)
    assert record["kind"] == kind and record["status"] == "failed"
    assert record["error"] == f"stopping traffic: {STOP_ERROR}"
    trials = record["trials"] if kind == "ndrpdr" else record[kind]["trials"]
    assert trials  # every trial measured before the stop
    logged = (stop_run / "output.xml").read_text(encoding="utf-8")
    assert f'href="{name.replace(" ", "_")}.json"' in logged
