"""Controller CPU time: process time of a search minus time inside measure().

The simulator's own work is not the controller's cost, so a measurer
wrapper adds up the process time spent inside its measure() calls and the
caller subtracts it from the process time of the whole search.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from ndrpdr.search.trial import Measurer, TrialResult

T = TypeVar("T")


class CpuTimedMeasurer:
    """A Measurer that forwards to another one and sums its CPU time [s]."""

    def __init__(self, inner: Measurer) -> None:
        self.inner = inner
        self.inside_s = 0.0

    def measure(self, duration: float, load: float) -> TrialResult:
        """Run the inner measurer's trial, adding its process time to inside_s."""
        start = time.process_time()
        try:
            return self.inner.measure(duration, load)
        finally:
            self.inside_s += time.process_time() - start


def run_timed(search: Callable[[CpuTimedMeasurer], T], timed: CpuTimedMeasurer) -> tuple[T, float]:
    """Call ``search(timed)``; return its value and the controller CPU time [s].

    The controller CPU time is the process time of the call minus the process
    time ``timed`` spent inside its inner measurer during the call.
    """
    inside_before = timed.inside_s
    start = time.process_time()
    value = search(timed)
    total = time.process_time() - start
    return value, max(0.0, total - (timed.inside_s - inside_before))
