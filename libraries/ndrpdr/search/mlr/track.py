"""One goal's state in the mlr controller: its stage and how its bounds have moved."""

from __future__ import annotations

import dataclasses

from ndrpdr.search.goal import Goal
from ndrpdr.search.mlr.names import Direction, Stage
from ndrpdr.search.mlr.plan import Plan


@dataclasses.dataclass
class Track:
    """Per-goal controller state.

    ``short_criterion`` / ``scout_criterion``: the database's criteria for
    the goal's short and scout stages (None when it has no such stage);
    ``width``: the goal width in grid steps; ``direction`` / ``run``: the
    way the last bound moved and how many times in a row; ``pass_misses``:
    full-length trials in a row expected to pass that did not;
    ``short_misses``: the same for the short stage's trials;
    ``short_reopened``: the short stage was taken up again (``reopen_short``).
    """

    goal_index: int
    goal: Goal
    short_criterion: int | None
    width: int
    stage: Stage
    scout_criterion: int | None = None
    direction: Direction | None = None
    run: int = 0
    pass_misses: int = 0
    short_misses: int = 0
    short_reopened: bool = False
    last_plan: Plan | None = None

    def next_stage(self) -> None:
        """short -> scout (when the goal has one) -> final; moves start afresh."""
        if self.stage is Stage.SHORT and self.scout_criterion is not None:
            self.stage = Stage.SCOUT
        else:
            self.stage = Stage.FINAL
        self.direction, self.run = None, 0

    def reopen_short(self) -> None:
        """Back to the short stage, once: a full-length trial failed below where
        the short stage, handing over without a short trial that passed, put
        the threshold. Short trials now go on down to one that passes."""
        self.stage = Stage.SHORT
        self.short_reopened = True
        self.direction, self.run = None, 0
