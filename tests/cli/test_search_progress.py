"""Progress while a search runs: the bounds on every trial's line, the estimate, --console;
and ``ndrpdr search --loss-ratio / --exceed-ratio`` (more goals in one search)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import SIM, trial_lines

from ndrpdr.cli.main import main
from ndrpdr.console.estimate import estimate_goals, estimate_line, halvings_left, seconds_per_load
from ndrpdr.console.lines import goal_bounds_text, progress_line
from ndrpdr.console.progress import ConsoleKind, ProgressPrinter, parse_progress_option
from ndrpdr.search import Goal, GoalProgress, SearchProgress, TrialResult
from ndrpdr.units import format_percent, format_rate

QUICK = ["--duration-sum", "2s", "--width", "0.02"]
NDR = Goal(loss_ratio=0.0, relative_width=0.01, duration_sum=20.0, exceed_ratio=0.5)
PDR = Goal(loss_ratio=0.005, relative_width=0.01, duration_sum=20.0, exceed_ratio=0.5)


def _snapshot(number: int, *goals: GoalProgress, search_s: float = 40.0) -> SearchProgress:
    trial = TrialResult(duration=1.0, load=1e6, offered_count=1e6, forwarded_count=1e6)
    return SearchProgress(number, trial, goals, search_time=search_s, wall_time=2 * search_s)


def _search(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[dict[str, Any], str]:
    out_file = tmp_path / "record.json"
    code = main(["search", "--topology", str(SIM), "--json", str(out_file), *QUICK, *args])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out_file.read_text()), out


# -- lines ------------------------------------------------------------------------------------


def test_goal_bounds_text() -> None:
    assert goal_bounds_text(GoalProgress(NDR, None, None)) == "NDR ?..?"
    assert goal_bounds_text(GoalProgress(NDR, 1.2e6, None)) == "NDR 1.2 Mpps..?"
    assert goal_bounds_text(GoalProgress(PDR, 1.2e6, 1.25e6)) == "PDR 1.2..1.25 Mpps (4.17 %)"
    assert goal_bounds_text(GoalProgress(PDR, 999e3, 1.25e6)) == "PDR 999 kpps..1.25 Mpps (25.1 %)"
    two = Goal(loss_ratio=0.02)
    assert goal_bounds_text(GoalProgress(two, 1e6, 1.01e6)) == "loss \u2264 2 % 1..1.01 Mpps (1 %)"


def test_progress_line_is_the_trial_line_then_every_goal() -> None:
    line = progress_line(_snapshot(7, GoalProgress(NDR, 1e6, 1.1e6), GoalProgress(PDR, None, 2e6)))
    assert line.startswith("#  7 ")
    assert "\n" not in line
    assert line.endswith("| NDR 1..1.1 Mpps (10 %)  PDR ?..2 Mpps")


def test_halvings_left() -> None:
    # width 10 % against a goal of 1 %: ln(1.1)/-ln(0.99) = 9.48 -> 4 halvings (2^4 = 16)
    assert halvings_left(GoalProgress(NDR, 1e6, 1.1e6)) == 4
    assert halvings_left(GoalProgress(NDR, 1e6, 1.015e6)) == 1
    assert halvings_left(GoalProgress(NDR, 1e6, 1.005e6)) == 0
    assert halvings_left(GoalProgress(NDR, None, 1.1e6)) is None


def test_seconds_per_load_is_the_mean_of_both_verdicts() -> None:
    assert seconds_per_load(GoalProgress(NDR, None, None)) == 10.0  # (10 + 10) / 2
    strict = Goal(loss_ratio=0.0, exceed_ratio=0.0, final_trial_duration=5.0, duration_sum=30.0)
    assert seconds_per_load(GoalProgress(strict, None, None)) == (30.0 + 5.0) / 2


def test_estimate_line_says_what_it_rests_on() -> None:
    snapshot = _snapshot(20, GoalProgress(NDR, 1e6, 1.1e6), GoalProgress(PDR, 1.1e6, None))
    estimates = estimate_goals(snapshot)
    assert [(e.halvings, e.loads, e.seconds) for e in estimates] == [(4, 4, 40.0), (None, 1, 10.0)]
    line = estimate_line(snapshot)
    assert line.strip().startswith("estimate after 20 trials: at least 50 s of trials")
    assert "~100 s wall at 2.00 s wall per trial second so far" in line
    assert "NDR: width 10 % vs goal 1 %, 4 more loads x 10 s" in line
    assert "PDR: no upper bound yet" in line
    done = estimate_line(_snapshot(30, GoalProgress(NDR, 1e6, 1.005e6)))
    assert ": 0 s of trials" in done and "NDR: done" in done


def test_printer_adds_an_estimate_every_n_trials() -> None:
    lines: list[str] = []
    printer = ProgressPrinter(lines.append, every=3)
    for number in range(1, 8):
        printer(_snapshot(number, GoalProgress(NDR, 1e6, 1.1e6)))
    estimates = [i for i, line in enumerate(lines) if "estimate after" in line]
    assert [lines[i].split()[2] for i in estimates] == ["3", "6"]
    assert len(lines) == 7 + 2


def test_console_kinds_and_progress_option() -> None:
    assert [k.value for k in ConsoleKind if k.shows_trials] == ["verbose"]
    assert parse_progress_option(" Trials ").value == "trials"
    with pytest.raises(ValueError, match="progress='some' is not one of trials, none"):
        parse_progress_option("some")


# -- ndrpdr search ------------------------------------------------------------------------------


def test_verbose_console_shows_bounds_and_estimates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record, out = _search(tmp_path, capsys)
    lines = trial_lines(out)
    assert len(lines) == record["search"]["trial_count"]
    assert all(re.search(r"\| NDR \S.*\.\..*  PDR \S.*\.\.", line) for line in lines)
    ndr = record["ndr"]
    last = lines[-1]
    width = format_percent(ndr["upper_bound"] / ndr["lower_bound"] - 1)
    assert f"NDR {format_rate(ndr['lower_bound']).split()[0]}.." in last
    assert f"{format_rate(ndr['upper_bound'])} ({width} %)" in last
    estimates = [line for line in out.splitlines() if "estimate after" in line]
    assert len(estimates) == len(lines) // 10


@pytest.mark.parametrize("kind", ["dotted", "quiet", "none"])
def test_other_consoles_show_no_trial_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    record, out = _search(tmp_path, capsys, "--console", kind)
    assert record["search"]["trial_count"] > 0
    assert trial_lines(out) == []
    assert "estimate" not in out
    has_bounds = any(line.startswith("NDR: lower") for line in out.splitlines())
    assert has_bounds is (kind != "none")


def test_three_loss_ratios_in_one_search(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record, out = _search(
        tmp_path,
        capsys,
        *("--loss-ratio", "0", "--loss-ratio", "0.005", "--loss-ratio", "0.02"),
        *("--exceed-ratio", "0.25"),
    )
    assert [g["loss_ratio"] for g in record["goals"]] == [0.0, 0.005, 0.02]
    assert {g["exceed_ratio"] for g in record["goals"]} == {0.25}
    assert all(g["lower_bound"] is not None for g in record["goals"])
    finals = [line.split(":")[0] for line in out.splitlines() if ": lower " in line]
    assert finals == ["NDR", "PDR", "loss \u2264 2 %"]
    assert "loss \u2264 2 % " in trial_lines(out)[-1]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--loss-ratio", "2%"], "--loss-ratio: '2%' is not a number"),
        (["--loss-ratio", "0", "--loss-ratio", "0"], "--loss-ratio: '0' is given twice"),
        (["--exceed-ratio", "1"], "--exceed-ratio 1: out of range; accepted: a number from 0"),
    ],
)
def test_bad_goal_options(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    code = main(["search", "--topology", str(SIM), *args])
    _, err = capsys.readouterr()
    assert code != 0
    assert message in err
