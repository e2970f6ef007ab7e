"""Real Robot runs of the shipped NDRPDR suite on the simulator: LOSS_RATIOS gives one search
for three goals whose bounds land in output.xml (message, metadata) and the record; the
per-trial console lines follow ``robot --console`` and the ``PROGRESS`` variable."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from acceptance_helpers import SUITES, index_tests, read_output, run_robot
from robot.result import TestCase as RobotTest

SUITE = str(SUITES / "ip4" / "ethip4-ip4base-ndrpdr.robot")
TEST = "64B-1c-ethip4-ip4base-ndrpdr"
#: Quick goals so each run takes seconds.
QUICK = (
    "--variable",
    "DURATION_SUM:2s",
    "--variable",
    "GOAL_WIDTH:0.02",
    "--include",
    "64B AND 1C",
)
#: Metadata values are written with 3 decimals.
METADATA_ABS = 0.0015


def _run(
    outputdir: Path, *args: str, quick: bool = True
) -> tuple[subprocess.CompletedProcess[str], RobotTest]:
    """The 64B test of the suite (CSIT's goals unless ``quick``); the process and the test."""
    process = run_robot(outputdir, *(QUICK if quick else ("--include", "64B AND 1C")), *args, SUITE)
    assert process.returncode == 0, process.stdout + process.stderr
    return process, index_tests(read_output(outputdir))[TEST]


def _record(outputdir: Path) -> dict[str, Any]:
    record: dict[str, Any] = json.loads((outputdir / f"{TEST}.json").read_text())
    return record


def _trial_lines(stdout: str) -> list[str]:
    return [line for line in stdout.splitlines() if line.startswith("#")]


def test_three_loss_ratios_land_in_message_metadata_and_record(tmp_path: Path) -> None:
    process, test = _run(
        tmp_path, "--console", "verbose", "--variable", "LOSS_RATIOS:0, 0.005, 0.02"
    )
    assert test.status == "PASS", test.message
    record = _record(tmp_path)
    goals = record["goals"]
    assert [goal["loss_ratio"] for goal in goals] == [0.0, 0.005, 0.02]
    lines = test.message.splitlines()
    latency = [line for line in lines if line.startswith("Latency at ")]
    assert len(latency) == 4  # at 0, 10, 50, 90 % of PDR, after the bounds
    lines = lines[: -len(latency)]
    shown = [line for line in process.stdout.splitlines() if line.startswith("Latency at ")]
    assert shown[:4] == latency  # each point on the console as it is measured (then the message)
    assert [line.split(":")[0] for line in lines] == ["NDR", "PDR", "loss \u2264 2 %"]
    for key, line, goal in zip(("NDR", "PDR", "LOSS_2PCT"), lines, goals, strict=True):
        assert goal["lower_bound"] is not None and goal["upper_bound"] is not None
        assert float(test.metadata[f"{key}_LOWER"]) == pytest.approx(
            goal["lower_bound"], abs=METADATA_ABS
        )
        assert float(test.metadata[f"{key}_UPPER"]) == pytest.approx(
            goal["upper_bound"], abs=METADATA_ABS
        )
        assert f"lower {goal['lower_bound'] / 1e6:.4f} Mpps" in line
    # One search served all three: the trials are those of one record, one console run.
    trial_lines = _trial_lines(process.stdout)
    assert len(trial_lines) == record["search"]["trial_count"]
    assert "loss \u2264 2 % " in trial_lines[-1]
    assert goals[0]["lower_bound"] < goals[2]["lower_bound"]


def test_verbose_console_shows_trials_with_bounds(tmp_path: Path) -> None:
    process, test = _run(tmp_path, "--console", "verbose", quick=False)  # more than 10 trials
    assert test.status == "PASS", test.message
    record = _record(tmp_path)
    lines = _trial_lines(process.stdout)
    assert len(lines) == record["search"]["trial_count"] > 10
    assert all("| NDR " in line and "  PDR " in line for line in lines)
    ndr = record["ndr"]
    lower = f"{ndr['lower_bound'] / 1e6:.3f}".rstrip("0").rstrip(".")
    assert f"NDR {lower}.." in lines[-1]
    estimates = [line for line in process.stdout.splitlines() if "estimate after" in line]
    assert len(estimates) == len(lines) // 10


@pytest.mark.parametrize("kind", ["dotted", "quiet", "none"])
def test_quiet_consoles_show_no_trial_lines(tmp_path: Path, kind: str) -> None:
    process, test = _run(tmp_path, "--console", kind)
    assert test.status == "PASS", test.message
    assert _record(tmp_path)["search"]["trial_count"] > 0
    assert _trial_lines(process.stdout) == []
    assert "search (mlr)" not in process.stdout
    assert "estimate after" not in process.stdout


def test_progress_none_keeps_the_verbose_console_free_of_trial_lines(tmp_path: Path) -> None:
    process, test = _run(tmp_path, "--console", "verbose", "--variable", "PROGRESS:none")
    assert test.status == "PASS", test.message
    assert "NDRPDR search (mlr)" in process.stdout  # the console is verbose
    assert _trial_lines(process.stdout) == []
