"""benchmarks/heldout.py: the tuning and held-out parts of the randomized family, on a
tiny run (2 seeds per part, strict goals at 10 s, MLRsearch 1.2.1 beside mlr)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from statistics import median

import pytest
from benchmarks.runner import MLRSEARCH, mlrsearch_problem

from benchmarks import heldout

NEEDS_MLRSEARCH = pytest.mark.skipif(
    mlrsearch_problem() is not None, reason="MLRsearch 1.2.1 is not installed"
)


@NEEDS_MLRSEARCH
def test_both_parts_are_run_split_and_judged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_json = tmp_path / "rows.json"
    argv = ["--seeds", "2", "--durations", "10", "--goal-sets", "strict"]
    assert heldout.main([*argv, "--heldout-first", "500", "--json", str(out_json)]) == 0
    text = capsys.readouterr().out
    rows = json.loads(out_json.read_text(encoding="utf-8"))["rows"]
    assert {(row["seed"], row["algorithm"]) for row in rows} == {
        (seed, algorithm) for seed in (0, 1, 500, 501) for algorithm in ("mlr", MLRSEARCH)
    }
    assert {(row["model"], row["goal_set"], row["final_duration_s"]) for row in rows} == {
        ("randomized", "strict", 10.0)
    }
    for part, seeds in (("tuning", (0, 1)), ("held-out", (500, 501))):
        line = re.search(rf"^{part} +strict +10 +2 +([0-9.]+) +(PASS|FAIL) ", text, re.M)
        assert line, text
        time = {(r["seed"], r["algorithm"]): r["simulated_time_s"] for r in rows}
        ratio = median(time[seed, "mlr"] / time[seed, MLRSEARCH] for seed in seeds)
        assert float(line[1]) == pytest.approx(ratio, abs=5e-4)
        assert line[2] == ("PASS" if ratio <= 1.0 else "FAIL")
        assert re.search(rf"^{part}: targets: [0-9]+ PASS, [0-9]+ FAIL$", text, re.M)
    assert len(re.findall(r"^accuracy strict randomized 10 s ", text, re.M)) == 2
    assert "the search was not tuned on this family" in text


def test_the_parts_may_not_overlap(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        heldout.parse_args(["--seeds", "20", "--heldout-first", "10"])
    assert "must all lie below the held-out part's" in capsys.readouterr().err
    cases = heldout.part_cases(heldout.parse_args(["--seeds", "3"]), 100_000)
    assert [case.seed for case in cases if case.goal_set == "csit"] == [100_000, 100_001, 100_002]
    assert {case.final_duration_s for case in cases if case.goal_set == "strict"} == {10, 30, 60}
