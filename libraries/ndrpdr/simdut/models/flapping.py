"""The ``flapping`` model: a capacity that jumps between two levels from trial to trial."""

from __future__ import annotations

import random
from typing import ClassVar

from ndrpdr.simdut.models.base import (
    ModelBase,
    check_fraction,
    check_positive,
    cliff_counts,
    cliff_throughput,
)


class FlappingCapacity(ModelBase):
    """A capacity cliff at ``capacity_pps`` or, in some trials, at a much lower level.

    Models a DUT whose forwarding capacity flips between two states that
    last about a trial each: a worker thread moved between a fast and a
    slow core, a NIC that renegotiates, a power-saving state the load does
    not always wake. Each trial independently, with probability
    ``low_probability`` (``p``), forwards at most ``low_fraction x
    capacity_pps``, else at most ``capacity_pps``. Each trial draws exactly
    one number from the rng.

    Truth: the median trial's cliff, the high one when ``p < 0.5``, else the
    low one. Between the levels a trial passes or loses heavily by a coin
    toss, so the bounds a search reports there are arbitrary: the judgement
    of results calls such a result irregular (``ndrpdr.results.flapping``).
    """

    NAME: ClassVar[str] = "flapping"
    DETERMINISTIC: ClassVar[bool] = False

    def __init__(self, capacity_pps: float, low_fraction: float, low_probability: float) -> None:
        """``capacity_pps`` [pps]; ``low_fraction`` and ``low_probability`` in (0, 1)."""
        self.capacity_pps = check_positive("capacity_pps", capacity_pps)
        self.low_fraction = check_positive(
            "low_fraction", check_fraction("low_fraction", low_fraction)
        )
        self.low_probability = check_fraction("low_probability", low_probability)

    def true_throughput(self, duration_s: float, loss_ratio: float) -> float:
        """The median trial's cliff truth [pps], for any ``duration_s`` [s]."""
        _, loss_ratio = self._check_goal(duration_s, loss_ratio)
        return cliff_throughput(self._median_capacity(), loss_ratio)

    def _median_capacity(self) -> float:
        low = self.low_probability >= 0.5
        return self.capacity_pps * (self.low_fraction if low else 1.0)

    def trial(self, duration_s: float, load_pps: float, rng: random.Random) -> tuple[int, int]:
        """Run one trial: ``(offered_count, forwarded_count)`` [frames]."""
        duration_s, load_pps = self._check_trial(duration_s, load_pps)
        capacity = self.capacity_pps
        if rng.random() < self.low_probability:
            capacity *= self.low_fraction
        return cliff_counts(duration_s, load_pps, capacity)

    def parameters(self) -> dict[str, float]:
        """``{"capacity_pps": ..., "low_fraction": ..., "low_probability": ...}``."""
        return {
            "capacity_pps": self.capacity_pps,
            "low_fraction": self.low_fraction,
            "low_probability": self.low_probability,
        }


def draw_flapping(rng: random.Random, capacity_pps: float) -> FlappingCapacity:
    """The registry's ``flapping`` model: the low level at 40 .. 70 % of the capacity, taken
    by 30 .. 60 % of the trials."""
    return FlappingCapacity(
        capacity_pps=capacity_pps,
        low_fraction=rng.uniform(0.4, 0.7),
        low_probability=rng.uniform(0.3, 0.6),
    )
