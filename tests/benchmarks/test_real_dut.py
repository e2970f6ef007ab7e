"""benchmarks/real_dut.py: our search and MLRsearch 1.2.1 in turn over one measurer.

The benchmark's point is a real DUT (the lab in a box, run by hand); here
the same code runs over the simulator (a sim model, and the embedded sim
testbed through ``ActiveTestbed``), where the truth is known, so the
alternation, the bookkeeping and the table can be checked.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from benchmarks.clocked import WallClockMeasurer
from benchmarks.real_dut import OURS, Run, main, order, search_in_turn, table
from benchmarks.runner import MLR_INTERMEDIATE, MLRSEARCH, mlrsearch_problem

from ndrpdr.errors import NdrPdrError
from ndrpdr.trafficgen.sim import SimulatedMeasurer, make_model

pytestmark = pytest.mark.skipif(mlrsearch_problem() is not None, reason=mlrsearch_problem() or "")


def _run(algorithm: str, run: int, ndr: float | None, pdr: float | None, wall: float) -> Run:
    return Run("bed", "csit", algorithm, run, wall, 20, 21.0, (ndr, pdr), (None, None))


def test_the_first_to_search_goes_second_the_next_run() -> None:
    assert order(0) == (OURS, MLRSEARCH)
    assert order(1) == (MLRSEARCH, OURS)
    assert order(2) == order(0)
    # Three searchers: the order turns by one, each is first once in three runs.
    three = (OURS, MLR_INTERMEDIATE)
    assert order(0, three) == (OURS, MLR_INTERMEDIATE, MLRSEARCH)
    assert order(1, three) == (MLR_INTERMEDIATE, MLRSEARCH, OURS)
    assert order(2, three) == (MLRSEARCH, OURS, MLR_INTERMEDIATE)
    assert order(3, three) == order(0, three)


def test_the_wall_clock_is_the_measurers_and_it_keeps_every_trial() -> None:
    ticks = iter([100.0, 103.5])
    inner = SimulatedMeasurer(make_model("sharp", seed=1), seed=1)
    measurer = WallClockMeasurer(inner, clock=lambda: next(ticks))
    trial = measurer.measure(1.0, 1e6)
    assert measurer.trials == [trial]
    assert measurer.clock_s == pytest.approx(3.5)


def test_both_search_the_same_measurer_in_turn_and_find_the_truth() -> None:
    """On a sharp sim DUT both find NDR within a goal width below the truth, every run."""
    model = make_model("sharp", seed=3)
    inner = SimulatedMeasurer(model, seed=3)
    heard: list[Run] = []
    runs = search_in_turn(inner, "sim", ["csit", "strict"], 2, (1e4, 29.76e6), 1.0, heard.append)
    assert heard == runs
    assert [(r.run, r.goal_set, r.algorithm) for r in runs] == [
        (0, "csit", OURS), (0, "csit", MLRSEARCH), (0, "strict", OURS),
        (0, "strict", MLRSEARCH), (1, "csit", MLRSEARCH), (1, "csit", OURS),
        (1, "strict", MLRSEARCH), (1, "strict", OURS),
    ]  # fmt: skip
    truth = float(model.true_throughput(1.0, 0.0))
    for run in runs:
        assert run.ok, run
        ndr = run.lower[0]
        assert ndr is not None and truth * (1 - 0.006) <= ndr <= truth, run
        assert run.trials > 0 and run.trial_s >= run.trials * 1.0 - 1e-9
    # The same trials went to the one measurer, in turn: each search's log is its share.
    assert len(inner.trials) == sum(run.trials for run in runs)
    logged = [entry for run in runs for entry in run.trial_log]
    assert logged == [
        (t.duration, t.load, t.offered_count, t.loss_count, t.intended_count, t.effective_seconds)
        for t in inner.trials
    ]
    assert all(run.loads == (1e4, 29.76e6) for run in runs)


def test_intermediate_trials_search_as_a_third_in_turn() -> None:
    """``--ours mlr,mlr-intermediate``: three searches per goal set and run over the one
    measurer; the one with intermediate trials ran some, the others none of its length."""
    model = make_model("transient", seed=3)
    inner = SimulatedMeasurer(model, seed=3)
    runs = search_in_turn(
        inner, "sim", ["strict"], 2, (1e4, 29.76e6), 10.0, ours=(OURS, MLR_INTERMEDIATE)
    )
    assert [(r.run, r.algorithm) for r in runs] == [
        (0, OURS), (0, MLR_INTERMEDIATE), (0, MLRSEARCH),
        (1, MLR_INTERMEDIATE), (1, MLRSEARCH), (1, OURS),
    ]  # fmt: skip
    middle = 10.0**0.5  # MLRsearch's middle target: sqrt(1 s x 10 s)
    for run in runs:
        assert run.ok, run
        durations = {round(entry[0], 6) for entry in run.trial_log}
        if run.algorithm == OURS:
            assert round(middle, 6) not in durations, run
        if run.algorithm == MLR_INTERMEDIATE:
            assert round(middle, 6) in durations, run
    lines = table(runs)
    assert any(line.startswith("sim / strict: ours / MLRsearch median wall time") for line in lines)
    assert any(
        line.startswith("sim / strict: mlr-intermediate / MLRsearch median wall time")
        for line in lines
    )
    assert any("ndrpdr mlr, intermediate trials: 2 runs" in line for line in lines)


def test_the_table_gives_medians_ranges_and_the_time_ratio() -> None:
    runs = [
        _run(OURS, 0, 100e3, 110e3, 40.0),
        _run(OURS, 1, 104e3, 112e3, 60.0),
        _run(OURS, 2, 102e3, 111e3, 50.0),
        _run(MLRSEARCH, 0, 101e3, 110e3, 100.0),
    ]
    lines = table(runs)
    ours = next(line for line in lines if "ndrpdr mlr" in line)
    assert "3 runs, 50.0 [40.0-60.0] s" in ours
    assert "NDR 102.0 [100.0-104.0] 3.9 %" in ours
    assert "bed / csit: ours / MLRsearch median wall time 0.50; per run: 0.40" in lines


def test_a_missing_bound_or_ndr_above_pdr_is_a_failure() -> None:
    assert _run(OURS, 0, 1e5, 1.1e5, 1.0).ok
    assert not _run(OURS, 0, None, 1.1e5, 1.0).ok
    assert not _run(OURS, 0, 1.2e5, 1.1e5, 1.0).ok
    line = next(line for line in table([_run(OURS, 0, None, 1e5, 1.0)]) if "ndrpdr" in line)
    assert "(1 failed)" in line and "NDR -" in line


def test_goal_sets_and_runs_are_checked_before_any_testbed(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("benchmarks.real_dut.on_testbed", pytest.fail)
    bad_ours = (["--ours", "mlr,binary"], ["--ours", "mlr,mlr"], ["--ours", ","])
    for argv in (["--goal-sets", "csit,rfc"], ["--runs", "0"], *bad_ours):
        with pytest.raises(SystemExit) as exited:
            main(argv)
        assert exited.value.code == 2
    said = capsys.readouterr().err
    assert "unknown goal set 'rfc'" in said and "--runs 0" in said
    assert "--ours 'mlr,binary': name each of mlr, mlr-intermediate at most once" in said


def test_main_on_the_embedded_sim_testbed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The whole command, set-up and calibration included, on the sim testbed: exit 0, a row
    per search in the JSON, a line per search and the table."""
    out = tmp_path / "rows.json"
    argv = ["--topology", "topologies/sim.yaml", "--runs", "1", "--strict-final", "2"]
    assert main([*argv, "--json", str(out)]) == 0
    rows = json.loads(out.read_text())
    assert {(row["goal_set"], row["algorithm"]) for row in rows} == {
        (goal_set, name) for goal_set in ("csit", "strict") for name in (OURS, MLRSEARCH)
    }
    said = capsys.readouterr().out
    assert "sim strict run 1 mlr: " in said
    assert "sim / strict: ours / MLRsearch median wall time" in said
    # The table again from the file, nothing run: the same lines.
    assert main(["--table-of", str(out)]) == 0
    again = capsys.readouterr().out
    assert again.strip() and again in said


def test_a_failed_search_or_testbed_fails_the_command(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The rows measured before are written and tabled, the next testbed still runs, and the
    exit status is 1."""
    tried: list[str] = []
    out = tmp_path / "rows.json"

    def testbed(path: str, *args: object) -> None:
        tried.append(path)
        said, heard, ours = args[-3:]
        assert ours == [OURS]
        assert callable(said) and callable(heard)
        heard(None)  # a dot
        said(_run(OURS, 0, 1.2e5 if path == "a.yaml" else 1e5, 1.1e5, 5.0))
        assert len(json.loads(out.read_text())) == len(tried)  # written as each search ends
        if path == "b.yaml":
            raise NdrPdrError("DUT1 (vpp): start: killed by SIGABRT")

    monkeypatch.setattr("benchmarks.real_dut.on_testbed", testbed)
    argv = ["--topology", "a.yaml", "--topology", "b.yaml", "--topology", "c.yaml"]
    assert main([*argv, "--json", str(out)]) == 1
    assert tried == ["a.yaml", "b.yaml", "c.yaml"]
    assert len(json.loads(out.read_text())) == 3
    captured = capsys.readouterr()
    assert "(1 failed)" in captured.out and "b.yaml: FAILED" in captured.out
    assert ".\nbed csit run 1 mlr: 5.0 s" in captured.out  # the dots' line ends first
    assert "b.yaml: DUT1 (vpp): start: killed by SIGABRT" in captured.err
