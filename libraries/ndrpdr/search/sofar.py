"""The best bounds a search's trials support, however the search stopped.

A search stopped early (a time limit, Ctrl-C, SIGTERM, a Robot timeout, a
TG or DUT error) has no controller output, but its trials still classify
loads exactly as RFC 9971 says: ``result_so_far`` replays them into a fresh
trial database and reads the relevant bounds of every goal from it.
"""

from __future__ import annotations

from collections.abc import Sequence

from ndrpdr.search.database import TrialDatabase
from ndrpdr.search.goal import Goal
from ndrpdr.search.result import SearchResult
from ndrpdr.search.session import goal_criterion, result_for
from ndrpdr.search.trial import TrialResult


def result_so_far(
    goals: Sequence[Goal],
    trials: Sequence[TrialResult],
    min_load: float,
    max_load: float,
    *,
    algorithm: str = "mlr",
    wall_time: float = 0.0,
) -> SearchResult:
    """RFC 9971 relevant bounds (and conditional throughput) of every goal over ``trials``.

    ``min_load`` / ``max_load`` are the search's load range (they decide
    whether a missing bound is "min load is an upper bound" or "max load is
    a lower bound"); ``wall_time`` [s] is copied into the result. Trials
    are classified by their intended load, as the search classifies them.
    With no trials every bound is None.
    """
    db = TrialDatabase([goal_criterion(goal) for goal in goals])
    for trial in trials:
        db.add(trial)
    return SearchResult(
        algorithm=algorithm,
        goal_results=tuple(
            result_for(db, index, goal, min_load, max_load) for index, goal in enumerate(goals)
        ),
        trials=tuple(trials),
        search_time=sum(trial.effective_seconds for trial in trials),
        wall_time=wall_time,
    )
