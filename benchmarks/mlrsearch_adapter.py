"""Run MLRsearch 1.2.1 (PyPI) over our measurers, through its own API.

MLRsearch is an optional dependency: importing this module raises
ImportError when it is not installed (callers check ``mlrsearch_missing``
in ``benchmarks.runner`` first). Goals map 1:1 onto ``SearchGoal``; its
own defaults stay for preceding_targets (2) and expansion_coefficient (2).
Its wall-clock cap is set far out of reach (time here is simulated), there
is no warmup trial, and fail_fast is off so an irregular result comes back
as missing bounds instead of an exception.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from MLRsearch import (
    AbstractMeasurer,
    Config,
    MeasurementResult,
    MultipleLossRatioSearch,
    SearchGoal,
)

from benchmarks.clocked import ClockedMeasurer
from benchmarks.cputime import CpuTimedMeasurer, run_timed
from benchmarks.outcome import GoalOutcome, SearchOutcome
from ndrpdr.search.goal import Goal
from ndrpdr.search.trial import Measurer

LABEL = "MLRsearch 1.2.1"
SEARCH_DURATION_MAX_S = 30.0 * 24 * 3600
"""MLRsearch's wall-clock cap [s]; simulated searches must never hit it."""


class MeasurerBridge(AbstractMeasurer):  # type: ignore[misc]
    """MLRsearch's AbstractMeasurer calling one of our Measurers.

    Counts go over as offered and lost frames; frames the tester meant to
    send but did not (intended - offered) go over through intended_count,
    which MLRsearch also counts as lost. The trial's effective duration is
    MLRsearch's duration_with_overheads (what its duration sums add up).
    """

    def __init__(self, inner: Measurer) -> None:
        super().__init__()
        self.inner = inner
        self.trial_count = 0

    def measure(self, intended_duration: float, intended_load: float) -> Any:
        """Run one trial through the inner measurer; return a MeasurementResult."""
        trial = self.inner.measure(float(intended_duration), float(intended_load))
        self.trial_count += 1
        assert trial.loss_count is not None and trial.intended_count is not None
        offered = round(trial.offered_count)
        return MeasurementResult(
            intended_duration=intended_duration,
            intended_load=intended_load,
            offered_count=offered,
            loss_count=round(trial.loss_count),
            intended_count=max(offered, round(trial.intended_count)),
            duration_with_overheads=trial.effective_seconds,
        )


def to_search_goal(goal: Goal) -> Any:
    """The MLRsearch SearchGoal with the same attributes as our Goal."""
    return SearchGoal(
        loss_ratio=goal.loss_ratio,
        exceed_ratio=goal.exceed_ratio,
        relative_width=goal.relative_width,
        initial_trial_duration=goal.initial_trial_duration,
        final_trial_duration=goal.final_trial_duration,
        duration_sum=goal.duration_sum,
        fail_fast=False,
    )


def make_config(search_goals: Sequence[Any], min_load: float, max_load: float) -> Any:
    """An MLRsearch Config for these SearchGoals and load limits [frames/s]."""
    config = Config()
    config.goals = list(search_goals)
    if max_load > config.max_load:  # its setters check min < max as they go
        config.max_load = max_load
        config.min_load = min_load
    else:
        config.min_load = min_load
        config.max_load = max_load
    config.search_duration_max = SEARCH_DURATION_MAX_S
    config.warmup_duration = None
    return config


def _quiet(_message: str) -> None:
    """MLRsearch's debug callback: discard (logging would cost CPU time)."""


def _as_float(value: Any) -> float | None:
    return None if value is None else float(value)


def run_mlrsearch(
    measurer: ClockedMeasurer, goals: Sequence[Goal], min_load: float, max_load: float
) -> SearchOutcome:
    """Search ``goals`` with MLRsearch 1.2.1 over ``measurer``.

    Bounds come back in the order of ``goals``. ``simulated_time_s`` is the
    measurer's clock advance during the search; ``controller_cpu_s`` is
    MLRsearch's own CPU time (the process time spent inside ``measurer``
    excluded).
    """
    search_goals = [to_search_goal(goal) for goal in goals]
    config = make_config(search_goals, min_load, max_load)
    clock_before = measurer.clock_s
    timed = CpuTimedMeasurer(measurer)
    bridge = MeasurerBridge(timed)

    def search(_timed: CpuTimedMeasurer) -> tuple[Any, str]:
        try:
            return MultipleLossRatioSearch(config=config).search(bridge, debug=_quiet), ""
        except RuntimeError as error:
            return None, f"MLRsearch raised: {error}"

    (results, note), cpu_s = run_timed(search, timed)
    outcomes: list[GoalOutcome] = []
    for search_goal in search_goals:
        found = None if results is None else results[search_goal]
        outcomes.append(
            GoalOutcome(
                lower_bound=None if found is None else _as_float(found.relevant_lower_bound),
                upper_bound=None if found is None else _as_float(found.relevant_upper_bound),
                conditional_throughput=(
                    None if found is None else _as_float(found.conditional_throughput)
                ),
            )
        )
    return SearchOutcome(
        goals=tuple(outcomes),
        trial_count=bridge.trial_count,
        simulated_time_s=measurer.clock_s - clock_before,
        controller_cpu_s=cpu_s,
        note=note,
    )


def controller_cpu_s(
    measurer: ClockedMeasurer, goals: Sequence[Goal], min_load: float, max_load: float
) -> float:
    """MLRsearch 1.2.1's controller CPU time [s] for one search over ``measurer``.

    Process time of the whole search minus process time spent inside
    ``measurer.measure``.
    """
    return run_mlrsearch(measurer, goals, min_load, max_load).controller_cpu_s
