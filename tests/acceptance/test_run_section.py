"""A real Robot run on the simulator: every record names its run, and ingest stores that run.

One robot process runs an NDRPDR and an MRR test (two suites) with no
NDRPDR_RUN_* variables: both records carry the same run id and start
(one per library process), the test, suite and tags, the checkout's git
revision and the sim nodes' versions. ``ndrpdr ingest output.xml`` then
stores both under that run id.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from acceptance_helpers import ROOT, SUITES, child_env

import ndrpdr
from ndrpdr.results.record import RECORD_VERSION
from ndrpdr.results.schema import validate_record
from ndrpdr.store import open_store

TESTS = ("64B-1c-ethip4-ip4base-ndrpdr", "64B-1c-ethip4-ip4base-mrr")


def _env() -> dict[str, str]:
    env = child_env()
    for name in ("NDRPDR_RUN_ID", "NDRPDR_RUN_STARTED", "NDRPDR_SUITES_REVISION", "NDRPDR_STORE"):
        env.pop(name, None)
    return env


def _git_head() -> str | None:
    done = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True, check=False
    )
    return done.stdout.strip() if done.returncode == 0 else None


def test_a_sim_runs_records_carry_its_run_and_ingest_stores_it(tmp_path: Path) -> None:
    results = tmp_path / "results"
    robot = subprocess.run(
        [sys.executable, "-m", "robot", "--outputdir", str(results), "--console", "dotted",
         "--name", "Throughput",
         *(arg for test in TESTS for arg in ("--test", test)),
         str(SUITES / "ip4" / "ethip4-ip4base-ndrpdr.robot"),
         str(SUITES / "ip4" / "ethip4-ip4base-mrr.robot")],
        cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert robot.returncode == 0, robot.stdout + robot.stderr
    records = {test: json.loads((results / f"{test}.json").read_text()) for test in TESTS}
    runs = {test: record["run"] for test, record in records.items()}
    for test, record in records.items():
        validate_record(record)
        assert record["version"] == RECORD_VERSION
        assert runs[test]["test"] == test
    ndrpdr_run, mrr_run = (runs[test] for test in TESTS)
    assert re.fullmatch(r"[0-9]{8}T[0-9]{6}Z-[0-9a-f]{6}", ndrpdr_run["id"])
    assert mrr_run["id"] == ndrpdr_run["id"] and mrr_run["started"] == ndrpdr_run["started"]
    assert ndrpdr_run["started"] == records[TESTS[0]]["started"]  # the process's first record
    assert ndrpdr_run["suite"] == "Throughput.Ethip4-Ip4Base-Ndrpdr"
    assert mrr_run["suite"] == "Throughput.Ethip4-Ip4Base-Mrr"
    assert {"NDRPDR", "64B", "1C"} <= set(ndrpdr_run["tags"])
    assert "MRR" in mrr_run["tags"]
    assert ndrpdr_run["revision"] == _git_head()
    sim = f"ndrpdr {ndrpdr.__version__} (simulator)"
    assert ndrpdr_run["versions"] == {"TG": sim, "DUT1": sim}

    store_file = tmp_path / "store.sqlite"
    ingest = subprocess.run(
        [sys.executable, "-m", "ndrpdr", "ingest", str(results / "output.xml"),
         "--store", str(store_file)],
        cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert ingest.returncode == 0, ingest.stderr
    assert f"2 records of run {ndrpdr_run['id']}, 2 new in the store" in ingest.stdout
    with open_store(os.fspath(store_file)) as store:
        [run] = store.runs()
        assert run.id == ndrpdr_run["id"] and run.tests == 2 and run.testbed == "sim"
        assert store.records(run.id, kind="mrr") == {TESTS[1]: records[TESTS[1]]}
