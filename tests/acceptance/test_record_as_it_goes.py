"""The per-test record of a real Robot run is written as the search goes.

A Robot run on the simulator whose trials take real time (the sim TG's
``wall_time_factor``) is SIGKILLed mid-search: its test's JSON record must
still be there, valid, marked failed and incomplete, with the trials so
far. A record that cannot be written (its path is a directory) fails the
test with ``cannot write the result record: <the OSError>`` before the
search spends its time.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

from acceptance_helpers import (
    SIM,
    SUITES,
    child_env,
    index_tests,
    read_output,
    run_robot,
)

from ndrpdr.results.schema import validate_record

ROOT = SUITES.parent

SUITE = """\
*** Settings ***
Library    NdrPdrLibrary    {topology}
Suite Setup    Set Up Testbed
Suite Teardown    Tear Down Testbed

*** Test Cases ***
Slow Search
    Configure DUTs For Traffic    ethip4-ip4base    64
    Find NDR And PDR    ethip4-ip4base    64    latency=False
"""


def _suite(tmp: Path, wall_time_factor: float) -> Path:
    text = SIM.read_text()
    anchor = "      max_rate_pps: 29761904"
    assert anchor in text
    topology = tmp / "sim-slow.yaml"
    extra = f"\n      wall_time_factor: {wall_time_factor}"
    topology.write_text(text.replace(anchor, anchor + extra))
    suite = tmp / "slow.robot"
    suite.write_text(SUITE.format(topology=topology))
    return suite


def test_sigkilled_robot_run_leaves_the_trials_so_far(tmp_path: Path) -> None:
    suite = _suite(tmp_path, 0.1)  # 0.1 s of wall time per 1 s trial
    out = tmp_path / "out"
    record_file = out / "Slow_Search.json"
    process = subprocess.Popen(
        [sys.executable, "-m", "robot", "--outputdir", str(out), "--console", "none", str(suite)],
        cwd=ROOT,
        env=child_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        trials = 0
        while trials < 5:
            assert process.poll() is None, "the run ended before 5 trials"
            assert time.monotonic() < deadline, "no 5 trials in the record within 60 s"
            time.sleep(0.05)
            try:
                trials = len(json.loads(record_file.read_text())["trials"])
            except (OSError, ValueError):
                trials = 0
        process.send_signal(signal.SIGKILL)
        process.wait(30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    record = json.loads(record_file.read_text())
    validate_record(record)
    assert record["status"] == "failed"
    assert record["incomplete"] is True
    assert record["error"].startswith("the run had not finished when this record was written: ")
    assert len(record["trials"]) >= trials  # at most the trial in flight is lost
    assert record["error"].endswith(f"{len(record['trials'])} trials so far")


def test_unwritable_record_fails_the_test(tmp_path: Path) -> None:
    suite = _suite(tmp_path, 0.0)
    out = tmp_path / "out"
    (out / "Slow_Search.json").mkdir(parents=True)  # the record's path is taken by a directory
    process = run_robot(out, str(suite))
    assert process.returncode == 1, process.stdout + process.stderr
    test = index_tests(read_output(out))["Slow Search"]
    assert test.status == "FAIL"
    assert test.message == (
        "NDRPDR search not started: cannot write the result record: [Errno 21] Is a "
        f"directory: '{out / 'Slow_Search.json'}' (file {out / 'Slow_Search.json'})"
    )  # before the first trial, not after the whole search
