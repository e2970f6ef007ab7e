"""Held-out benchmark: the search against MLRsearch 1.2.1 on the ``randomized`` DUT family.

Every seed of the ``randomized`` model (``ndrpdr.simdut.models.randomized``)
draws a DUT of its own: loss-curve shape and sharpness, noise, spells,
interrupts. The seeds are split in two parts: a tuning part (seeds
``--tune-first`` ..) that anyone tuning the search may look at, and a
held-out part (seeds ``--heldout-first`` .., 100000 by default) that no
one should. Both run ``efficiency``'s cases (mlr and MLRsearch 1.2.1, the
CSIT and the strict goal sets, final durations 10, 30 and 60 s for the
strict ones) and are reported side by side, each judged on its own by the
targets (``targets``): time ratio (median per-seed) at most the ceiling,
accuracy no worse than MLRsearch's by the tie rule, per final duration.

Run: PYTHONPATH=libraries:. python benchmarks/heldout.py [--seeds N] [--jobs J]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.cli import names
from benchmarks.efficiency import run_all
from benchmarks.goalsets import GOAL_LABELS, GOAL_SET_NAMES, final_durations
from benchmarks.report import Verdicts, accuracy_line, group, mlrsearch_ratio_line, seed_ratios
from benchmarks.runner import MLR_INTERMEDIATE, MLRSEARCH, Case, Row, mlrsearch_problem
from benchmarks.scoring import AccuracyTie, median
from benchmarks.targets import WORST_ERROR_SLACK, mlrsearch_ratio_target

MODEL = "randomized"
PARTS = ("tuning", "held-out")
DEFAULT_SEEDS = 100
HELDOUT_FIRST_SEED = 100_000
DEFAULT_DURATIONS = (10.0, 30.0, 60.0)
OURS = ("mlr", MLR_INTERMEDIATE)
"""What ``--ours`` takes: the search as it is, or with intermediate trials."""


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(
        prog="heldout.py",
        description=(
            "mlr against MLRsearch 1.2.1 on the randomized DUT family: a tuning part and "
            "a held-out part of seeds, each judged by the efficiency targets."
        ),
    )
    parser.add_argument("--seeds", type=int, default=DEFAULT_SEEDS, help="seeds per part")
    parser.add_argument("--tune-first", type=int, default=0, help="first seed of the tuning part")
    parser.add_argument(
        "--heldout-first",
        type=int,
        default=HELDOUT_FIRST_SEED,
        help=f"first seed of the held-out part (default {HELDOUT_FIRST_SEED})",
    )
    parser.add_argument(
        "--durations",
        type=lambda text: tuple(float(part) for part in names(text)),
        default=DEFAULT_DURATIONS,
        help="final trial durations of the strict goals [s] (default 10,30,60)",
    )
    parser.add_argument("--goal-sets", type=names, default=GOAL_SET_NAMES)
    parser.add_argument("--overhead", type=float, default=0.5, help="per-trial overhead [s]")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument(
        "--ours",
        choices=OURS,
        default="mlr",
        help=f"our search as run (default mlr; {MLR_INTERMEDIATE}: with intermediate trials)",
    )
    parser.add_argument("--json", type=Path, metavar="PATH", help="write every per-seed row here")
    args = parser.parse_args(argv)
    if args.seeds < 1 or args.jobs < 1 or not args.durations or min(args.durations) <= 0:
        parser.error("--seeds and --jobs must be >= 1 and durations > 0")
    if args.tune_first + args.seeds > args.heldout_first:
        parser.error("the tuning part's seeds must all lie below the held-out part's")
    for name in args.goal_sets:
        if name not in GOAL_SET_NAMES:
            parser.error(f"unknown goal set {name!r}; choose from {', '.join(GOAL_SET_NAMES)}")
    return args


def part_cases(args: argparse.Namespace, first_seed: int) -> list[Case]:
    """Every (goal set, duration, seed) of one part."""
    return [
        Case(goal_set, MODEL, duration, seed, args.overhead)
        for goal_set in args.goal_sets
        for duration in final_durations(goal_set, args.durations)
        for seed in range(first_seed, first_seed + args.seeds)
    ]


def _tie(by_algorithm: dict[str, list[Row]], goal: int, ours: str) -> AccuracyTie:
    their = {row.case: row.errors[goal] for row in by_algorithm.get(MLRSEARCH, [])}
    pairs = [
        (row.errors[goal], their[row.case])
        for row in by_algorithm.get(ours, [])
        if row.case in their
    ]
    return AccuracyTie.of(pairs, WORST_ERROR_SLACK)


def table_row(
    part: str, goal_set: str, duration: float, by_algorithm: dict[str, list[Row]], ours: str = "mlr"
) -> str:
    """One line of the summary table: ratio, per-goal accuracy and the verdicts."""
    ratios = sorted(seed_ratios(by_algorithm.get(ours, []), by_algorithm.get(MLRSEARCH, [])))
    ratio = median(ratios) if ratios else math.nan
    target = mlrsearch_ratio_target(goal_set, MODEL)
    cells = [
        f"{part:<8}",
        f"{goal_set:<6}",
        f"{duration:>4g}",
        f"{len(ratios):>5d}",
        f"{ratio:>6.3f}",
        "PASS" if ratio <= target else "FAIL",
    ]
    for goal, _label in enumerate(GOAL_LABELS):
        tie = _tie(by_algorithm, goal, ours)
        cells.append(
            f"{tie.ours_mean:6.2%}/{tie.their_mean:6.2%} "
            f"{tie.ours_worst:6.2%}/{tie.their_worst:6.2%} "
            f"{tie.difference * 100:+.2f}+-{tie.half_width * 100:.2f} "
            + ("PASS" if tie.no_worse else "FAIL")
        )
    return "  ".join(cells)


TABLE_HEAD = (
    "part      goals      D  seeds  ratio  time  "
    "NDR |err| mean ours/MLRs, worst ours/MLRs, paired diff [points], tie  "
    "PDR (same)"
)


def report(rows: Sequence[Row], args: argparse.Namespace) -> list[str]:
    """The summary table, then per part the full ratio and accuracy lines with verdicts."""
    by_part: dict[str, list[Row]] = {part: [] for part in PARTS}
    for row in rows:
        by_part["held-out" if row.case.seed >= args.heldout_first else "tuning"].append(row)
    lines = [
        f"heldout: model {MODEL}; {args.seeds} seeds per part (tuning {args.tune_first}.., "
        f"held-out {args.heldout_first}..); per-trial overhead {args.overhead:g} s; "
        f"ours: {args.ours}; the search was not tuned on this family",
        "",
        TABLE_HEAD,
    ]
    detail: list[str] = []
    for part in PARTS:
        grouped = group(by_part[part])
        verdicts = Verdicts()
        detail += ["", f"== {part} part =="]
        for goal_set in args.goal_sets:
            for duration in final_durations(goal_set, args.durations):
                key = (goal_set, MODEL, duration)
                by_algorithm = grouped.get(key, {})
                lines.append(table_row(part, goal_set, duration, by_algorithm, args.ours))
                detail.append(mlrsearch_ratio_line(key, by_algorithm, verdicts, None, args.ours))
                label = f"{MODEL} {duration:g} s"
                detail.append(accuracy_line(goal_set, label, by_algorithm, verdicts, args.ours))
        detail += [f"{part}: " + verdicts.summary()[0], *verdicts.summary()[1:]]
    return [*lines, *detail]


def main(argv: Sequence[str] | None = None) -> int:
    """Run both parts; print the report to stdout (progress to stderr)."""
    args = parse_args(argv)
    missing = mlrsearch_problem()
    if missing:
        print(f"[heldout] {missing}: MLRsearch is needed for every target", file=sys.stderr)
        return 2
    cases = part_cases(args, args.tune_first) + part_cases(args, args.heldout_first)
    rows = run_all(cases, (args.ours, MLRSEARCH), args.jobs)
    print("\n".join(report(rows, args)))
    if args.json is not None:
        payload = {"heldout_first": args.heldout_first, "rows": [row.to_json() for row in rows]}
        args.json.write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
