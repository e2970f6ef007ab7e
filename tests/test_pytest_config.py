"""pyproject's pytest settings: library classes named Test* are not collected; *Tests are."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from robot_runner import ROOT

_MODULE = """
from NdrPdrLibrary.keywords.testbed import TestbedKeywords
from ndrpdr.dut.dpdk.testpmd import TestpmdDriver, TestpmdOptions
from ndrpdr.trend.compare import TestKey
from ndrpdr.outdir.outputxml import TestOutcome
from ndrpdr.trend.trendseries import TestTrend
from ndrpdr.activebed.testbed import ActiveTestbed, TestbedError


def test_alone() -> None:
    pass


class GroupedTests:
    def test_in_a_class(self) -> None:
        pass
"""


def test_only_test_functions_and_tests_classes_are_collected(tmp_path: Path) -> None:
    module = tmp_path / "test_imports_library_classes.py"
    module.write_text(_MODULE)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
         "-c", str(ROOT / "pyproject.toml"), "--rootdir", str(ROOT), str(module)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        check=False,
    )  # fmt: skip
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    assert "PytestCollectionWarning" not in out  # no Test* library class was tried
    collected = sorted(line.split("::", 1)[1] for line in done.stdout.splitlines() if "::" in line)
    assert collected == ["GroupedTests::test_in_a_class", "test_alone"], out
