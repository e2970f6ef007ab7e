"""The measurer shape the benchmarks need: a Measurer with a simulated clock."""

from __future__ import annotations

from typing import Protocol

from ndrpdr.search.trial import TrialResult


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
