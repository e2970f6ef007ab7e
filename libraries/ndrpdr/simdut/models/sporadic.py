"""The ``sporadic`` model: a capacity cliff plus rare small losses in any trial."""

from __future__ import annotations

import random
from typing import ClassVar

from ndrpdr.search.errors import SearchInputError
from ndrpdr.simdut.models.base import (
    ModelBase,
    check_fraction,
    check_positive,
    cliff_loss_ratio,
    cliff_throughput,
    offered_frames,
    whole_frames_lost,
)


class SporadicLoss(ModelBase):
    """A capacity cliff plus a few frames lost now and then, whatever the load.

    Models losses unrelated to forwarding capacity: a control-plane or
    management task preempting a worker, a stray link-level error, a
    periodic statistics poll. Each trial at a load ``0 < L`` independently,
    with probability ``loss_probability`` (``p``), loses a uniform random
    number of frames in ``1 .. max_lost_frames``, regardless of load and
    duration (RFC 9971's "independence" of loss from trial duration). Above
    the capacity, the cliff's loss comes on top. Each trial draws exactly
    two numbers from the rng.

    Truth: with ``p < 0.5`` the median trial below ``C`` is loss-free, and
    at the cliff truth the median trial meets any goal, so the truth is the
    cliff truth ``C / (1 - loss_ratio)`` for every duration. ``p >= 0.5`` is
    rejected, since the median trial would then lose frames at any load.
    """

    NAME: ClassVar[str] = "sporadic"
    DETERMINISTIC: ClassVar[bool] = False

    def __init__(
        self, capacity_pps: float, loss_probability: float, max_lost_frames: int = 50
    ) -> None:
        """``capacity_pps`` [pps]; ``loss_probability`` in [0, 0.5); ``max_lost_frames`` >= 1."""
        self.capacity_pps = check_positive("capacity_pps", capacity_pps)
        self.loss_probability = check_fraction("loss_probability", loss_probability, upper=0.5)
        if isinstance(max_lost_frames, bool) or not isinstance(max_lost_frames, int):
            raise SearchInputError(f"max_lost_frames={max_lost_frames!r} is not an int")
        if max_lost_frames < 1:
            raise SearchInputError(f"max_lost_frames={max_lost_frames!r} must be >= 1")
        self.max_lost_frames = max_lost_frames

    def true_throughput(self, duration_s: float, loss_ratio: float) -> float:
        """``capacity_pps / (1 - loss_ratio)`` [pps] for any ``duration_s`` [s]."""
        _, loss_ratio = self._check_goal(duration_s, loss_ratio)
        return cliff_throughput(self.capacity_pps, loss_ratio)

    def trial(self, duration_s: float, load_pps: float, rng: random.Random) -> tuple[int, int]:
        """Run one trial: ``(offered_count, forwarded_count)`` [frames]."""
        duration_s, load_pps = self._check_trial(duration_s, load_pps)
        offered = offered_frames(duration_s, load_pps)
        # Draw the same amount of randomness in every trial, so one trial's
        # load never shifts the random stream of the trials after it.
        hit = rng.random() < self.loss_probability
        extra = rng.randint(1, self.max_lost_frames)
        if offered == 0:
            return 0, 0
        lost = whole_frames_lost(offered, cliff_loss_ratio(self.capacity_pps, load_pps))
        if hit:
            lost = min(offered, lost + extra)
        return offered, offered - lost

    def parameters(self) -> dict[str, float]:
        """``{"capacity_pps": ..., "loss_probability": ..., "max_lost_frames": ...}``."""
        return {
            "capacity_pps": self.capacity_pps,
            "loss_probability": self.loss_probability,
            "max_lost_frames": float(self.max_lost_frames),
        }
