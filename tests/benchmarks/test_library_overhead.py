"""Smoke test of the library overhead benchmark (one round, a few seconds on the simulator)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from robot_runner import ROOT, run_python

NUMBER = r"-?[0-9]+\.[0-9]+"


def _run_script(*args: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    script = ROOT / "benchmarks" / "library_overhead.py"
    return run_python([str(script), *args], cwd=tmp_path, timeout=600)


def test_library_overhead_one_round_prints_the_table(tmp_path: Path) -> None:
    done = _run_script("--rounds", "1", tmp_path=tmp_path)
    assert done.returncode == 0, done.stderr
    text = done.stdout
    assert re.search(r"^library overhead on the simulator .*: 12 NDRPDR searches", text, re.M)
    assert re.search(r"^round +direct\[s\] .*overhead ms/trial +robot/direct$", text, re.M)
    cells = rf" +{NUMBER}"
    assert re.search(rf"^1{cells * 7}$", text, re.M)
    assert re.search(rf"^median{cells * 7}$", text, re.M)
    per_trial = rf"direct {NUMBER} ms, robot {NUMBER} ms, overhead {NUMBER} ms"
    assert re.search(
        rf"^per trial \(from the median wall times of 1 rounds\): {per_trial}$", text, re.M
    )
    assert re.search(rf"^ratio robot/direct per trial: {NUMBER}$", text, re.M)
    for part in ("write_record", "trace_svg", "trials_html", "message\\+metadata", "total"):
        assert re.search(rf"^{part} +{NUMBER} +{NUMBER}$", text, re.M), part
    assert re.search(r"^target library overhead <= 5 ms/trial: (PASS|FAIL)$", text, re.M)
    assert re.search(r"^targets: [01] PASS, [01] FAIL$", text, re.M)
    # the keyword's console lines ("#  7  1.234 Mpps x 1 s  loss ...") stay out of the report
    assert not re.search(r"^#", text, re.M)
    assert "NDRPDR search (mlr)" not in text


def test_library_overhead_help_and_bad_rounds(tmp_path: Path) -> None:
    done = _run_script("--help", tmp_path=tmp_path)
    assert done.returncode == 0
    assert "--rounds" in done.stdout
    done = _run_script("--rounds", "0", tmp_path=tmp_path)
    assert done.returncode == 2
    assert "--rounds must be >= 1" in done.stderr
