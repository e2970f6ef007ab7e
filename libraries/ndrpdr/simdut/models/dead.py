"""The ``dead`` model: a DUT that forwards nothing at any load."""

from __future__ import annotations

import random
from typing import ClassVar

from ndrpdr.simdut.models.base import DeterministicModel, check_positive


class DeadDut(DeterministicModel):
    """A DUT that forwards no frame at all: a crashed data plane, a port down, no route.

    ``capacity_pps`` is what the DUT would forward were it alive; it is kept
    (and drawn from the seed like every model's) so the same seed names the
    same DUT across models, and it changes nothing. Truth: 0 pps for every
    goal, since no load forwards anything.
    """

    NAME: ClassVar[str] = "dead"

    def __init__(self, capacity_pps: float) -> None:
        """``capacity_pps``: the capacity of the DUT when alive [pps], > 0 (unused)."""
        self.capacity_pps = check_positive("capacity_pps", capacity_pps)

    def loss_ratio(self, duration_s: float, load_pps: float) -> float:
        """1: every frame is lost."""
        return 1.0

    def true_throughput(self, duration_s: float, loss_ratio: float) -> float:
        """0 pps: no load forwards anything."""
        self._check_goal(duration_s, loss_ratio)
        return 0.0

    def parameters(self) -> dict[str, float]:
        """``{"capacity_pps": ...}``."""
        return {"capacity_pps": self.capacity_pps}


def draw_dead(rng: random.Random, capacity_pps: float) -> DeadDut:
    """The ``dead`` model of the registry (nothing to draw)."""
    return DeadDut(capacity_pps=capacity_pps)
