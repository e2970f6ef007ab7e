"""benchmarks.replay: a real-DUT run's trials fed back to our search, which must make them again."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from benchmarks.real_dut import OURS, Run, search_in_turn
from benchmarks.replay import main, replay

from ndrpdr.searchlimits import default_min_load
from ndrpdr.simdut.models import make_model
from ndrpdr.trafficgen.sim.measurer import SimulatedMeasurer

MAX_LOAD = 29.76e6


@pytest.fixture(scope="module")
def runs() -> list[Run]:
    """Our search and MLRsearch in turn on a noisy sim DUT, CSIT's goals and strict ones."""
    inner = SimulatedMeasurer(make_model("jitter", seed=5), seed=5)
    loads = (default_min_load(MAX_LOAD), MAX_LOAD)  # as benchmarks.real_dut's
    return search_in_turn(inner, "sim", ["csit", "strict"], 1, loads, 1.0)


def test_our_searches_replay_trial_for_trial(runs: list[Run]) -> None:
    ours = [run for run in runs if run.algorithm == OURS]
    assert len(ours) == 2
    for run in ours:
        assert replay(run, 1.0) == "same", run.goal_set


def test_a_trial_answered_otherwise_makes_the_search_diverge(runs: list[Run]) -> None:
    """A logged trial that lost nothing reads as one that lost every frame: the search goes
    elsewhere after it, and the replay names the first trial the log does not have."""
    run = next(run for run in runs if run.algorithm == OURS and run.goal_set == "strict")
    log = [list(entry) for entry in run.trial_log]
    clean = next(index for index, entry in enumerate(log) if entry[3] == 0)
    log[clean][3] = log[clean][2]
    said = replay(dataclasses.replace(run, trial_log=tuple(map(tuple, log))), 1.0)
    assert said.startswith(f"DIVERGED at trial {clean + 2}: "), said


def test_files_before_the_loads_and_counts_were_kept_still_replay(runs: list[Run]) -> None:
    """Rows of a file written before 2026-12-07 (four numbers a trial, no loads): the max
    load is the first trial's (ours start there), the counts whole trials."""
    run = next(run for run in runs if run.algorithm == OURS and run.goal_set == "csit")
    old = dataclasses.replace(run, loads=(), trial_log=tuple(entry[:4] for entry in run.trial_log))
    assert replay(old, 1.0) == "same"


def test_the_command_replays_every_search_of_ours_and_fails_on_a_divergence(
    runs: list[Run], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "rows.json"
    path.write_text(json.dumps([run.to_json() for run in runs]))
    assert main([str(path), "--strict-final", "1"]) == 0
    assert "2 of 2 searches the same" in capsys.readouterr().out
    short = [run.to_json() for run in runs]
    for row in short:
        row["trial_log"] = row["trial_log"][:5]
    path.write_text(json.dumps(short))
    assert main([str(path), "--strict-final", "1"]) == 1
    assert "0 of 2 searches the same" in capsys.readouterr().out
