"""Search efficiency benchmark: simulated search time, trials and accuracy.

For each DUT model x final trial duration x seed x algorithm x goal set,
run one search over the simulator and compare: simulated search time
(trial durations plus per-trial overhead), trial count, and the NDR / PDR
lower bounds against the model's truth at the final trial duration. Prints
tables of medians over seeds, the time ratios of mlr against MLRsearch
1.2.1 and against binary search, an accuracy check per model, and PASS/FAIL
against the targets (reported, not asserted: the exit code is 0 unless
something raised).

Run: PYTHONPATH=libraries:. python benchmarks/efficiency.py [options]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.cli import add_simulation_options, names, resolve_simulation_options
from benchmarks.goalsets import final_durations, make_goals
from benchmarks.report import (
    Verdicts,
    accuracy_line,
    binary_ratio_line,
    display_name,
    group,
    intermediate_line,
    mlrsearch_ratio_line,
    table,
)
from benchmarks.runner import (
    ALGORITHMS,
    KNOWN_ALGORITHMS,
    MLR_INTERMEDIATE,
    MLRSEARCH,
    Case,
    Row,
    mlrsearch_problem,
    run_case_all,
)

QUICK_MODELS = ("sharp", "transient")
QUICK_DURATIONS = (30.0,)
QUICK_SEEDS = 3
DEFAULT_DURATIONS = (10.0, 30.0, 60.0)
DEFAULT_SEEDS = 100
DEFAULT_OVERHEAD_S = 0.5


def _floats(text: str) -> tuple[float, ...]:
    return tuple(float(part) for part in names(text))


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """Parse the command line; --quick fills in whatever was not given."""
    parser = argparse.ArgumentParser(
        prog="efficiency.py",
        description=(
            "Compare simulated search time, trial count and NDR/PDR accuracy of "
            "mlr, binary, bswlv and MLRsearch 1.2.1 over the simulated DUT models."
        ),
        epilog=(
            "Goal sets: strict = exceed ratio 0, trials 1 s .. D s, duration sum D s; "
            "csit = exceed ratio 0.5, 1 s trials, duration sum 21 s (run once per model). "
            "Both: loss ratios 0 (NDR) and 0.005 (PDR), width 0.005, loads 1e4 .. 29.76e6. "
            "Targets are reported as PASS/FAIL; the exit code is 0 unless an error occurs. "
            "Accuracy on noisy models, the tie rule: mlr is no worse than MLRsearch when "
            "the paired 95 % interval of the difference in mean |error| (ours - MLRsearch's, "
            "seed by seed) does not lie wholly above 0 and its worst |error| is at most 2 "
            "points above MLRsearch's."
        ),
    )
    add_simulation_options(
        parser, default_seeds=DEFAULT_SEEDS, default_overhead_s=DEFAULT_OVERHEAD_S
    )
    parser.add_argument(
        "--durations", type=_floats, help="final trial durations [s], comma list (default 10,30,60)"
    )
    parser.add_argument(
        "--algorithms",
        type=names,
        default=ALGORITHMS,
        help=(
            f"comma list of {', '.join(KNOWN_ALGORITHMS)} (default: all but "
            f"{MLR_INTERMEDIATE}, which is mlr with intermediate trials: "
            "search(..., intermediate_trials=True))"
        ),
    )
    parser.add_argument("--json", type=Path, metavar="PATH", help="write every per-seed row here")
    parser.add_argument(
        "--jobs",
        type=int,
        default=os.cpu_count() or 1,
        help="worker processes (default: CPU count; 1 runs in this process)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help=(
            f"smoke test: models {','.join(QUICK_MODELS)}, duration "
            f"{','.join(f'{d:g}' for d in QUICK_DURATIONS)} s, {QUICK_SEEDS} seeds "
            "(explicit options still win)"
        ),
    )
    args = parser.parse_args(argv)
    resolve_simulation_options(
        parser,
        args,
        quick_models=QUICK_MODELS,
        quick_seeds=QUICK_SEEDS,
        default_seeds=DEFAULT_SEEDS,
    )
    if args.durations is None:
        args.durations = QUICK_DURATIONS if args.quick else DEFAULT_DURATIONS
    for algorithm in args.algorithms:
        if algorithm not in KNOWN_ALGORITHMS:
            parser.error(
                f"unknown algorithm {algorithm!r}; choose from {', '.join(KNOWN_ALGORITHMS)}"
            )
    if args.seeds < 1 or args.jobs < 1 or not args.durations or min(args.durations) <= 0:
        parser.error("--seeds and --jobs must be >= 1 and durations > 0")
    return args


def make_cases(args: argparse.Namespace) -> list[Case]:
    """Every (goal set, model, final duration, seed) the run covers."""
    return [
        Case(goal_set, model, duration, seed, args.overhead)
        for goal_set in args.goal_sets
        for model in args.models
        for duration in final_durations(goal_set, args.durations)
        for seed in range(args.first_seed, args.first_seed + args.seeds)
    ]


def run_all(cases: Sequence[Case], algorithms: Sequence[str], jobs: int) -> list[Row]:
    """Run every algorithm on every case, printing progress to stderr."""
    started = time.monotonic()
    step = max(1, len(cases) // 20)
    rows: list[Row] = []

    def progress(done: int) -> None:
        if done % step == 0 or done == len(cases):
            elapsed = time.monotonic() - started
            print(f"[efficiency] {done}/{len(cases)} cases, {elapsed:.0f} s", file=sys.stderr)

    if jobs == 1:
        for done, case in enumerate(cases, start=1):
            rows.extend(run_case_all(case, algorithms))
            progress(done)
        return rows
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(run_case_all, case, algorithms) for case in cases]
        for done, future in enumerate(as_completed(futures), start=1):
            rows.extend(future.result())
            progress(done)
    return rows


def report(rows: Sequence[Row], args: argparse.Namespace, missing: str | None) -> list[str]:
    """The whole text report."""
    grouped = group(rows)
    verdicts = Verdicts()
    lines = [
        f"efficiency: models {','.join(args.models)}; seeds {args.seeds}; per-trial overhead "
        f"{args.overhead:g} s; algorithms {', '.join(display_name(a) for a in args.algorithms)}",
        "time = simulated search time [s] incl. overhead; err = (lower bound - truth) / truth "
        "at the final trial duration; irregular = runs with a missing bound or an abort",
    ]
    if missing:
        lines.append(f"NOTE: {missing}: the {display_name(MLRSEARCH)} columns are missing")
    for goal_set in args.goal_sets:
        durations = final_durations(goal_set, args.durations)
        ndr, pdr = make_goals(goal_set, durations[0])
        lines += ["", f"== goal set {goal_set}: NDR {ndr.describe()}; PDR {pdr.describe()} =="]
        for model in args.models:
            for duration in durations:
                key = (goal_set, model, duration)
                lines += ["", *table(key, grouped.get(key, {}), args.algorithms)]
        lines += ["", f"-- ratios and accuracy, goal set {goal_set} --"]
        ours = [a for a in ("mlr", MLR_INTERMEDIATE) if a in args.algorithms] or ["mlr"]
        for algorithm in ours:
            for model in args.models:
                for duration in durations:
                    key = (goal_set, model, duration)
                    by_algorithm = grouped.get(key, {})
                    lines.append(
                        mlrsearch_ratio_line(key, by_algorithm, verdicts, missing, algorithm)
                    )
        for model in args.models:
            for duration in durations:
                key = (goal_set, model, duration)
                lines.append(binary_ratio_line(key, grouped.get(key, {}), verdicts))
        if len(ours) == 2:  # mlr with and without intermediate trials
            for model in args.models:
                for duration in durations:
                    key = (goal_set, model, duration)
                    lines.append(intermediate_line(key, grouped.get(key, {})))
        for algorithm in ours:
            for model in args.models:
                merged: dict[str, list[Row]] = {}
                for duration in durations:
                    for name, algo_rows in grouped.get((goal_set, model, duration), {}).items():
                        merged.setdefault(name, []).extend(algo_rows)
                lines.append(accuracy_line(goal_set, model, merged, verdicts, algorithm))
    return [*lines, "", *verdicts.summary()]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; print the report to stdout and progress to stderr."""
    args = parse_args(argv)
    missing = mlrsearch_problem() if MLRSEARCH in args.algorithms else None
    if missing and "cannot be imported" in missing:
        args.algorithms = tuple(a for a in args.algorithms if a != MLRSEARCH)
        print(f"[efficiency] {missing}: running without it", file=sys.stderr)
    elif missing:
        print(f"[efficiency] warning: {missing}", file=sys.stderr)
        missing = None
    cases = make_cases(args)
    started = time.monotonic()
    rows = run_all(cases, args.algorithms, args.jobs)
    print("\n".join(report(rows, args, missing)))
    print(f"[efficiency] done in {time.monotonic() - started:.0f} s", file=sys.stderr)
    if args.json is not None:
        payload = {
            "settings": {
                "models": list(args.models),
                "durations_s": list(args.durations),
                "seeds": args.seeds,
                "overhead_s": args.overhead,
                "goal_sets": list(args.goal_sets),
                "algorithms": list(args.algorithms),
                "mlrsearch_missing": missing,
            },
            "rows": [row.to_json() for row in rows],
        }
        args.json.write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
