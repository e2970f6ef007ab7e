"""The load grid: integer indices uniform in log(load).

Index 0 is the min load and index ``top`` the max load, both exact. The
step is the largest that divides log(max/min) evenly and is no wider than
the narrowest goal width, so every goal width spans a whole number of steps
and "one width above" is exact integer arithmetic (no drift from repeated
multiplication, halving and doubling are reversible).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

_EPS = 1e-9


class LoadGrid:
    """Maps grid indices to loads [frames per second] and back."""

    def __init__(self, min_load: float, max_load: float, widths: Iterable[float]) -> None:
        narrowest = min(-math.log1p(-w) for w in widths)
        span = math.log(max_load / min_load)
        self.min_load = min_load
        self.max_load = max_load
        self.top = max(1, math.ceil(span / narrowest - _EPS))
        self.step = span / self.top

    def load(self, index: int) -> float:
        """The load at ``index`` (0 <= index <= top)."""
        if index <= 0:
            return self.min_load
        if index >= self.top:
            return self.max_load
        return self.min_load * math.exp(index * self.step)

    def floor_index(self, load: float) -> int:
        """The highest index whose load is <= ``load``; -1 below the min load."""
        if load < self.min_load * (1.0 - _EPS):
            return -1
        if load >= self.max_load:
            return self.top
        index = math.floor(math.log(load / self.min_load) / self.step + _EPS)
        return max(0, min(self.top, index))

    def width_steps(self, relative_width: float) -> int:
        """How many grid steps a relative goal width spans (at least 1)."""
        return max(1, math.floor(-math.log1p(-relative_width) / self.step + _EPS))
