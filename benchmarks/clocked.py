"""The measurer shape the benchmarks need: a Measurer with a clock (simulated, or the wall's)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol

from ndrpdr.search.trial import Measurer, TrialResult


class ClockedMeasurer(Protocol):
    """A Measurer that also tells how much (simulated) time has passed.

    clock_s: seconds of trial time so far, per-trial overheads included.
    """

    @property
    def clock_s(self) -> float:
        """Seconds of (simulated) time since the measurer was created."""
        ...

    def measure(self, duration: float, load: float) -> TrialResult:
        """Run one trial of ``duration`` seconds at ``load`` frames/s per direction."""
        ...


class WallClockMeasurer:
    """A real Measurer (a TG) whose clock is the wall's: a ClockedMeasurer for a real DUT.

    ``clock_s`` is the wall time since it was made, so a search's time is
    what its user waits: trials, the TG's start and stop around each, and
    the controller's own work between them. ``trials`` keeps every trial.
    """

    def __init__(
        self,
        inner: Measurer,
        clock: Callable[[], float] = time.monotonic,
        heard: Callable[[TrialResult], None] | None = None,
    ) -> None:
        """``heard``, if given, hears of every trial as it ends (a console's progress)."""
        self.inner, self._clock, self._heard = inner, clock, heard
        self._start = clock()
        self.trials: list[TrialResult] = []

    @property
    def clock_s(self) -> float:
        """Wall seconds since this measurer was made."""
        return self._clock() - self._start

    def measure(self, duration: float, load: float) -> TrialResult:
        """The inner measurer's trial, kept in ``trials``."""
        trial = self.inner.measure(duration, load)
        self.trials.append(trial)
        if self._heard is not None:
            self._heard(trial)
        return trial
