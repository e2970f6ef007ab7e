"""A simulated clock: seconds that pass only when a trial says so."""

from __future__ import annotations

from ndrpdr.simdut.models.base import check_non_negative


class SimulatedClock:
    """Simulated time [s] since creation; advances only through ``advance``.

    Calling the clock returns the current time, so it can stand in for
    ``time.monotonic`` wherever a time source is injected.
    """

    def __init__(self, start_s: float = 0.0) -> None:
        """Start at ``start_s`` [s] (>= 0)."""
        self._now_s = check_non_negative("start_s", start_s)

    @property
    def now_s(self) -> float:
        """Current simulated time [s]."""
        return self._now_s

    def advance(self, seconds: float) -> float:
        """Move forward by ``seconds`` [s] (>= 0); return the new time [s]."""
        self._now_s += check_non_negative("seconds", seconds)
        return self._now_s

    def __call__(self) -> float:
        """Current simulated time [s]."""
        return self._now_s

    def __repr__(self) -> str:
        return f"SimulatedClock(now_s={self._now_s!r})"
