"""A second Ctrl-C in a real Robot run that uses NdrPdrLibrary: the teardown ends, output.xml reads.

Robot alone exits at the second SIGINT wherever it is, leaving output.xml
cut off; with the library loaded the second one is acknowledged and the
run ends as after one (teardown run, output.xml whole), and a third one
still forces the exit. The suite is written here: a test that sleeps (the
first signal stops it), a suite teardown that sleeps (the second signal
lands in it) and then logs.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from robot.api import ExecutionResult

from robot_runner import ROOT, child_env

SUITE = """\
*** Settings ***
Library           NdrPdrLibrary
Suite Setup       Set Up Testbed
Suite Teardown    Slow Teardown

*** Test Cases ***
Long Test
    Log To Console    \\nrunning
    Sleep    30s

*** Keywords ***
Slow Teardown
    Log To Console    \\ntearing down
    Sleep    2s
    Log    teardown done
    Tear Down Testbed
"""


def _run(tmp_path: Path, signals: int) -> tuple[subprocess.CompletedProcess[str], Path]:
    suite = tmp_path / "stop_signals.robot"
    suite.write_text(SUITE)
    process = subprocess.Popen(
        [sys.executable, "-m", "robot", "--outputdir", str(tmp_path), "--console", "verbose",
         str(suite)],
        cwd=ROOT, env=child_env(NDRPDR_STATE_DIR=str(tmp_path / "state")),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip
    assert process.stdout is not None
    for line in process.stdout:
        if line.strip() == "running":
            break
    process.send_signal(signal.SIGINT)
    for line in process.stdout:
        if line.strip() == "tearing down":
            break
    for _ in range(signals - 1):
        time.sleep(0.2)
        process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=60)
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr), tmp_path


def test_two_signals_let_the_teardown_end_and_output_xml_be_whole(tmp_path: Path) -> None:
    run, outdir = _run(tmp_path, 2)
    assert "NdrPdrLibrary: stopping already (tearing down the testbed" in run.stderr
    result = ExecutionResult(str(outdir / "output.xml"))  # raises on a cut-off file
    suite = result.suite
    assert suite.tests[0].status == "FAIL"
    messages = [m.message for kw in suite.teardown.body for m in getattr(kw, "body", [])]
    assert "teardown done" in messages, messages


@pytest.mark.parametrize("signals", [3])
def test_a_third_signal_still_forces_the_exit(tmp_path: Path, signals: int) -> None:
    run, _ = _run(tmp_path, signals)
    assert "Execution forcefully stopped." in run.stderr
    assert run.returncode == 253
