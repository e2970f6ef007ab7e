"""Text report of efficiency rows: per-model tables, ratio lines, verdicts."""

from __future__ import annotations

import dataclasses
import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from statistics import fmean

from benchmarks.goalsets import GOAL_LABELS
from benchmarks.runner import MLR_INTERMEDIATE, MLRSEARCH, Row
from benchmarks.scoring import (
    AccuracyTie,
    mean_abs,
    median,
    within_one_width_below,
    worst,
)
from benchmarks.targets import (
    WORST_ERROR_SLACK,
    binary_ratio_target,
    mlrsearch_ratio_target,
    verdict,
)

Key = tuple[str, str, float]
"""(goal set, model, final trial duration [s])."""

MLRSEARCH_LABEL = "MLRsearch 1.2.1"


def display_name(algorithm: str) -> str:
    """How an algorithm is named in tables and ratio lines."""
    return MLRSEARCH_LABEL if algorithm == MLRSEARCH else algorithm


def group(rows: Iterable[Row]) -> dict[Key, dict[str, list[Row]]]:
    """Rows by (goal set, model, final duration), then by algorithm, seed order."""
    grouped: dict[Key, dict[str, list[Row]]] = defaultdict(lambda: defaultdict(list))
    for row in sorted(rows, key=lambda r: r.case.seed):
        key = (row.case.goal_set, row.case.model, row.case.final_duration_s)
        grouped[key][row.algorithm].append(row)
    return grouped


@dataclasses.dataclass(frozen=True)
class Summary:
    """Medians over seeds of one algorithm on one (goal set, model, duration)."""

    runs: int
    time_s: float
    trials: float
    full_trials: float
    middle_trials: float
    error_median: tuple[float, ...]
    error_worst: tuple[float, ...]
    irregular: int

    @staticmethod
    def of(rows: Sequence[Row]) -> Summary:
        """Summarize the per-seed rows of one algorithm."""
        goal_count = len(rows[0].errors) if rows else 0
        return Summary(
            runs=len(rows),
            time_s=median(row.outcome.simulated_time_s for row in rows),
            trials=median(float(row.outcome.trial_count) for row in rows),
            full_trials=fmean(row.full_trials for row in rows),
            middle_trials=fmean(row.middle_trials for row in rows),
            error_median=tuple(median(row.errors[i] for row in rows) for i in range(goal_count)),
            error_worst=tuple(worst(row.errors[i] for row in rows) for i in range(goal_count)),
            irregular=sum(
                1
                for row in rows
                if row.outcome.note or any(goal.lower_bound is None for goal in row.outcome.goals)
            ),
        )


def _percent(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value * 100:+.2f}%"


def _seconds(value: float) -> str:
    return f"{value:g} s"


def table(key: Key, by_algorithm: dict[str, list[Row]], algorithms: Sequence[str]) -> list[str]:
    """A per-model, per-duration table of medians over seeds."""
    goal_set, model, duration = key
    seeds = max((len(rows) for rows in by_algorithm.values()), default=0)
    header = f"{'algorithm':<16} {'time[s]':>9} {'trials':>7} {'full':>5} {'mid':>5}"
    for label in GOAL_LABELS:
        header += f" {label + ' err med':>12} {label + ' err worst':>14}"
    header += f" {'irregular':>9}"
    lines = [
        f"-- {goal_set} goals, model {model}, final trial duration {_seconds(duration)} "
        f"(medians over {seeds} seeds; full / mid: mean count of full-length and "
        "intermediate-duration trials) --",
        header,
    ]
    for algorithm in algorithms:
        rows = by_algorithm.get(algorithm, [])
        if not rows:
            lines.append(f"{display_name(algorithm):<16} (not run)")
            continue
        summary = Summary.of(rows)
        line = (
            f"{display_name(algorithm):<16} {summary.time_s:>9.1f} {summary.trials:>7.1f} "
            f"{summary.full_trials:>5.2f} {summary.middle_trials:>5.2f}"
        )
        for med, bad in zip(summary.error_median, summary.error_worst, strict=True):
            line += f" {_percent(med):>12} {_percent(bad):>14}"
        line += f" {summary.irregular:>9d}"
        lines.append(line)
    return lines


class Verdicts:
    """Collects PASS/FAIL verdicts for the final summary."""

    def __init__(self) -> None:
        self.passed = 0
        self.failed: list[str] = []

    def judge(self, ok: bool, line: str) -> str:
        """Record a verdict for ``line``; return the line with PASS/FAIL appended."""
        text = f"{line}: {verdict(ok)}"
        if ok:
            self.passed += 1
        else:
            self.failed.append(text)
        return text

    def summary(self) -> list[str]:
        """Closing lines: counts and every failed target."""
        lines = [f"targets: {self.passed} PASS, {len(self.failed)} FAIL"]
        lines.extend(f"  {text}" for text in self.failed)
        return lines


def _time_median(rows: Sequence[Row]) -> float:
    return median(row.outcome.simulated_time_s for row in rows)


def seed_ratios(ours: Sequence[Row], theirs: Sequence[Row]) -> list[float]:
    """time(ours) / time(theirs) per seed both ran, in seed order."""
    their_times = {row.case.seed: row.outcome.simulated_time_s for row in theirs}
    return [
        row.outcome.simulated_time_s / their_times[row.case.seed]
        for row in ours
        if their_times.get(row.case.seed, 0.0) > 0.0
    ]


def mlrsearch_ratio_line(
    key: Key,
    by_algorithm: dict[str, list[Row]],
    verdicts: Verdicts,
    missing: str | None,
    algorithm: str = "mlr",
) -> str:
    """time(``algorithm``)/time(MLRsearch 1.2.1) for one (goal set, model,
    duration): the median of the per-seed ratios (judged), its 90th
    percentile and worst, and the ratio of the median times."""
    goal_set, model, duration = key
    head = f"time({algorithm})/time({MLRSEARCH_LABEL}) {goal_set} {model} {_seconds(duration)}:"
    ours, theirs = by_algorithm.get(algorithm, []), by_algorithm.get(MLRSEARCH, [])
    ratios = sorted(seed_ratios(ours, theirs))
    if not ratios:
        why = missing or "not run"
        return f"{head} n/a ({why})"
    ratio = median(ratios)
    p90 = ratios[max(0, math.ceil(0.9 * len(ratios)) - 1)]
    target = mlrsearch_ratio_target(goal_set, model)
    line = (
        f"{head} {ratio:.3f} (median of {len(ratios)} per-seed ratios; p90 {p90:.2f}, "
        f"worst {ratios[-1]:.2f}; ratio of medians {_time_median(ours):.1f} s / "
        f"{_time_median(theirs):.1f} s) target <= {target:g}"
    )
    return verdicts.judge(ratio <= target, line)


def binary_ratio_line(key: Key, by_algorithm: dict[str, list[Row]], verdicts: Verdicts) -> str:
    """time(mlr)/time(binary) for one (goal set, model, duration).

    Binary's time covers both goals: our engine runs one binary search for
    NDR, then one for PDR, in the same call.
    """
    goal_set, model, duration = key
    head = f"time(mlr)/time(binary) {goal_set} {model} {_seconds(duration)}:"
    ours, theirs = by_algorithm.get("mlr", []), by_algorithm.get("binary", [])
    if not ours or not theirs:
        return f"{head} n/a (not run)"
    ratio = _time_median(ours) / _time_median(theirs)
    line = (
        f"{head} {ratio:.3f} (ratio of medians: {_time_median(ours):.1f} s / "
        f"{_time_median(theirs):.1f} s; binary = NDR + PDR searches)"
    )
    target = binary_ratio_target(goal_set, model, duration)
    if target is None:
        return line
    return verdicts.judge(ratio <= target, f"{line} target <= {target:g}")


def accuracy_line(
    goal_set: str,
    model: str,
    rows_by_algorithm: dict[str, list[Row]],
    verdicts: Verdicts,
    algorithm: str = "mlr",
) -> str:
    """The accuracy check of ``algorithm`` (mlr unless told) on one model (all
    durations of the goal set).

    Deterministic models: every mlr lower bound must lie within one goal
    width below the truth and never above it; violations are counted.
    Noisy models: mlr's mean and worst |error| against MLRsearch's, judged
    by the tie rule (``scoring.AccuracyTie``), seed by seed.
    """
    ours = rows_by_algorithm.get(algorithm, [])
    head = f"accuracy {goal_set} {model}" + ("" if algorithm == "mlr" else f" {algorithm}")
    if not ours:
        return f"{head}: n/a ({algorithm} not run)"
    goal_count = len(ours[0].errors)
    if all(row.deterministic for row in ours):
        per_goal = [
            sum(
                1
                for row in ours
                if not within_one_width_below(
                    row.outcome.goals[i].lower_bound, row.truths[i], row.widths[i]
                )
            )
            for i in range(goal_count)
        ]
        detail = ", ".join(f"{GOAL_LABELS[i]} {count}" for i, count in enumerate(per_goal))
        line = (
            f"{head} (deterministic): {algorithm} lower bounds outside "
            "[truth x (1 - width), truth]: "
            f"{sum(per_goal)} of {len(ours) * goal_count} ({detail})"
        )
        return verdicts.judge(sum(per_goal) == 0, line)
    theirs = rows_by_algorithm.get(MLRSEARCH, [])
    parts = []
    no_worse = True
    for i in range(goal_count):
        if theirs:
            tie = _tie(ours, theirs, i)
            no_worse = no_worse and tie.no_worse
            parts.append(
                f"{GOAL_LABELS[i]} |err| mean {tie.ours_mean:.2%} vs {tie.their_mean:.2%} "
                f"(paired difference {tie.difference * 100:+.2f} +- "
                f"{tie.half_width * 100:.2f} points), "
                f"worst {tie.ours_worst:.2%} vs {tie.their_worst:.2%}"
            )
        else:
            ours_mean = mean_abs(row.errors[i] for row in ours)
            ours_worst = abs(worst(row.errors[i] for row in ours))
            parts.append(f"{GOAL_LABELS[i]} |err| mean {ours_mean:.2%}, worst {ours_worst:.2%}")
    versus = f" ({algorithm} vs {MLRSEARCH_LABEL})" if theirs else f" ({MLRSEARCH_LABEL} missing)"
    line = f"{head} (noisy){versus}: " + "; ".join(parts)
    if not theirs:
        return line
    target = (
        "target: the paired 95 % interval of the mean difference not wholly above 0, "
        f"worst at most {WORST_ERROR_SLACK * 100:g} points worse"
    )
    return verdicts.judge(no_worse, f"{line}; {target}")


def intermediate_line(key: Key, by_algorithm: dict[str, list[Row]]) -> str:
    """What intermediate trials cost and gain on one (goal set, model, duration):
    mlr with them (``MLR_INTERMEDIATE``) against mlr without, seed by seed
    (each seed one DUT both face). Reported, not judged."""
    goal_set, model, duration = key
    head = f"intermediate trials {goal_set} {model} {_seconds(duration)}:"
    ours, plain = by_algorithm.get(MLR_INTERMEDIATE, []), by_algorithm.get("mlr", [])
    ratios = seed_ratios(ours, plain)
    if not ratios:
        return f"{head} n/a (needs mlr and {MLR_INTERMEDIATE})"
    plain_time = {row.case.seed: row.outcome.simulated_time_s for row in plain}
    extra = median(
        row.outcome.simulated_time_s - plain_time[row.case.seed]
        for row in ours
        if row.case.seed in plain_time
    )
    middle = fmean(row.middle_trials for row in ours)
    parts = [
        f"time x{median(ratios):.3f} (median per-seed ratio to mlr; median {extra:+.1f} s, "
        f"{middle:.2f} intermediate trials)"
    ]
    for i, label in enumerate(GOAL_LABELS[: len(ours[0].errors)]):
        tie = _tie(ours, plain, i)
        parts.append(
            f"{label} |err| mean {tie.ours_mean:.2%} vs {tie.their_mean:.2%} "
            f"({tie.difference * 100:+.2f} +- {tie.half_width * 100:.2f} points), "
            f"worst {tie.ours_worst:.2%} vs {tie.their_worst:.2%}"
        )
    return f"{head} " + "; ".join(parts)


def _tie(ours: Sequence[Row], theirs: Sequence[Row], goal: int) -> AccuracyTie:
    """The tie rule on goal ``goal``'s (our error, their error) of every case both ran, each
    seed's durations one sample of the paired difference (they face one DUT)."""
    their_error = {row.case: row.errors[goal] for row in theirs}
    both = [row for row in ours if row.case in their_error]
    return AccuracyTie.of(
        [(row.errors[goal], their_error[row.case]) for row in both],
        WORST_ERROR_SLACK,
        seeds=[row.case.seed for row in both],
    )
