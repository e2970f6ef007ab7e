"""``python3 -m ndrpdr`` as a real child process: exit statuses, stderr, the record file.

Few runs (each starts an interpreter); the in-process tests cover the options.
"""

from __future__ import annotations

import json
from pathlib import Path

from cli_helpers import INVALID, TOPOLOGIES, error_line, run_cli, trial_lines

from example_topologies import RUNNABLE
from ndrpdr.results.schema import validate_record


def test_validate_shipped_topologies() -> None:
    files = sorted(str(p.relative_to(TOPOLOGIES.parent)) for p in RUNNABLE)
    done = run_cli("validate", *files)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert [line.split(": valid")[0] for line in done.stdout.splitlines()] == files


def test_validate_invalid_file() -> None:
    path = INVALID / "node-field-typo.yaml"
    done = run_cli("validate", str(path))
    assert done.returncode == 1
    assert done.stdout == ""
    line = error_line(path)
    assert line is not None
    assert done.stderr.startswith(f"{path}:{line}: nodes.DUT1.drivr: unknown field 'drivr'")
    assert "Traceback" not in done.stderr


def test_search_on_sim_writes_a_valid_record(tmp_path: Path) -> None:
    out_file = tmp_path / "record.json"
    done = run_cli("search", "--json", str(out_file), "--duration-sum", "3s", "--width", "0.01")
    assert done.returncode == 0, done.stderr
    record = json.loads(out_file.read_text())
    validate_record(record)
    assert record["status"] == "passed"
    assert len(trial_lines(done.stdout)) == len(record["trials"]) > 0
    ndr, pdr = record["ndr"], record["pdr"]
    assert ndr["lower_bound"] <= ndr["upper_bound"]
    assert pdr["lower_bound"] <= pdr["upper_bound"]
    assert ndr["lower_bound"] <= pdr["lower_bound"]
