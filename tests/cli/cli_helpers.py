"""Shared pieces of the command line tests: paths, a TRex variant of sim.yaml, output parsing."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[2]
TOPOLOGIES = ROOT / "topologies"
SIM = TOPOLOGIES / "sim.yaml"
INVALID = ROOT / "tests" / "topology" / "invalid"

_SIM_TG = """    driver: sim
    access: {kind: local}
    options:
"""


_SIM_DUT = """    driver: sim
    access: {kind: local}
    options:
      model: sharp    # loss behaviour of the simulated DUT
      seed: 1         # same seed, same DUT capacity
"""


def write_trex_topology(directory: Path) -> Path:
    """sim.yaml as a lab: a TRex TG and a VPP DUT over SSH, written to ``directory``.

    The ports have no PCI addresses, so the TRex session (made at set-up)
    refuses the file before anything is connected.
    """
    text = SIM.read_text()
    assert _SIM_TG in text and _SIM_DUT in text, "sim.yaml changed: update write_trex_topology"
    # Loopback, port 1: nothing listens, and nothing leaves this machine.
    lab = "    driver: {}\n    access: {{kind: ssh, host: 127.0.0.1, port: 1}}\n"
    start = text.index(_SIM_TG)
    end = text.index("    interfaces:", start)
    text = text[:start] + lab.format("trex") + text[end:]
    text = text.replace(_SIM_DUT, lab.format("vpp"))
    path = directory / "trex.yaml"
    path.write_text(text)
    return path


def error_line(path: Path) -> int | None:
    """The line an invalid example marks with ``# <- error`` (None if unmarked)."""
    lines = path.read_bytes().decode("utf-8", "replace").splitlines()
    marked = [number for number, line in enumerate(lines, start=1) if "# <- error" in line]
    return marked[0] if marked else None


def trial_lines(stdout: str) -> list[str]:
    """The per-trial console lines of a search (they start with '#')."""
    return [line for line in stdout.splitlines() if line.startswith("#")]


def counts(stdout: str) -> dict[str, float]:
    """``{"intended": .., "offered": .., "received": .., "loss": .., "loss_percent": ..}``
    from the output of ``ndrpdr trial``."""
    found: dict[str, float] = {}
    for name in ("intended", "offered", "received", "loss"):
        match = re.search(rf"^{name}:\s+([0-9]+) frames", stdout, re.MULTILINE)
        assert match is not None, f"no {name!r} line in:\n{stdout}"
        found[name] = float(match.group(1))
    percent = re.search(r"^loss:.*\(([0-9.]+) %\)", stdout, re.MULTILINE)
    assert percent is not None, stdout
    found["loss_percent"] = float(percent.group(1))
    return found


def run_cli(*args: str, timeout: float = 60.0) -> subprocess.CompletedProcess[str]:
    """``python3 -m ndrpdr ARGS`` in a child process (PYTHONPATH=libraries), from the repo root."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "libraries")}
    return subprocess.run(
        [sys.executable, "-m", "ndrpdr", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


class CliRun(NamedTuple):
    """What ``ndrpdr ARGS`` did, in the field names of ``subprocess.CompletedProcess``."""

    returncode: int
    stdout: str
    stderr: str


#: The ``cli`` fixture: ``cli(*args)`` runs ``ndrpdr ARGS`` in the test's process.
CliCall = Callable[..., CliRun]
