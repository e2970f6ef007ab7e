"""Two plain ``robot`` runs into one output directory, for real, on the simulator.

The first run (outdir_hold.robot) holds its test until a file exists; a
second plain run into the same ``--outputdir`` meanwhile stops at once,
naming the first (pid, run id, start), and measures nothing. A third run,
after the first ended, takes the directory and writes its record beside the
first run's, never over it. (``bin/run-suites`` under the same lock, its
robot and pabot's workers sharing it: test_run_suites_clears_results.py and
test_pabot_testbeds.py.)
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from acceptance_helpers import ACCEPTANCE, ROOT, child_env
from robot.api import ExecutionResult

from ndrpdr.outdir.outdirlock import LOCK_NAME, holder

SUITE = ACCEPTANCE / "outdir_hold.robot"
RECORD = "Held_MRR.json"


def _robot(outdir: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "robot", "--outputdir", str(outdir), "--console", "dotted",
            *args, str(SUITE)]  # fmt: skip


def _env() -> dict[str, str]:
    """No run id given: each plain robot run makes its own."""
    env = child_env()
    for name in ("NDRPDR_RUN_ID", "NDRPDR_RUN_STARTED"):
        env.pop(name, None)
    return env


def _run(outdir: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        _robot(outdir), cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=60,
        check=False,
    )  # fmt: skip


def _wait_for(path: Path, first: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 30
    while not path.exists():
        assert first.poll() is None, first.communicate()
        assert time.monotonic() < deadline, f"{path} not made in 30 s"
        time.sleep(0.05)


def test_a_second_plain_run_stops_at_once_and_no_record_is_written_over(tmp_path: Path) -> None:
    outdir = tmp_path / "results"
    hold = tmp_path / "hold"
    first = subprocess.Popen(
        _robot(outdir, "--variable", f"HOLD:{hold}"), cwd=ROOT, env=_env(),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        _wait_for(Path(f"{hold}.started"), first)
        held_by = holder(outdir)
        assert held_by is not None and held_by.startswith(f"pid={first.pid} run=")
        began = time.monotonic()
        second = _run(outdir)
        took = time.monotonic() - began
        # read before the first run ends: it writes its own output.xml over the second's
        result = ExecutionResult(str(outdir / "output.xml"))
    finally:
        hold.touch()
        out, err = first.communicate(timeout=60)
    said = f"output directory {outdir} is in use by another run ({held_by}); this run stops"
    assert second.returncode == 1, second.stdout + second.stderr
    assert said in second.stderr
    assert took < 30, f"the second run took {took:.1f} s"  # not waiting for the first (60 s)
    assert result.suite.message.startswith(f"Suite setup failed:\n{said}")
    (test,) = result.suite.all_tests  # never run: Robot stopped the run (a fatal error)
    assert (test.status, test.message) == ("FAIL", "Test execution stopped due to a fatal error.")
    assert not test.body
    assert first.returncode == 0, out + err
    first_record = (outdir / RECORD).read_text()
    assert json.loads(first_record)["run"]["id"] == held_by.split()[1].removeprefix("run=")
    assert sorted(p.name for p in outdir.glob("*.json")) == [RECORD]
    assert holder(outdir) is None  # the first run ended: its lock went with it

    third = _run(outdir)  # the directory is free again: the record goes beside the first's
    assert third.returncode == 0, third.stdout + third.stderr
    assert (outdir / RECORD).read_text() == first_record
    assert {p.name for p in outdir.glob("*.json")} == {RECORD, "Held_MRR-2.json"}
    third_record = json.loads((outdir / "Held_MRR-2.json").read_text())
    assert third_record["run"]["id"] != json.loads(first_record)["run"]["id"]
    assert (
        "result record Held_MRR-2.json: kept Held_MRR.json (another run's)"
        in (outdir / "log.html").read_text()
    )


def test_a_plain_pabot_runs_workers_share_its_lock(tmp_path: Path) -> None:
    """Two robot processes of one pabot run take the merged directory's lock for pabot, their
    parent: neither stops the other, and the lock names pabot."""
    outdir = tmp_path / "results"
    families = ("ethip4-ip4base", "ethip4udp-ip4base")
    suites = [ROOT / "suites" / "ip4" / f"{family}-mrr.robot" for family in families]
    pabot = subprocess.Popen(
        [sys.executable, "-m", "pabot.pabot", "--processes", "2", "--pabotlibport", "0",
         "--command", sys.executable, "-m", "robot", "--end-command",
         "--outputdir", str(outdir), "--include", "64BAND1C", "--variable", "MRR_TRIALS:1",
         *map(str, suites)],
        cwd=ROOT, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    out, _ = pabot.communicate(timeout=120)
    assert pabot.returncode == 0, out
    records = {p.name for p in outdir.glob("*.json")}
    assert records == {f"64B-1c-{family}-mrr.json" for family in families}
    said = (outdir / LOCK_NAME).read_text()
    assert said.startswith(f"pid={pabot.pid} run="), said
    assert "in use by another run" not in out
    assert holder(outdir) is None
