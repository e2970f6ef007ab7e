"""Replay a real-DUT run's trials through our search: does the code now make the same trials?

A real DUT cannot be asked again, but its answers are in the rows
``benchmarks.real_dut --json`` wrote: every trial in order. This feeds
each of our searches' rows (``mlr``, ``mlr-intermediate``) back to the
search, the log answering in place of the TG, and says whether the search
asked for the same trials in the same order and found the same bounds
(``same``), or where it first asked for another one. So a change of the
search can be checked against real runs made before it: where the replay
is the same, the change did not touch those searches.

    python3 -m benchmarks.replay rows.json [--strict-final 10]

Exit status 1 when a search diverged.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from benchmarks.clocked import WallClockMeasurer
from benchmarks.goalsets import make_goals
from benchmarks.real_dut import OUR_SEARCHERS, Run
from benchmarks.runner import run_algorithm
from ndrpdr.search.trial import TrialResult
from ndrpdr.searchlimits import default_min_load
from ndrpdr.trafficgen.counting import intended_count


class DivergedError(Exception):
    """The search asked for a trial the log does not have next."""


class LogAnswers:
    """A measurer that answers from a trial log, in order (``Run.trial_log``)."""

    def __init__(self, log: Sequence[Sequence[float]]) -> None:
        self.log = log
        self.asked = 0
        self.diverged: str | None = None  # where the search first asked for another trial

    def measure(self, duration: float, load: float) -> TrialResult:
        """The log's next trial, when it is of ``duration`` [s] at ``load`` [frames/s]."""
        if self.asked >= len(self.log):
            self.diverged = f"trial {self.asked + 1}: asked past the log's {len(self.log)} trials"
            raise DivergedError(self.diverged)
        entry = self.log[self.asked]
        logged_duration, logged_load, offered, lost = entry[:4]
        if abs(logged_duration - duration) > 1e-9 or abs(logged_load - load) > 1e-6 * load:
            self.diverged = (
                f"trial {self.asked + 1}: asked {duration:g} s at {load:.1f} pps, "
                f"the log has {logged_duration:g} s at {logged_load:.1f} pps"
            )
            raise DivergedError(self.diverged)
        self.asked += 1
        # Files before 2026-12-07: what the TG meant to send, as the TG's counts make it.
        intended = entry[4] if len(entry) > 4 else intended_count(load, duration, int(offered))
        effective = entry[5] if len(entry) > 5 else duration
        return TrialResult(
            duration,
            load,
            offered,
            loss_count=lost,
            intended_count=intended or None,
            effective_duration=effective,
        )


def replay(run: Run, strict_final_s: float) -> str:
    """``same`` when our search makes ``run``'s trials and finds its bounds again, else
    where it first did otherwise."""
    loads = run.loads
    if not loads:  # files before 2026-12-07: our searches start at the max load
        loads = (default_min_load(run.trial_log[0][1]), run.trial_log[0][1])
    answers = LogAnswers(run.trial_log)
    measurer = WallClockMeasurer(answers)
    goals = make_goals(run.goal_set, strict_final_s)
    outcome = run_algorithm(run.algorithm, measurer, goals, min_load=loads[0], max_load=loads[1])
    if answers.diverged is not None:  # the search ended on it (MeasurerFailedError)
        return f"DIVERGED at {answers.diverged}"
    if answers.asked != len(run.trial_log):
        return f"DIVERGED: ended after {answers.asked} of the log's {len(run.trial_log)} trials"
    found = tuple(goal.lower_bound for goal in outcome.goals)
    if found != run.lower:
        return f"DIVERGED: the same trials, other lower bounds {found} (the run's {run.lower})"
    return "same"


def main(argv: Sequence[str] | None = None) -> int:
    """Replay every search of ours in the file; 1 when one diverged."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("rows", type=Path, help="a benchmarks.real_dut --json file")
    parser.add_argument(
        "--strict-final", type=float, default=10.0, help="the run's strict final trial [s]"
    )
    args = parser.parse_args(argv)
    runs = [Run.from_json(row) for row in json.loads(args.rows.read_text())]
    ours = [run for run in runs if run.algorithm in OUR_SEARCHERS]
    if not ours:
        print(f"{args.rows}: no search of ours to replay", file=sys.stderr)
        return 1
    diverged = 0
    for run in ours:
        said = replay(run, args.strict_final)
        diverged += said != "same"
        print(f"{run.topology} {run.goal_set} run {run.run + 1} {run.algorithm}: {said}")
    print(f"{len(ours) - diverged} of {len(ours)} searches the same")
    return int(bool(diverged))


if __name__ == "__main__":
    raise SystemExit(main())
