"""SimulatedMeasurer: a traffic generator that runs trials against a DUT model."""

from __future__ import annotations

import random

from ndrpdr.search.errors import SearchInputError
from ndrpdr.search.numbers import finite_number
from ndrpdr.search.trial import TrialResult
from ndrpdr.simdut.models.base import check_non_negative, check_positive
from ndrpdr.simdut.models.protocol import DutModel
from ndrpdr.trafficgen.sim.clock import SimulatedClock


class SimulatedMeasurer:
    """An in-process traffic generator on a simulated clock (a search ``Measurer``).

    Each ``measure`` call returns at once. The tester sends at most
    ``max_tg_rate_pps`` [pps] (None: no limit); frames it meant to send but
    could not count as lost (RFC 9971 "unsent"). The simulated clock
    advances by ``duration + overhead_s`` [s] per trial, while the trial's
    ``effective_duration`` is ``duration`` alone. All randomness comes from
    one ``random.Random(seed)``, so the same seed and the same calls give
    the same results.
    """

    def __init__(
        self,
        model: DutModel,
        overhead_s: float = 0.5,
        seed: int = 0,
        max_tg_rate_pps: float | None = None,
    ) -> None:
        """``model``: the DUT; ``overhead_s`` [s] per trial; ``max_tg_rate_pps`` [pps] or None."""
        self.model = model
        self.overhead_s = check_non_negative("overhead_s", overhead_s)
        self.max_tg_rate_pps = (
            None if max_tg_rate_pps is None else check_positive("max_tg_rate_pps", max_tg_rate_pps)
        )
        self.seed = seed
        self.clock = SimulatedClock()
        self._rng = random.Random(seed)
        self._trials: list[TrialResult] = []

    @property
    def clock_s(self) -> float:
        """Simulated seconds elapsed: sum of (duration + overhead_s) over trials [s]."""
        return self.clock.now_s

    @property
    def trial_count(self) -> int:
        """Number of trials measured so far."""
        return len(self._trials)

    @property
    def trials(self) -> list[TrialResult]:
        """The trials measured so far, oldest first (a copy)."""
        return list(self._trials)

    def measure(self, duration: float, load: float) -> TrialResult:
        """Run one trial of ``duration`` [s] at intended ``load`` [pps]; return its counts.

        Raises SearchInputError unless ``duration`` is finite and > 0 and
        ``load`` is finite and >= 0.
        """
        _check_number("duration", duration, positive=True)
        _check_number("load", load, positive=False)
        sent_pps = load if self.max_tg_rate_pps is None else min(load, self.max_tg_rate_pps)
        intended = round(load * duration)
        if load == 0:
            offered, forwarded = 0, 0
        else:
            offered, forwarded = self.model.trial(duration, sent_pps, self._rng)
        result = TrialResult(
            duration=duration,
            load=load,
            offered_count=offered,
            forwarded_count=forwarded,
            intended_count=max(intended, offered),
            effective_duration=duration,
        )
        self._trials.append(result)
        self.clock.advance(duration + self.overhead_s)
        return result

    def __repr__(self) -> str:
        return (
            f"SimulatedMeasurer(model={self.model!r}, overhead_s={self.overhead_s!r}, "
            f"seed={self.seed!r}, max_tg_rate_pps={self.max_tg_rate_pps!r})"
        )


def _check_number(name: str, value: float, *, positive: bool) -> None:
    """Raise SearchInputError naming ``value`` unless it is a finite number (> 0 or >= 0)."""
    value = finite_number(f"trial {name}", value)
    if positive and value <= 0:
        raise SearchInputError(f"trial {name}={value!r} must be > 0")
    if value < 0:
        raise SearchInputError(f"trial {name}={value!r} must be >= 0")
