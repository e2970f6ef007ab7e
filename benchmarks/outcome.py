"""What one search run produced, in one shape for every algorithm.

Our engine and the MLRsearch 1.2.1 adapter both report a SearchOutcome, so
the benchmarks compare them field by field.
"""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class GoalOutcome:
    """The bounds one search found for one goal [frames/s], None if missing."""

    lower_bound: float | None
    upper_bound: float | None
    conditional_throughput: float | None


@dataclasses.dataclass(frozen=True)
class SearchOutcome:
    """One search over one simulated DUT.

    goals: one GoalOutcome per goal, in the order the goals were given.
    trial_count: trials the search asked for.
    simulated_time_s: the simulated clock at the end [s], per-trial overheads
        included.
    controller_cpu_s: process CPU time of the whole search minus the CPU time
        spent inside the measurer [s]: what the controller itself cost.
    note: empty for a regular run; otherwise why the search ended early.
    """

    goals: tuple[GoalOutcome, ...]
    trial_count: int
    simulated_time_s: float
    controller_cpu_s: float
    note: str = ""

    @property
    def controller_cpu_per_trial_s(self) -> float:
        """Controller CPU time per trial [s] (0 when there were no trials)."""
        return self.controller_cpu_s / self.trial_count if self.trial_count else 0.0
