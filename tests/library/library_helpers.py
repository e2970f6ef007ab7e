"""Shared pieces of the NdrPdrLibrary tests: paths, and running a generated Robot suite."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from robot.api import ExecutionResult
from robot.result import TestCase

ROOT = Path(__file__).resolve().parents[2]
TOPOLOGIES = ROOT / "topologies"
SIM = TOPOLOGIES / "sim.yaml"
CSIT = TOPOLOGIES / "csit-2n-example.yaml"


def run_robot(
    directory: Path, suite: str, *options: str, name: str = "generated.robot"
) -> tuple[subprocess.CompletedProcess[str], Path]:
    """Write ``suite`` to ``directory/name`` and run it with ``python3 -m robot`` from there.

    Returns the finished process and the output.xml path (log and report are not written).
    """
    path = directory / name
    path.write_text(suite)
    output = directory / "output.xml"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "libraries"), str(ROOT)])}
    process = subprocess.run(
        [
            sys.executable,
            "-m",
            "robot",
            "--output",
            str(output),
            "--log",
            "NONE",
            "--report",
            "NONE",
            "--console",
            "dotted",
            *options,
            str(path),
        ],
        cwd=directory,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert output.exists(), f"robot wrote no output.xml:\n{process.stdout}\n{process.stderr}"
    return process, output


def robot_results(output: Path) -> dict[str, TestCase]:
    """Every test of an output.xml by its name (read with Robot's own API)."""
    result = ExecutionResult(str(output))
    return {test.name: test for test in result.suite.all_tests}
