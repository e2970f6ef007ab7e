"""The ``gradual`` model: loss that grows smoothly above a knee."""

from __future__ import annotations

import math
from typing import ClassVar

from ndrpdr.simdut.models.base import DeterministicModel, check_positive


class GradualLoss(DeterministicModel):
    """A DUT with no loss up to ``knee_pps`` and a smoothly growing loss above it.

    Models DUTs without a clean cliff: flows spread over several cores or
    queues that saturate one after another (RSS imbalance), cache and TLB
    pressure that raises the per-packet cost with load, or an interrupt
    driven kernel path that starts dropping a little before it collapses.
    Lost frames per second above the knee ``C0``:
    ``k * (L - C0)**2 / C0`` [pps] (``k = loss_coefficient``), capped at
    ``L``, so the loss ratio ``k * (L - C0)**2 / (C0 * L)`` rises from 0
    with zero slope. Independent of trial duration.

    Truth: for a loss ratio ``r`` > 0 the root above ``C0`` of
    ``k * (L - C0)**2 == r * C0 * L``, i.e.
    ``C0 * (2k + r + sqrt(4kr + r**2)) / (2k)``. With ``k`` in [2, 12] the
    0.5 % PDR lies 2 % to 5 % above ``C0``. NDR counts whole frames: a
    trial of ``D`` s loses its first frame ``sqrt(C0 / (k * D))`` [pps]
    above ``C0`` (under 0.1 % of ``C0`` for D >= 1 s and C0 >= 2 Mpps), and
    a search that lands between ``C0`` and that load has found a load the
    DUT forwards without loss, so that is the NDR.
    """

    NAME: ClassVar[str] = "gradual"

    def __init__(self, knee_pps: float, loss_coefficient: float) -> None:
        """``knee_pps``: highest loss-free load [pps]; ``loss_coefficient``: ``k`` (> 0)."""
        self.knee_pps = check_positive("knee_pps", knee_pps)
        self.loss_coefficient = check_positive("loss_coefficient", loss_coefficient)

    def loss_ratio(self, duration_s: float, load_pps: float) -> float:
        """Exact loss ratio of a trial at ``load_pps`` [pps] (independent of duration)."""
        excess = load_pps - self.knee_pps
        if excess <= 0:
            return 0.0
        lost_pps = self.loss_coefficient * excess * excess / self.knee_pps
        return min(1.0, lost_pps / load_pps)

    def true_throughput(self, duration_s: float, loss_ratio: float) -> float:
        """Load [pps] where the loss ratio curve reaches ``loss_ratio``; for NDR,
        where a ``duration_s`` trial loses its first whole frame."""
        duration_s, ratio = self._check_goal(duration_s, loss_ratio)
        k = self.loss_coefficient
        if ratio == 0.0:
            # Just below the load that loses exactly one frame.
            return self.knee_pps + math.sqrt(self.knee_pps / (k * duration_s)) * (1.0 - 1e-4)
        root = math.sqrt(4.0 * k * ratio + ratio * ratio)
        return self.knee_pps * (2.0 * k + ratio + root) / (2.0 * k)

    def parameters(self) -> dict[str, float]:
        """``{"knee_pps": ..., "loss_coefficient": ...}``."""
        return {"knee_pps": self.knee_pps, "loss_coefficient": self.loss_coefficient}
