"""Robot on topologies/local-vpp.yaml: 2- to 4-core rows are skipped with the reason, 1 core runs.

A real robot run (root, the local testbed, VPP v26.06): ``Configure DUTs
For Traffic`` with ``cores=2``, ``3`` (as the scheduler families' rows) or
``4`` (9000B too: the frame does not matter) on this 2-CPU machine (the
TG on CPU 0, VPP's one worker on CPU 1) must SKIP naming the CPUs, never
run on fewer; ``cores=1`` configures VPP with one worker. Skipped where the machine has
other than CPUs 0 and 1, or without VPP, root or the tools.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from acceptance_helpers import TOPOLOGIES, index_tests, read_output

from vpp_build import vpp_problem

pytestmark = pytest.mark.real  # a real system part: tests/testkinds.py

VPP = Path("/opt/vpp/v26.06/bin/vpp")
LIBRARIES = Path(__file__).resolve().parents[2] / "libraries"
SUITE = """\
*** Settings ***
Library           NdrPdrLibrary    {topology}
Suite Setup       Set Up Testbed
Suite Teardown    Tear Down Testbed

*** Test Cases ***
Two Cores
    Configure DUTs For Traffic    ethip4-ip4base    64    cores=2

Three Cores
    Configure DUTs For Traffic    ethip4-ip4base    64    cores=3

Four Cores Jumbo
    Configure DUTs For Traffic    ethip4-ip4base    9000    cores=4

One Core
    Configure DUTs For Traffic    ethip4-ip4base    64    cores=1
"""


def test_two_cores_skip_with_the_reason_and_one_core_runs(tmp_path: Path) -> None:
    if os.geteuid() != 0 or vpp_problem() is not None or shutil.which("nft") is None:
        pytest.skip(f"needs root, the local testbed's tools and VPP v26.06 ({vpp_problem()})")
    if sorted(os.sched_getaffinity(0)) != [0, 1]:
        pytest.skip("written for a 2-CPU machine")
    suite = tmp_path / "cores.robot"
    suite.write_text(SUITE.format(topology=TOPOLOGIES / "local-vpp.yaml"))
    env = {**os.environ, "PYTHONPATH": str(LIBRARIES), "NDRPDR_STATE_DIR": str(tmp_path / "st")}
    done = subprocess.run(
        [sys.executable, "-m", "robot", "--outputdir", str(tmp_path), "--console", "none",
         str(suite)],
        env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    tests = index_tests(read_output(tmp_path))
    for name, cores in (("Two Cores", 2), ("Three Cores", 3), ("Four Cores Jumbo", 4)):
        test = tests[name]
        if test.status == "PASS":
            pytest.fail(f"a {cores}-core row ran on a 2-CPU machine")
        assert test.status == "SKIP", (name, test.message, done.stdout, done.stderr)
        assert f"DUT1 (vpp) needs {cores} CPUs for {cores} workers" in test.message, test.message
        assert "; this machine has 2 CPU(s) for the run: TG on cpu " in test.message, test.message
    one = tests["One Core"]
    assert one.status == "PASS", one.message
