"""``bin/run-suites`` run for real twice into one output directory: the second run clears
only the first run's own files (its JSON records and Robot's outputs), never anything else.

The virtual environment run-suites would make is stood in for by a directory whose
``bin/python`` runs the shared test interpreter (PYTHONPATH=libraries), since installing
the requirements needs the network; everything after that (robot, the suites, the
simulator, ``ndrpdr clear-results``, ``ndrpdr summary``) is the real thing.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import subprocess
import sys
from pathlib import Path

from acceptance_helpers import suite_test_name

from ndrpdr.outdir.outdirlock import LOCK_NAME, holder
from ndrpdr.results.schema import validate_record
from standin_venv import standin_venv

ROOT = Path(__file__).resolve().parents[2]


def _run_suites(venv: Path, outdir: Path) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "NDRPDR_VENV": str(venv),
        "PYTHONPATH": os.pathsep.join([str(ROOT / "libraries"), str(ROOT)]),
    }
    return subprocess.run(
        [
            str(ROOT / "bin" / "run-suites"),
            "--outputdir",
            str(outdir),
            "--include",
            "64B AND 1C",
            "--console",
            "dotted",
            "--variable",
            "MRR_TRIALS:2",
            "--xunit",
            "xunit.xml",
            str(ROOT / "suites" / "ip4" / "ethip4-ip4base-ndrpdr.robot"),
            str(ROOT / "suites" / "ip4" / "ethip4-ip4base-mrr.robot"),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_second_run_keeps_only_its_records_and_unrelated_files(tmp_path: Path) -> None:
    venv = standin_venv(tmp_path)
    outdir = tmp_path / "results"
    outdir.mkdir()
    old = outdir / "Old_Test_From_Last_Week.json"
    old.write_text(json.dumps({"version": "1.3.0", "kind": "ndrpdr", "tool": {"name": "ndrpdr"}}))
    foreign = outdir / "dashboard.json"
    foreign.write_text(json.dumps({"tool": {"name": "somebody-else"}}))
    unrelated = outdir / "README.txt"
    unrelated.write_text("notes of the user")
    (outdir / "output.xml").write_text('<?xml version="1.0"?>\n<robot generator="old">\n</robot>\n')

    process = _run_suites(venv, outdir)
    assert process.returncode == 0, process.stdout + process.stderr
    removed = [line for line in process.stdout.splitlines() if "removed the earlier run" in line]
    assert removed == [f"{outdir}: removed the earlier run's 1 result record(s), output.xml"]

    new = {f"{suite_test_name('64', 'ethip4-ip4base', kind)}.json" for kind in ("ndrpdr", "mrr")}
    robot = {"output.xml", "log.html", "report.html", "xunit.xml", LOCK_NAME}
    kept = {"dashboard.json", "README.txt"}
    assert {p.name for p in outdir.iterdir()} == new | robot | kept
    for name in new:
        validate_record(json.loads((outdir / name).read_text()))
    assert foreign.read_text() == json.dumps({"tool": {"name": "somebody-else"}})
    assert unrelated.read_text() == "notes of the user"

    again = _run_suites(venv, outdir)  # the first run's files go, the same names come back
    assert again.returncode == 0, again.stdout + again.stderr
    assert f"{outdir}: removed the earlier run's 2 result record(s), " in again.stdout
    assert {p.name for p in outdir.iterdir()} == new | robot | kept


def test_a_run_into_a_directory_a_live_run_holds_writes_beside_it_and_says_so(
    tmp_path: Path,
) -> None:
    """The live run is this test holding the directory's lock (as a running run-suites does):
    its files stay as they are; the second run's outputs go to <dir>-<run id>."""
    venv = standin_venv(tmp_path)
    outdir = tmp_path / "results"
    outdir.mkdir()
    theirs = outdir / "output.xml"
    theirs.write_text('<?xml version="1.0"?>\n<robot generator="the live run">\n</robot>\n')
    lock = os.open(outdir / LOCK_NAME, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        os.write(lock, b"pid=4242 run=the-live-run started=2026-11-28T00:00:00+00:00\n")
        assert holder(outdir) == "pid=4242 run=the-live-run started=2026-11-28T00:00:00+00:00"
        cleared = subprocess.run(
            [sys.executable, "-m", "ndrpdr", "clear-results", str(outdir)],
            capture_output=True, text=True, check=False, cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT / "libraries")},
        )  # fmt: skip
        assert cleared.returncode == 1
        assert "is in use by a live run (pid=4242 run=the-live-run" in cleared.stderr
        process = _run_suites(venv, outdir)
    finally:
        os.close(lock)
    assert process.returncode == 0, process.stdout + process.stderr
    said = re.search(
        rf"run-suites: {re.escape(str(outdir))} is in use by another run \(pid=4242 "
        rf"run=the-live-run [^)]*\); this run writes to ({re.escape(str(outdir))}-\S+) instead",
        process.stderr,
    )
    assert said is not None, process.stderr
    beside = Path(said.group(1))
    assert theirs.read_text().endswith('<robot generator="the live run">\n</robot>\n')
    assert sorted(p.name for p in outdir.iterdir()) == [LOCK_NAME, "output.xml"]
    new = {f"{suite_test_name('64', 'ethip4-ip4base', kind)}.json" for kind in ("ndrpdr", "mrr")}
    assert new <= {p.name for p in beside.iterdir()}
    assert (beside / "output.xml").is_file() and holder(beside) is None  # released at its end
    assert holder(outdir) is None  # the live run's lock went with it
