"""The ``jitter`` model: a capacity cliff whose level varies a little from trial to trial."""

from __future__ import annotations

import math
import random
from statistics import NormalDist
from typing import ClassVar

from ndrpdr.simdut.models.base import (
    ModelBase,
    check_positive,
    cliff_counts,
    cliff_throughput,
)

_NORMAL = NormalDist()
_TAIL = 1e-12
"""Uniform draws are kept this far from 0 and 1 (a level within 7 standard deviations)."""


class CapacityJitter(ModelBase):
    """A capacity cliff at ``capacity_pps x exp(jitter x Z)``, ``Z`` a standard normal
    drawn afresh for every trial.

    What a software data plane shows from one trial to the next when nothing
    is wrong: the rate it forwards at moves by a percent or two with where
    its buffers land in the caches, the CPU's clock, the interrupts it met.
    Unlike ``noisyknee`` (loss at random only below the capacity) the level
    moves both ways, and a trial just above its own level loses just the
    excess, so a goal's loss ratio shifts the knee as on a sharp cliff. The
    level does not depend on the trial duration. Each trial draws exactly
    one number from the rng.

    Truth (noisy model): the median trial's level is ``capacity_pps``, so
    the load where the median trial meets the goal is the cliff truth
    ``capacity_pps / (1 - loss_ratio)`` for every duration.
    """

    NAME: ClassVar[str] = "jitter"
    DETERMINISTIC: ClassVar[bool] = False

    def __init__(self, capacity_pps: float, jitter: float) -> None:
        """``capacity_pps`` [pps] > 0; ``jitter`` > 0: the standard deviation of the
        level's logarithm (0.01: about 1 % from trial to trial)."""
        self.capacity_pps = check_positive("capacity_pps", capacity_pps)
        self.jitter = check_positive("jitter", jitter)

    def true_throughput(self, duration_s: float, loss_ratio: float) -> float:
        """``capacity_pps / (1 - loss_ratio)`` [pps] for any ``duration_s`` [s]."""
        _, loss_ratio = self._check_goal(duration_s, loss_ratio)
        return cliff_throughput(self.capacity_pps, loss_ratio)

    def trial(self, duration_s: float, load_pps: float, rng: random.Random) -> tuple[int, int]:
        """Run one trial: ``(offered_count, forwarded_count)`` [frames]."""
        duration_s, load_pps = self._check_trial(duration_s, load_pps)
        uniform = min(max(rng.random(), _TAIL), 1.0 - _TAIL)
        level = self.capacity_pps * math.exp(self.jitter * _NORMAL.inv_cdf(uniform))
        return cliff_counts(duration_s, load_pps, level)

    def parameters(self) -> dict[str, float]:
        """Capacity [pps] (the median level) and jitter (log standard deviation)."""
        return {"capacity_pps": self.capacity_pps, "jitter": self.jitter}
