"""The ``duplicating`` model: a capacity cliff whose DUT sends some frames twice."""

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


class DuplicatingDut(ModelBase):
    """A capacity cliff that, in some trials, forwards a share of its frames twice.

    Models a DUT that duplicates (a bridge flooding while it learns, a
    mirrored port, a retransmitting link layer) or a TG port that receives
    foreign frames: the TG counts more frames received than it sent. Each
    trial independently, with probability ``duplicate_probability``,
    adds ``duplicate_fraction`` of the frames it forwarded. Each trial draws
    exactly one number from the rng. Such trials receive more than was
    offered below the capacity (``TrialResult.surplus_count``), and hide a
    little loss just above it.

    Truth: with ``duplicate_probability < 0.5`` the median trial has no
    duplicates, so the truth is the cliff's.
    """

    NAME: ClassVar[str] = "duplicating"
    DETERMINISTIC: ClassVar[bool] = False

    def __init__(
        self, capacity_pps: float, duplicate_fraction: float, duplicate_probability: float
    ) -> None:
        """``capacity_pps`` [pps]; ``duplicate_fraction`` in [0, 1);
        ``duplicate_probability`` in [0, 0.5)."""
        self.capacity_pps = check_positive("capacity_pps", capacity_pps)
        self.duplicate_fraction = check_fraction("duplicate_fraction", duplicate_fraction)
        self.duplicate_probability = check_fraction(
            "duplicate_probability", duplicate_probability, upper=0.5
        )

    def true_throughput(self, duration_s: float, loss_ratio: float) -> float:
        """``capacity_pps / (1 - loss_ratio)`` [pps] for any ``duration_s`` [s]."""
        _, loss_ratio = self._check_goal(duration_s, loss_ratio)
        return cliff_throughput(self.capacity_pps, loss_ratio)

    def trial(self, duration_s: float, load_pps: float, rng: random.Random) -> tuple[int, int]:
        """Run one trial: ``(offered_count, forwarded_count)`` [frames]; forwarded may exceed
        offered."""
        duration_s, load_pps = self._check_trial(duration_s, load_pps)
        duplicates = rng.random() < self.duplicate_probability
        offered, forwarded = cliff_counts(duration_s, load_pps, self.capacity_pps)
        if duplicates:
            forwarded += round(forwarded * self.duplicate_fraction)
        return offered, forwarded

    def parameters(self) -> dict[str, float]:
        """``{"capacity_pps": ..., "duplicate_fraction": ..., "duplicate_probability": ...}``."""
        return {
            "capacity_pps": self.capacity_pps,
            "duplicate_fraction": self.duplicate_fraction,
            "duplicate_probability": self.duplicate_probability,
        }


def draw_duplicating(rng: random.Random, capacity_pps: float) -> DuplicatingDut:
    """The registry's ``duplicating`` model: 0.1 .. 1 % of the frames twice, in 10 .. 40 % of
    the trials."""
    return DuplicatingDut(
        capacity_pps=capacity_pps,
        duplicate_fraction=rng.uniform(0.001, 0.01),
        duplicate_probability=rng.uniform(0.1, 0.4),
    )
