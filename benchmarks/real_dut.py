"""Our search beside MLRsearch 1.2.1 on a real data plane: the lab in a box, in turn.

Run as root with TRex v3.08 in /opt/trex/v3.08, VPP v26.06 in
/opt/vpp/v26.06 (``../shared/trex/install``, ``../shared/vpp/install``)
and MLRsearch 1.2.1 (the ``bench`` extra):

    python3 -m benchmarks.real_dut [--topology T ...] [--runs 5] [--goal-sets csit,strict]
        [--strict-final 10] [--ours mlr,mlr-intermediate] [--json OUT]

Per topology (default: ``labbox-2n.yaml``, the Linux kernel forwarding;
``labbox-2n-vpp.yaml``, VPP on af_packet; ``labbox-2n-vpp-memif.yaml``,
TRex's DPDK path over memif to VPP) the lab in a box is set up once: the
DUT configured for ethip4-ip4base, the TRex TG at 64 B in both directions,
its max load calibrated once (as ``ndrpdr search`` does). A testbed that
fails (a VPP this CPU cannot run) is named and skipped, the next one still
runs; the rows so far are kept, written and tabled.
Then, ``--runs`` times and for each goal set (``benchmarks.goalsets``:
CSIT's defaults, and RFC 2544 strict with ``--strict-final`` s final
trials), our engine (``mlr``; with ``--ours`` also or instead ``mlr`` with
intermediate trials) and MLRsearch 1.2.1 search the same loads through the
same TG measurer, in an order that turns by one each run (with two: the one
first went second the run before), so a busy spell on the shared machine
falls on each alike. The real DUT is
the model no one tuned to: there is no truth, only each search's time
(wall seconds, TRex's start and stop around every trial included), trials
and bounds, and their spread over the runs.

Exit status 1 when a search failed, lacked a bound, or found NDR > PDR.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from benchmarks.clocked import WallClockMeasurer
from benchmarks.dut_compare import kpps
from benchmarks.goalsets import GOAL_LABELS, GOAL_SET_NAMES, check_goal_set, make_goals
from benchmarks.outcome import SearchOutcome
from benchmarks.runner import MLR_INTERMEDIATE, MLRSEARCH, mlrsearch_problem, run_algorithm
from ndrpdr.activebed.testbed import ActiveTestbed
from ndrpdr.errors import NdrPdrError
from ndrpdr.families import get_family, profile_of
from ndrpdr.profiles import parse_frame_size
from ndrpdr.search.trial import Measurer, TrialResult
from ndrpdr.searchlimits import default_min_load
from ndrpdr.topology.loader import load_topology
from ndrpdr.trafficgen.calibrate import calibrate_max_load

ROOT = Path(__file__).resolve().parent.parent
TOPOLOGIES = (
    "topologies/labbox-2n.yaml",
    "topologies/labbox-2n-vpp.yaml",
    "topologies/labbox-2n-vpp-memif.yaml",
)
PROFILE = "ethip4-ip4base"
FRAME_SIZE = "64"
OURS = "mlr"
#: Each searcher's label, in the order of the table.
LABELS: dict[str, str] = {
    OURS: "ndrpdr mlr",
    MLR_INTERMEDIATE: "ndrpdr mlr, intermediate trials",
    MLRSEARCH: "MLRsearch 1.2.1",
}
#: What ``--ours`` may name: our search, as it is or with intermediate trials.
OUR_SEARCHERS = (OURS, MLR_INTERMEDIATE)


@dataclasses.dataclass(frozen=True)
class Run:
    """One search on the real DUT: where, which, its time, trials and bounds [frames/s]."""

    topology: str
    goal_set: str
    algorithm: str
    run: int
    wall_s: float
    trials: int
    trial_s: float
    lower: tuple[float | None, ...]
    upper: tuple[float | None, ...]
    note: str = ""
    trial_log: tuple[tuple[float, ...], ...] = ()
    """Every trial in order: (duration [s], load, offered frames, lost frames, intended
    frames, effective duration [s]) (files before 2026-12-07: the first four)."""
    loads: tuple[float, ...] = ()
    """The search's (min load, max load) [frames/s] (files before 2026-12-07: none)."""

    @property
    def ok(self) -> bool:
        """Every bound found, NDR's lower bound not above PDR's, and no note."""
        ndr, pdr = self.lower
        return not self.note and ndr is not None and pdr is not None and ndr <= pdr

    def to_json(self) -> dict[str, object]:
        """A flat JSON-ready dict."""
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, row: dict[str, Any]) -> Run:
        """The Run ``to_json`` gave ``row`` of."""
        return cls(
            **{
                **row,
                "lower": tuple(row["lower"]),
                "upper": tuple(row["upper"]),
                "trial_log": tuple(tuple(entry) for entry in row["trial_log"]),
                "loads": tuple(row.get("loads", ())),
            }
        )


def order(run: int, ours: Sequence[str] = (OURS,)) -> tuple[str, ...]:
    """``ours`` and MLRsearch in the order they search in run ``run``: turned by one each
    run, so each is first as often (with two: the first goes second next)."""
    names = (*ours, MLRSEARCH)
    turn = run % len(names)
    return names[turn:] + names[:turn]


def from_outcome(
    topology: str,
    goal_set: str,
    algorithm: str,
    run: int,
    outcome: SearchOutcome,
    measurer: WallClockMeasurer,
    loads: tuple[float, float],
) -> Run:
    """The Run of one search's outcome over ``measurer`` (which kept its trials) between
    ``loads``."""
    return Run(
        topology=topology,
        goal_set=goal_set,
        algorithm=algorithm,
        run=run,
        wall_s=outcome.simulated_time_s,
        trials=outcome.trial_count,
        trial_s=sum(trial.duration for trial in measurer.trials),
        lower=tuple(goal.lower_bound for goal in outcome.goals),
        upper=tuple(goal.upper_bound for goal in outcome.goals),
        note=outcome.note,
        trial_log=tuple(
            (
                trial.duration,
                trial.load,
                trial.offered_count,
                trial.loss_count or 0.0,
                trial.intended_count or 0.0,
                trial.effective_seconds,
            )
            for trial in measurer.trials
        ),
        loads=loads,
    )


def search_in_turn(
    tg: Measurer,
    topology: str,
    goal_sets: Sequence[str],
    runs: int,
    loads: tuple[float, float],
    strict_final_s: float,
    said: Callable[[Run], None] = lambda _run: None,
    heard: Callable[[TrialResult], None] | None = None,
    ours: Sequence[str] = (OURS,),
) -> list[Run]:
    """Every run, goal set and algorithm (``ours`` and MLRsearch) over ``tg``, in turn
    (``order``); ``said`` hears of each search as it ends, ``heard`` of each trial."""
    done: list[Run] = []
    for run in range(runs):
        for goal_set in goal_sets:
            goals = make_goals(goal_set, strict_final_s)
            for algorithm in order(run, ours):
                measurer = WallClockMeasurer(tg, heard=heard)
                outcome = run_algorithm(
                    algorithm, measurer, goals, min_load=loads[0], max_load=loads[1]
                )
                done.append(
                    from_outcome(topology, goal_set, algorithm, run, outcome, measurer, loads)
                )
                said(done[-1])
    return done


def on_testbed(
    path: str,
    goal_sets: Sequence[str],
    runs: int,
    strict_final_s: float,
    said: Callable[[Run], None] = lambda _run: None,
    heard: Callable[[TrialResult], None] | None = None,
    ours: Sequence[str] = (OURS,),
) -> None:
    """Set up the testbed of ``path``, calibrate its TG's max load, search in turn (``ours``
    and MLRsearch); ``said`` hears of each search as it ends (so a testbed that fails later
    loses none), ``heard`` of each trial."""
    topology = load_topology(ROOT / path)
    profile, frame_size = profile_of(PROFILE), parse_frame_size(FRAME_SIZE)
    with ActiveTestbed(topology) as testbed:
        testbed.configure_family(get_family(profile.name), max_frame_size_b=int(FRAME_SIZE))
        tg = testbed.traffic_generator(profile, frame_size, bidirectional=True)
        cap = calibrate_max_load(tg, tg.max_load_pps, 1.0)
        high = cap.max_load_pps
        loads = (default_min_load(high), high)
        print(f"{path}: {cap.describe()}; loads {loads[0]:.6g} to {high:.6g} pps", flush=True)
        search_in_turn(
            tg, Path(path).stem, goal_sets, runs, loads, strict_final_s, said, heard, ours
        )


class _Dots:
    """A real search takes minutes: a dot per trial on the console while it runs, the line
    ended before the next one is printed."""

    def __init__(self) -> None:
        self.open_line = False

    def trial(self, _trial: TrialResult) -> None:
        """One more dot."""
        print(".", end="", flush=True)
        self.open_line = True

    def end_line(self) -> None:
        """End the line of dots, if one is open."""
        if self.open_line:
            print()
            self.open_line = False


def _print_run(run: Run) -> None:
    bounds = ", ".join(
        f"{label} {kpps(low)} kpps" for label, low in zip(GOAL_LABELS, run.lower, strict=True)
    )
    note = f" ({run.note})" if run.note else ""
    print(
        f"{run.topology} {run.goal_set} run {run.run + 1} {run.algorithm}: {run.wall_s:.1f} s, "
        f"{run.trials} trials ({run.trial_s:.0f} s of traffic), {bounds}{note}",
        flush=True,
    )


def _spread(values: Sequence[float]) -> str:
    """Median [min-max] of ``values``."""
    return f"{statistics.median(values):.1f} [{min(values):.1f}-{max(values):.1f}]"


def _bound_spread(values: Sequence[float | None]) -> str:
    """Median [min-max] kpps and the range over the median, or '-' when one is missing."""
    if not values or any(value is None for value in values):
        return "-"
    known = [float(value) / 1000 for value in values if value is not None]
    middle = statistics.median(known)
    share = (max(known) - min(known)) / middle * 100 if middle > 0 else 0.0
    return f"{_spread(known)} {share:.1f} %"


def table(runs: Sequence[Run]) -> list[str]:
    """Per topology, goal set and algorithm: medians and ranges; then each of ours over
    MLRsearch's."""
    lines = [
        "topology / goals / search: runs, wall s, traffic s, trials, NDR kpps, PDR kpps "
        "(median [min-max], range / median)"
    ]
    keys = dict.fromkeys((run.topology, run.goal_set) for run in runs)
    for topology, goal_set in keys:
        medians: dict[str, float] = {}
        for algorithm, label in LABELS.items():
            chosen = [
                r
                for r in runs
                if (r.topology, r.goal_set, r.algorithm) == (topology, goal_set, algorithm)
            ]
            if not chosen:
                continue
            medians[algorithm] = statistics.median(r.wall_s for r in chosen)
            bounds = "; ".join(
                f"{goal} {_bound_spread([r.lower[index] for r in chosen])}"
                for index, goal in enumerate(GOAL_LABELS)
            )
            failed = sum(not r.ok for r in chosen)
            lines.append(
                f"{topology} / {goal_set} / {label}: {len(chosen)} runs"
                f"{f' ({failed} failed)' if failed else ''}, "
                f"{_spread([r.wall_s for r in chosen])} s, "
                f"{_spread([r.trial_s for r in chosen])} s of traffic, "
                f"{_spread([float(r.trials) for r in chosen])} trials, {bounds}"
            )
        for ours in OUR_SEARCHERS:
            if ours not in medians or not medians.get(MLRSEARCH):
                continue
            paired = paired_ratios(
                [r for r in runs if (r.topology, r.goal_set) == (topology, goal_set)], ours
            )
            each = f"; per run: {', '.join(f'{ratio:.2f}' for ratio in paired)}" if paired else ""
            name = "ours" if ours == OURS else ours
            lines.append(
                f"{topology} / {goal_set}: {name} / MLRsearch median wall time "
                f"{medians[ours] / medians[MLRSEARCH]:.2f}{each}"
            )
    return lines


def _write(path: Path, runs: Sequence[Run]) -> None:
    """Every search's row to ``path`` (whole: written aside, then renamed over it)."""
    aside = path.with_name(f".{path.name}.tmp")
    aside.write_text(json.dumps([run.to_json() for run in runs], indent=1))
    aside.replace(path)


def paired_ratios(runs: Sequence[Run], ours: str = OURS) -> list[float]:
    """``ours``'s over MLRsearch's wall time, run by run (both searched, one after the other),
    in run order: the machine's drift between runs cancels in each."""
    walls = {(r.run, r.algorithm): r.wall_s for r in runs}
    return [
        walls[(run, ours)] / walls[(run, MLRSEARCH)]
        for run in sorted({r.run for r in runs})
        if (run, ours) in walls and walls.get((run, MLRSEARCH))
    ]


def main(argv: Sequence[str] | None = None) -> int:
    """Search on each topology in turn, print every search and the table; 1 on a failure."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument(
        "--topology", action="append", help=f"repeat for more (default {', '.join(TOPOLOGIES)})"
    )
    parser.add_argument("--runs", type=int, default=5, help="searches per algorithm, goal set")
    parser.add_argument(
        "--goal-sets", default=",".join(GOAL_SET_NAMES), help="comma-separated goal sets"
    )
    parser.add_argument(
        "--strict-final", type=float, default=10.0, help="strict goals' final trial [s]"
    )
    parser.add_argument(
        "--ours",
        default=OURS,
        help=f"comma-separated: which of {', '.join(OUR_SEARCHERS)} search beside MLRsearch "
        f"(default {OURS})",
    )
    parser.add_argument("--json", type=Path, default=None, help="every search's row")
    parser.add_argument(
        "--table-of", type=Path, default=None, help="print the table of a --json file; run nothing"
    )
    args = parser.parse_args(argv)
    if args.table_of is not None:
        saved = [Run.from_json(row) for row in json.loads(args.table_of.read_text())]
        for line in table(saved):
            print(line)
        return int(not saved or any(not run.ok for run in saved))
    problem = mlrsearch_problem()
    if problem is not None:
        print(f"benchmarks.real_dut: {problem}", file=sys.stderr)
        return 1
    goal_sets = [name.strip() for name in args.goal_sets.split(",") if name.strip()]
    ours = [name.strip() for name in args.ours.split(",") if name.strip()]
    try:  # before any testbed is set up
        for name in goal_sets:
            check_goal_set(name)
        unknown = [name for name in ours if name not in OUR_SEARCHERS]
        if unknown or not ours or len(set(ours)) != len(ours):
            raise ValueError(
                f"--ours {args.ours!r}: name each of {', '.join(OUR_SEARCHERS)} at most once"
            )
        if args.runs < 1 or not goal_sets:
            raise ValueError(f"--runs {args.runs} --goal-sets {args.goal_sets!r}: nothing to run")
    except ValueError as exc:
        parser.error(str(exc))
    started = time.monotonic()
    runs: list[Run] = []
    failed: list[str] = []

    dots = _Dots()

    def said(run: Run) -> None:
        runs.append(run)
        dots.end_line()
        _print_run(run)
        if args.json is not None:  # after every search: a kill loses none of them
            _write(args.json, runs)

    try:
        for path in args.topology or TOPOLOGIES:
            try:
                on_testbed(path, goal_sets, args.runs, args.strict_final, said, dots.trial, ours)
            except NdrPdrError as exc:  # the next testbed may run (a VPP this CPU cannot)
                dots.end_line()
                failed.append(path)
                print(f"{path}: {exc}", file=sys.stderr, flush=True)
    finally:  # what was measured stays, also when a testbed failed
        if args.json is not None:
            _write(args.json, runs)
        print(
            f"\n{PROFILE} {FRAME_SIZE}B both directions, strict final trials "
            f"{args.strict_final:g} s, {time.monotonic() - started:.0f} s in all:"
        )
        for line in table(runs):
            print(line)
        for path in failed:
            print(f"{path}: FAILED (its error is above)")
    return int(bool(failed) or not runs or any(not run.ok for run in runs))


if __name__ == "__main__":
    raise SystemExit(main())
