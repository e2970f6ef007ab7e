"""Controller overhead benchmark: CPU time per trial, mlr vs MLRsearch 1.2.1.

For each search: process time of the whole search minus the process time
spent inside measure() (the simulator's own work), divided by the trial
count. Both controllers run in this one process over the same simulated
models and seeds; medians over searches are compared against the targets
(ours <= 1 ms per trial and below MLRsearch 1.2.1's). Targets are reported,
not asserted: the exit code is 0 unless something raised.

Run: PYTHONPATH=libraries:. python benchmarks/overhead.py [options]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.cli import add_simulation_options, resolve_simulation_options
from benchmarks.goalsets import final_durations
from benchmarks.report import Verdicts, display_name
from benchmarks.runner import MLRSEARCH, Case, Row, mlrsearch_problem, run_case
from benchmarks.scoring import median
from benchmarks.targets import CONTROLLER_CPU_PER_TRIAL_S

OURS = "mlr"
QUICK_MODELS = ("sharp", "transient")
QUICK_SEEDS = 2
DEFAULT_SEEDS = 5
DEFAULT_DURATION_S = 30.0
DEFAULT_OVERHEAD_S = 0.5


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """Parse the command line; --quick fills in whatever was not given."""
    parser = argparse.ArgumentParser(
        prog="overhead.py",
        description=(
            "Controller CPU time per trial (median over searches) of mlr and "
            "MLRsearch 1.2.1 over the same simulated DUT models."
        ),
        epilog=(
            "Controller CPU = process time of the search minus process time inside "
            f"measure(). Targets: mlr <= {CONTROLLER_CPU_PER_TRIAL_S * 1e3:g} ms per trial "
            "and below MLRsearch 1.2.1's. Exit code 0 unless an error occurs."
        ),
    )
    add_simulation_options(
        parser, default_seeds=DEFAULT_SEEDS, default_overhead_s=DEFAULT_OVERHEAD_S
    )
    parser.add_argument(
        "--duration",
        type=float,
        default=DEFAULT_DURATION_S,
        help=f"final trial duration [s] of the strict goals (default {DEFAULT_DURATION_S:g})",
    )
    parser.add_argument("--json", type=Path, metavar="PATH", help="write every per-search row here")
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"smoke test: models {','.join(QUICK_MODELS)}, {QUICK_SEEDS} seeds",
    )
    args = parser.parse_args(argv)
    resolve_simulation_options(
        parser,
        args,
        quick_models=QUICK_MODELS,
        quick_seeds=QUICK_SEEDS,
        default_seeds=DEFAULT_SEEDS,
    )
    if args.seeds < 1 or args.duration <= 0:
        parser.error("--seeds must be >= 1 and --duration > 0")
    return args


def _per_trial_ms(rows: Sequence[Row]) -> float:
    """Median over searches of controller CPU per trial [ms]."""
    return median(row.outcome.controller_cpu_per_trial_s * 1e3 for row in rows)


def run_all(args: argparse.Namespace, algorithms: Sequence[str]) -> list[Row]:
    """Every search, serially in this process (CPU time is per process)."""
    cases = [
        Case(goal_set, model, duration, seed, args.overhead)
        for goal_set in args.goal_sets
        for model in args.models
        for duration in final_durations(goal_set, (args.duration,))
        for seed in range(args.seeds)
    ]
    for algorithm in algorithms:  # warm caches and lazy imports; not counted
        run_case(cases[0], algorithm)
    rows: list[Row] = []
    started = time.monotonic()
    for done, case in enumerate(cases, start=1):
        rows.extend(run_case(case, algorithm) for algorithm in algorithms)
        if done % max(1, len(cases) // 10) == 0 or done == len(cases):
            elapsed = time.monotonic() - started
            print(f"[overhead] {done}/{len(cases)} cases, {elapsed:.0f} s", file=sys.stderr)
    return rows


def report(rows: Sequence[Row], algorithms: Sequence[str], missing: str | None) -> list[str]:
    """Per-model medians, the overall line, the ratio line and the verdicts."""
    names = [display_name(algorithm) for algorithm in algorithms]
    lines = [
        "controller CPU time per trial [ms] = (process time of the search - process time "
        "inside measure()) / trials; medians over searches",
        f"{'goal set':<8} {'model':<10} " + " ".join(f"{name:>16}" for name in names),
    ]
    keys = sorted({(row.case.goal_set, row.case.model) for row in rows})
    for goal_set, model in keys:
        cells = []
        for algorithm in algorithms:
            subset = [
                row
                for row in rows
                if row.algorithm == algorithm
                and (row.case.goal_set, row.case.model) == (goal_set, model)
            ]
            cells.append(f"{_per_trial_ms(subset):>16.3f}")
        lines.append(f"{goal_set:<8} {model:<10} " + " ".join(cells))
    ours = [row for row in rows if row.algorithm == OURS]
    theirs = [row for row in rows if row.algorithm == MLRSEARCH]
    ours_ms = _per_trial_ms(ours)
    verdicts = Verdicts()
    lines.append("")
    if theirs:
        theirs_ms = _per_trial_ms(theirs)
        lines.append(
            f"controller CPU per trial (median over {len(ours)} searches each): "
            f"mlr {ours_ms:.3f} ms, {display_name(MLRSEARCH)} {theirs_ms:.3f} ms"
        )
        lines.append(
            f"ratio cpu(mlr)/cpu({display_name(MLRSEARCH)}) per trial: {ours_ms / theirs_ms:.3f}"
        )
    else:
        lines.append(
            f"controller CPU per trial (median over {len(ours)} searches): mlr {ours_ms:.3f} ms"
        )
        lines.append(
            f"ratio cpu(mlr)/cpu({display_name(MLRSEARCH)}) per trial: n/a ({missing or 'not run'})"
        )
    limit_ms = CONTROLLER_CPU_PER_TRIAL_S * 1e3
    lines.append(verdicts.judge(ours_ms <= limit_ms, f"target mlr <= {limit_ms:g} ms per trial"))
    if theirs:
        lines.append(
            verdicts.judge(
                ours_ms < _per_trial_ms(theirs),
                f"target mlr below {display_name(MLRSEARCH)}",
            )
        )
    return [*lines, "", *verdicts.summary()]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; print the report to stdout and progress to stderr."""
    args = parse_args(argv)
    algorithms: tuple[str, ...] = (OURS, MLRSEARCH)
    missing = mlrsearch_problem()
    if missing and "cannot be imported" in missing:
        algorithms = (OURS,)
        print(f"[overhead] {missing}: running without it", file=sys.stderr)
    elif missing:
        print(f"[overhead] warning: {missing}", file=sys.stderr)
        missing = None
    rows = run_all(args, algorithms)
    if missing:
        print(f"NOTE: {missing}: the {display_name(MLRSEARCH)} column is missing")
    print("\n".join(report(rows, algorithms, missing)))
    if args.json is not None:
        payload = {"rows": [row.to_json() for row in rows], "mlrsearch_missing": missing}
        args.json.write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
