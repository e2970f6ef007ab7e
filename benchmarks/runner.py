"""Run one algorithm over one simulated DUT (model, seed) and score it.

Every algorithm of a case gets a fresh model and measurer built from the
same seed, so all of them face the same DUT.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.metadata
import importlib.util
from collections.abc import Sequence

from benchmarks.clocked import ClockedMeasurer
from benchmarks.cputime import CpuTimedMeasurer, run_timed
from benchmarks.goalsets import GOAL_LABELS, MAX_LOAD, MIN_LOAD, make_goals
from benchmarks.outcome import GoalOutcome, SearchOutcome
from benchmarks.scoring import relative_error
from ndrpdr.search import SearchResult, search
from ndrpdr.search.errors import SearchAbortedError
from ndrpdr.search.goal import Goal
from ndrpdr.trafficgen.sim import SimulatedMeasurer, make_model

MLRSEARCH = "mlrsearch-1.2.1"
OUR_ALGORITHMS = ("mlr", "binary", "bswlv")
ALGORITHMS = (*OUR_ALGORITHMS, MLRSEARCH)
"""The algorithms a benchmark runs unless told."""
MLR_INTERMEDIATE = "mlr-intermediate"
"""mlr with ``intermediate_trials=True`` (run only when asked for)."""
KNOWN_ALGORITHMS = (*ALGORITHMS, MLR_INTERMEDIATE)
MLRSEARCH_VERSION = "1.2.1"


def mlrsearch_problem() -> str | None:
    """Why the MLRsearch runs cannot happen, or None when they can."""
    # Found, not imported: importing MLRsearch takes 2 s (its dataclasses read the call stack),
    # and the tests ask this while pytest collects, in every worker of every phase.
    if importlib.util.find_spec("MLRsearch") is None:
        return "MLRsearch cannot be imported (no module named 'MLRsearch')"
    try:
        version = importlib.metadata.version("MLRsearch")
    except importlib.metadata.PackageNotFoundError:
        return None
    if version != MLRSEARCH_VERSION:
        return f"MLRsearch {version} is installed, not {MLRSEARCH_VERSION}"
    return None


_DURATION_SLACK = 1e-6
"""Relative slack when a trial's duration is compared with a goal's durations."""


@dataclasses.dataclass(frozen=True)
class Case:
    """One simulated DUT and one goal set: what every algorithm is run on."""

    goal_set: str
    model: str
    final_duration_s: float
    seed: int
    overhead_s: float


@dataclasses.dataclass(frozen=True)
class Row:
    """One algorithm's search on one case, scored against the model's truth.

    truths: the model's true throughput per goal at the goal's final trial
        duration and loss ratio [frames/s].
    errors: per goal, (lower bound - truth) / truth (-1 when missing).
    widths: per goal, the goal width (relative).
    full_trials / middle_trials: trials at the final trial duration, and
        trials longer than the initial and shorter than the final one
        (MLRsearch's intermediate phases; ours only with intermediate trials).
    """

    case: Case
    algorithm: str
    deterministic: bool
    outcome: SearchOutcome
    truths: tuple[float, ...]
    errors: tuple[float, ...]
    widths: tuple[float, ...]
    full_trials: int = 0
    middle_trials: int = 0

    def to_json(self) -> dict[str, object]:
        """A flat JSON-ready dict (one per-seed row)."""
        row: dict[str, object] = {
            **dataclasses.asdict(self.case),
            "algorithm": self.algorithm,
            "deterministic": self.deterministic,
            "simulated_time_s": self.outcome.simulated_time_s,
            "trial_count": self.outcome.trial_count,
            "full_trials": self.full_trials,
            "middle_trials": self.middle_trials,
            "controller_cpu_s": self.outcome.controller_cpu_s,
            "note": self.outcome.note,
        }
        for index, goal in enumerate(self.outcome.goals):
            label = GOAL_LABELS[index] if index < len(GOAL_LABELS) else f"goal{index}"
            row[label] = {
                "lower_bound": goal.lower_bound,
                "upper_bound": goal.upper_bound,
                "conditional_throughput": goal.conditional_throughput,
                "truth": self.truths[index],
                "relative_error": self.errors[index],
                "width": self.widths[index],
            }
        return row


def run_ours(
    algorithm: str,
    measurer: ClockedMeasurer,
    goals: Sequence[Goal],
    *,
    intermediate_trials: bool = False,
    min_load: float = MIN_LOAD,
    max_load: float = MAX_LOAD,
) -> SearchOutcome:
    """Search ``goals`` with our engine's ``algorithm`` over ``measurer`` (loads [frames/s])."""
    clock_before = measurer.clock_s
    timed = CpuTimedMeasurer(measurer)

    def call(through: CpuTimedMeasurer) -> tuple[SearchResult, str]:
        try:
            found = search(
                through,
                list(goals),
                min_load=min_load,
                max_load=max_load,
                algorithm=algorithm,
                intermediate_trials=intermediate_trials,
            )
        except SearchAbortedError as error:
            return error.partial, f"{type(error).__name__}: {error}"
        return found, ""

    (result, note), cpu_s = run_timed(call, timed)
    return SearchOutcome(
        goals=tuple(
            GoalOutcome(
                lower_bound=goal.lower_bound,
                upper_bound=goal.upper_bound,
                conditional_throughput=goal.conditional_throughput,
            )
            for goal in result.goal_results
        ),
        trial_count=len(result.trials),
        simulated_time_s=measurer.clock_s - clock_before,
        controller_cpu_s=cpu_s,
        note=note,
    )


def run_algorithm(
    algorithm: str,
    measurer: ClockedMeasurer,
    goals: Sequence[Goal],
    *,
    min_load: float = MIN_LOAD,
    max_load: float = MAX_LOAD,
) -> SearchOutcome:
    """Search ``goals`` with ``algorithm`` (ours, MLR_INTERMEDIATE, MLRSEARCH) over ``measurer``,
    loads from ``min_load`` to ``max_load`` [frames/s] (the sim models' range unless given)."""
    if algorithm == MLR_INTERMEDIATE:
        return run_ours(
            "mlr", measurer, goals, intermediate_trials=True, min_load=min_load, max_load=max_load
        )
    if algorithm == MLRSEARCH:
        # Optional dependency: imported only when asked for.
        from benchmarks.mlrsearch_adapter import run_mlrsearch  # noqa: PLC0415

        return run_mlrsearch(measurer, goals, min_load, max_load)
    if algorithm not in OUR_ALGORITHMS:
        raise ValueError(
            f"unknown algorithm {algorithm!r}; choose from {', '.join(KNOWN_ALGORITHMS)}"
        )
    return run_ours(algorithm, measurer, goals, min_load=min_load, max_load=max_load)


def run_case(case: Case, algorithm: str) -> Row:
    """Run ``algorithm`` on a fresh DUT for ``case`` and score its lower bounds."""
    goals = make_goals(case.goal_set, case.final_duration_s)
    model = make_model(case.model, seed=case.seed)
    truths = tuple(
        float(model.true_throughput(goal.final_trial_duration, goal.loss_ratio)) for goal in goals
    )
    measurer = SimulatedMeasurer(model, overhead_s=case.overhead_s, seed=case.seed)
    outcome = run_algorithm(algorithm, measurer, goals)
    final_s = max(goal.final_trial_duration for goal in goals)
    initial_s = min(goal.initial_trial_duration for goal in goals)
    durations = [trial.duration for trial in measurer.trials]
    return Row(
        case=case,
        algorithm=algorithm,
        deterministic=bool(model.deterministic),
        outcome=outcome,
        truths=truths,
        errors=tuple(
            relative_error(goal.lower_bound, truth)
            for goal, truth in zip(outcome.goals, truths, strict=True)
        ),
        widths=tuple(goal.relative_width for goal in goals),
        full_trials=sum(1 for d in durations if d >= final_s * (1.0 - _DURATION_SLACK)),
        middle_trials=sum(
            1
            for d in durations
            if initial_s * (1.0 + _DURATION_SLACK) < d < final_s * (1.0 - _DURATION_SLACK)
        ),
    )


def run_case_all(case: Case, algorithms: Sequence[str]) -> list[Row]:
    """Run every algorithm on ``case`` (each on its own fresh DUT)."""
    return [run_case(case, algorithm) for algorithm in algorithms]
