"""search(): the one entry point of the search engine."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from ndrpdr.search.bisection import run_bisection
from ndrpdr.search.errors import SearchInputError, SearchIrregularError
from ndrpdr.search.goal import Goal
from ndrpdr.search.mlr.controller import MlrController
from ndrpdr.search.progress import SearchProgress
from ndrpdr.search.result import GoalIrregularity, SearchResult
from ndrpdr.search.session import Limits, Session, check_load
from ndrpdr.search.trial import Measurer

ALGORITHMS = ("mlr", "binary", "bswlv")


def search(
    measurer: Measurer,
    goals: Sequence[Goal],
    min_load: float,
    max_load: float,
    algorithm: str = "mlr",
    *,
    max_search_time: float | None = None,
    max_wall_time: float | None = None,
    fail_fast: bool = False,
    bswlv_repeats: int = 2,
    intermediate_trials: bool = False,
    clock: Callable[[], float] = time.monotonic,
    progress: Callable[[SearchProgress], None] | None = None,
) -> SearchResult:
    """Find the relevant bounds of every goal with one search.

    measurer: a ``Measurer``: ``measure(duration, load) -> TrialResult``.
    goals: Search Goals; at least one, no duplicates.
    min_load, max_load: trial loads stay within [min_load, max_load]
        [frames per second, aggregate over directions: ``ndrpdr.units``];
        0 < min_load < max_load.
    algorithm: "mlr" (ours), "binary" (RFC 2544, per goal, final duration)
        or "bswlv" (binary search with loss verification, ETSI TST009:
        a failing load is repeated up to ``bswlv_repeats`` times).
    intermediate_trials: mlr only (binary and bswlv ignore it): before the
        first full-length trial a goal asks for at a load, one trial of the
        goal's intermediate duration there (MLRsearch's middle target: the
        geometric mean of the initial duration and the duration sum, when it
        is shorter than the final duration; see ``intermediate_duration``).
    max_search_time: cap on the sum of effective trial durations [s].
    max_wall_time: cap on wall-clock seconds, read through ``clock``.
    fail_fast: raise SearchIrregularError when the min load is an upper
        bound for a goal, instead of returning an irregular result.
    progress: called after every trial with a SearchProgress snapshot (the
        trial, its number, each goal's relevant bounds so far, time spent).

    Raises SearchInputError for bad arguments or bad measurer answers,
    SearchTimeLimitError when a limit is hit, MeasurerFailedError when the
    measurer raises (the exception it raised is the ``__cause__``); both
    keep the trials and the best bounds so far in ``.partial``.
    """
    goals = _check_goals(goals)
    low = check_load("min_load", min_load)
    high = check_load("max_load", max_load)
    if low >= high:
        raise SearchInputError(f"min_load={low!r} must be below max_load={high!r}")
    if algorithm not in ALGORITHMS:
        raise SearchInputError(f"algorithm={algorithm!r} is not one of {', '.join(ALGORITHMS)}")
    _check_limit("max_search_time", max_search_time)
    _check_limit("max_wall_time", max_wall_time)
    if isinstance(bswlv_repeats, bool) or not isinstance(bswlv_repeats, int) or bswlv_repeats < 0:
        raise SearchInputError(f"bswlv_repeats={bswlv_repeats!r} must be an integer >= 0")
    if not isinstance(intermediate_trials, bool):
        raise SearchInputError(f"intermediate_trials={intermediate_trials!r} must be True or False")
    if not callable(getattr(measurer, "measure", None)):
        raise SearchInputError(f"measurer {measurer!r} has no measure(duration, load) method")
    session = Session(
        measurer=measurer,
        goals=goals,
        min_load=low,
        max_load=high,
        algorithm=algorithm,
        limits=Limits(max_search_time, max_wall_time),
        clock=clock,
        progress=progress,
    )
    if algorithm == "mlr":
        MlrController(session, intermediate_trials=intermediate_trials).run()
    else:
        run_bisection(session, repeats=bswlv_repeats if algorithm == "bswlv" else 0)
    result = session.result()
    if fail_fast:
        for index, goal_result in enumerate(result.goal_results):
            if goal_result.irregular_reason is GoalIrregularity.MIN_LOAD_IS_UPPER:
                raise SearchIrregularError(
                    f"goal {index} ({goal_result.goal.describe()}): min_load={low!r} "
                    f"is an upper bound ({_why_min_load_fails(result, low)})",
                    result,
                )
    return result


def _why_min_load_fails(result: SearchResult, low: float) -> str:
    """What the trials say of a min load that is an upper bound."""
    sent = [trial for trial in result.trials if trial.offered_count > 0]
    if not any(trial.offered_count > 0 for trial in result.trials if trial.load <= low):
        return "its trials sent no frame: nothing was measured there"
    if all(trial.forwarded_count == 0 for trial in sent):
        return f"the DUT forwarded nothing in any of {len(sent)} trials"
    return "the DUT fails even at the lowest load"


def _check_goals(goals: Sequence[Goal]) -> tuple[Goal, ...]:
    if isinstance(goals, Goal):
        goals = [goals]
    checked = tuple(goals)
    if not checked:
        raise SearchInputError("goals is empty: give at least one Goal")
    for index, goal in enumerate(checked):
        if not isinstance(goal, Goal):
            raise SearchInputError(f"goals[{index}]={goal!r} is not a Goal")
        if goal in checked[:index]:
            raise SearchInputError(f"goals[{index}]={goal!r} duplicates an earlier goal")
    return checked


def _check_limit(name: str, value: float | None) -> None:
    if value is None:
        return
    check_load(name, value)
