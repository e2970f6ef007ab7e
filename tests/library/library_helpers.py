"""Shared pieces of the NdrPdrLibrary tests: paths, and running a generated Robot suite."""

from __future__ import annotations

import subprocess
from pathlib import Path

from robot.api import ExecutionResult
from robot.result import TestCase

from example_topologies import filled
from robot_runner import ROOT, robot_output

TOPOLOGIES = ROOT / "topologies"
SIM = TOPOLOGIES / "sim.yaml"
CSIT = filled("csit-2n-example.yaml")


def run_robot(
    directory: Path, suite: str, *options: str, name: str = "generated.robot"
) -> tuple[subprocess.CompletedProcess[str], Path]:
    """Write ``suite`` to ``directory/name`` and run it with ``python3 -m robot`` from there.

    Returns the finished process and the output.xml path (log and report are not written).
    """
    path = directory / name
    path.write_text(suite)
    return robot_output(directory, [*options, str(path)], timeout=120)


def robot_results(output: Path) -> dict[str, TestCase]:
    """Every test of an output.xml by its name (read with Robot's own API)."""
    result = ExecutionResult(str(output))
    return {test.name: test for test in result.suite.all_tests}
