"""Running Python (Robot Framework above all) in a child process, with the project's libraries.

Test modules outside ``tests/`` put ``tests/`` on sys.path to import this.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIBRARIES = ROOT / "libraries"

#: The keywords NdrPdrLibrary must have, named exactly (acronyms kept).
LIBRARY_KEYWORDS = (
    "Set Up Testbed",
    "Tear Down Testbed",
    "Set SSH Password",
    "Configure DUTs",
    "Configure DUTs For Traffic",
    "Stop DUTs",
    "DUT Thread Tags",
    "Show DUT Telemetry",
    "Send Traffic At Rate For Duration",
    "Measure MRR",
    "Find NDR And PDR",
    "Find Throughput For Loss Ratios",
    "Find Throughput With Binary Search",
    "Find Critical Load",
    "Check Search Settings",
    "Get Last Search Record",
    "Read Result Record",
    "Log Result Record",
)


def child_env(**extra: str) -> dict[str, str]:
    """This process's environment, PYTHONPATH starting with ``libraries`` and the repo root.

    The PYTHONPATH inherited comes after them; ``extra`` variables are added.
    """
    paths = [str(LIBRARIES), str(ROOT)]
    if os.environ.get("PYTHONPATH"):
        paths.append(os.environ["PYTHONPATH"])
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths), **extra}


def run_python(
    args: Sequence[str],
    *,
    cwd: Path = ROOT,
    env_extra: Mapping[str, str] | None = None,
    timeout: float = 120.0,
) -> subprocess.CompletedProcess[str]:
    """``python3 ARGS`` in a child process (``child_env``), its output captured as text."""
    return subprocess.run(
        [sys.executable, *args],
        cwd=cwd,
        env=child_env(**(env_extra or {})),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def run_robot(
    args: Sequence[str],
    *,
    cwd: Path = ROOT,
    env_extra: Mapping[str, str] | None = None,
    timeout: float = 120.0,
) -> subprocess.CompletedProcess[str]:
    """``python3 -m robot ARGS`` in a child process, like ``run_python``."""
    return run_python(["-m", "robot", *args], cwd=cwd, env_extra=env_extra, timeout=timeout)


def robot_output(
    directory: Path, args: Sequence[str], *, timeout: float = 300.0
) -> tuple[subprocess.CompletedProcess[str], Path]:
    """``run_robot(ARGS)`` in ``directory``, writing only ``directory/output.xml`` there.

    Returns the finished process and the output.xml path; fails if robot wrote none.
    """
    output = directory / "output.xml"
    process = run_robot(
        [
            "--outputdir",
            str(directory),
            "--output",
            str(output),
            "--log",
            "NONE",
            "--report",
            "NONE",
            "--console",
            "dotted",
            *args,
        ],
        cwd=directory,
        timeout=timeout,
    )
    assert output.exists(), f"robot wrote no output.xml:\n{process.stdout}\n{process.stderr}"
    return process, output
