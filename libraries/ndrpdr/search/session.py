"""One search in progress: measures trials, keeps the trace, enforces limits.

Controllers decide what to measure; the session is the only place that
calls the measurer, so validation, time accounting, limits and the reason
of every trial live here once for every algorithm.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from ndrpdr.search.classify import Criterion, conditional_throughput
from ndrpdr.search.database import TrialDatabase
from ndrpdr.search.errors import (
    MeasurerFailedError,
    SearchAbortedError,
    SearchInputError,
    SearchTimeLimitError,
)
from ndrpdr.search.goal import Goal
from ndrpdr.search.numbers import finite_number
from ndrpdr.search.progress import GoalProgress, SearchProgress
from ndrpdr.search.result import GoalResult, SearchResult
from ndrpdr.search.trial import Measurer, TrialReason, TrialResult

Bounds = tuple[float | None, float | None]


def goal_criterion(goal: Goal) -> Criterion:
    """The classification criterion a goal defines."""
    return Criterion(
        loss_ratio=goal.loss_ratio,
        exceed_ratio=goal.exceed_ratio,
        final_duration=goal.final_trial_duration,
        duration_sum=goal.duration_sum,
    )


@dataclasses.dataclass(frozen=True)
class Limits:
    """Stop rules. max_search_time counts effective trial seconds, so it
    means the same on a simulator and in a lab; max_wall_time is wall-clock
    seconds read through ``clock``."""

    max_search_time: float | None = None
    max_wall_time: float | None = None


class Session:
    """Measures trials for a controller and assembles the result."""

    def __init__(
        self,
        measurer: Measurer,
        goals: Sequence[Goal],
        min_load: float,
        max_load: float,
        algorithm: str,
        limits: Limits,
        clock: Callable[[], float],
        progress: Callable[[SearchProgress], None] | None = None,
    ) -> None:
        self.measurer = measurer
        self.goals = tuple(goals)
        self.min_load = min_load
        self.max_load = max_load
        self.algorithm = algorithm
        self.limits = limits
        self.clock = clock
        self.progress = progress
        self.db = TrialDatabase([goal_criterion(g) for g in goals])
        self.trials: list[TrialResult] = []
        self.search_time = 0.0
        self.overhead = 0.0  # the largest effective - intended duration seen [s]
        self.started = clock()
        self.bounds_override: list[Bounds] | None = None

    def measure(self, duration: float, load: float, reason: TrialReason) -> TrialResult:
        """Run one trial (after checking the limits) and record it.

        A measurer that raises an Exception ends the search with
        MeasurerFailedError, its ``partial`` result holding every trial so far.
        """
        self._check_limits(duration, load)
        try:
            raw = self.measurer.measure(duration, load)
        except SearchAbortedError:
            raise
        except Exception as exc:  # any failure keeps the trials so far
            raise MeasurerFailedError(
                f"trial {len(self.trials) + 1} ({duration:g} s at load {load:.6g}) failed after "
                f"{len(self.trials)} trials: {type(exc).__name__}: {exc}",
                self.result(),
            ) from exc
        if not isinstance(raw, TrialResult):
            raise SearchInputError(
                f"measurer returned {raw!r} (a {type(raw).__name__}), not a TrialResult, "
                f"for duration={duration!r} s, load={load!r}"
            )
        # The trial's input is what the controller asked for (RFC 9971 Trial
        # Input); what the tester really did shows in counts and effective
        # duration.
        trial = dataclasses.replace(raw, duration=duration, load=load, reason=reason)
        self.trials.append(trial)
        self.db.add(trial)
        self.search_time += trial.effective_seconds
        self.overhead = max(self.overhead, trial.effective_seconds - duration)
        if self.progress is not None:
            self.progress(self.snapshot(trial))
        return trial

    def snapshot(self, trial: TrialResult) -> SearchProgress:
        """Where the search stands after ``trial`` (the last one measured)."""
        goals = tuple(
            GoalProgress(goal, *self.db.relevant_bounds(index))
            for index, goal in enumerate(self.goals)
        )
        return SearchProgress(
            trial_number=len(self.trials),
            trial=trial,
            goals=goals,
            search_time=self.search_time,
            wall_time=self.clock() - self.started,
        )

    def _check_limits(self, duration: float, load: float) -> None:
        cap = self.limits.max_search_time
        if cap is not None and self.search_time + duration + self.overhead > cap:
            raise SearchTimeLimitError(
                f"max_search_time={cap:g} s reached: {self.search_time:g} s of trials done, "
                f"next trial ({duration:g} s + {self.overhead:g} s overhead seen so far, "
                f"at load {load:.6g}) would exceed it",
                self.result(),
            )
        wall_cap = self.limits.max_wall_time
        if wall_cap is not None:
            elapsed = self.clock() - self.started
            if elapsed > wall_cap:
                raise SearchTimeLimitError(
                    f"max_wall_time={wall_cap:g} s reached after {elapsed:.3g} s "
                    f"and {len(self.trials)} trials",
                    self.result(),
                )

    def goal_result(self, index: int) -> GoalResult:
        """The result for goal ``index`` from the trials so far."""
        bounds = None if self.bounds_override is None else self.bounds_override[index]
        return result_for(
            self.db, index, self.goals[index], self.min_load, self.max_load, bounds=bounds
        )

    def result(self) -> SearchResult:
        """The search result as of now (also used for partial results)."""
        return SearchResult(
            algorithm=self.algorithm,
            goal_results=tuple(self.goal_result(i) for i in range(len(self.goals))),
            trials=tuple(self.trials),
            search_time=self.search_time,
            wall_time=self.clock() - self.started,
        )


def result_for(
    db: TrialDatabase,
    index: int,
    goal: Goal,
    min_load: float,
    max_load: float,
    *,
    bounds: Bounds | None = None,
) -> GoalResult:
    """Goal ``index``'s result over ``db``: its relevant bounds (or ``bounds``), conditional
    throughput at the lower one.

    Given ``bounds`` (a binary search's hard bounds, not RFC 9971 classified
    loads) the conditional throughput is None, not computed, when the lower
    bound lacks the full-length seconds its quantile needs: counting the
    missing seconds as full loss would report 0.
    """
    lower, upper = db.relevant_bounds(index) if bounds is None else bounds
    throughput = None
    if lower is not None:
        criterion = goal_criterion(goal)
        at_lower = db.trials_at(lower)
        if bounds is None or _quantile_measured(at_lower, criterion):
            throughput = conditional_throughput(at_lower, lower, criterion)
    return GoalResult(
        goal=goal,
        lower_bound=lower,
        upper_bound=upper,
        conditional_throughput=throughput,
        min_load=min_load,
        max_load=max_load,
    )


def _quantile_measured(trials: Sequence[TrialResult], criterion: Criterion) -> bool:
    """Whether the full-length trials cover the (1 - exceed ratio) share of the duration sum
    that the conditional throughput's quantile walks through [effective seconds]."""
    measured_s = sum(t.effective_seconds for t in trials if t.duration >= criterion.final_duration)
    needed_s = criterion.duration_sum * (1.0 - criterion.exceed_ratio)
    return measured_s >= needed_s * (1.0 - 1e-9)


def check_load(name: str, value: object) -> float:
    """A load argument as a float, or SearchInputError naming it."""
    number = finite_number(name, value)
    if number <= 0:
        raise SearchInputError(f"{name}={value!r} must be > 0")
    return number
