"""One goal's nomination in the mlr controller: the trial it asks for, and why."""

from __future__ import annotations

import dataclasses

from ndrpdr.search.mlr.names import Expect, Phase, Rule


@dataclasses.dataclass(frozen=True)
class Plan:
    """A nominated trial: grid index, duration [s], and what it expects.

    ``hint`` is the estimate's grid index when the trial was chosen (None
    without one), ``span`` the width of the bracket it was chosen in, and
    ``low`` / ``high`` that bracket's grid indices (-1 / top + 1 where a
    bound is missing): learning compares them with the bounds after the
    trial to count a bound's moves.
    """

    index: int
    duration: float
    phase: Phase
    strategy: Rule
    expect: Expect | None
    detail: str
    hint: int | None
    span: int
    low: int = -1
    high: int = 0
