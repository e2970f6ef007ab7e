"""The ``overload`` model: forwarding collapses when the DUT is overloaded."""

from __future__ import annotations

from typing import ClassVar

from ndrpdr.simdut.models.base import DeterministicModel, check_fraction, check_positive


class OverloadCollapse(DeterministicModel):
    """A DUT whose forwarding rate falls, not saturates, above its capacity.

    Models receive livelock and its relatives: interrupt-driven kernels
    that spend their time taking interrupts for frames they then drop,
    polling loops that thrash caches when rings overflow, or flow tables
    that churn under overload. Forwarding rate [pps] is ``L`` up to ``C``,
    then ``max(floor_fraction * C, C - slope * (L - C))``. Offering line
    rate therefore yields much less than ``C``, which defeats searches
    that start at the maximum load and trust its forwarding rate.

    Truth: the first (and only) load above ``C`` where
    ``1 - rate(L) / L == loss_ratio``: ``C * (1 + a) / (1 + a - r)`` on the
    linear part (``a = slope``), else ``floor_fraction * C / (1 - r)``.
    NDR is ``C``.
    """

    NAME: ClassVar[str] = "overload"

    def __init__(self, capacity_pps: float, slope: float, floor_fraction: float) -> None:
        """``capacity_pps`` [pps]; ``slope``: rate lost per excess pps (> 0); ``floor_fraction``.

        ``floor_fraction`` in [0, 1) is the share of ``capacity_pps`` still
        forwarded under deep overload.
        """
        self.capacity_pps = check_positive("capacity_pps", capacity_pps)
        self.slope = check_positive("slope", slope)
        self.floor_fraction = check_fraction("floor_fraction", floor_fraction)

    def forwarding_rate(self, load_pps: float) -> float:
        """Rate [pps] forwarded at ``load_pps`` [pps]."""
        capacity = self.capacity_pps
        if load_pps <= capacity:
            return load_pps
        return max(self.floor_fraction * capacity, capacity - self.slope * (load_pps - capacity))

    def loss_ratio(self, duration_s: float, load_pps: float) -> float:
        """Exact loss ratio of a trial at ``load_pps`` [pps] (independent of duration)."""
        if load_pps <= self.capacity_pps:
            return 0.0
        return 1.0 - self.forwarding_rate(load_pps) / load_pps

    def true_throughput(self, duration_s: float, loss_ratio: float) -> float:
        """Load [pps] where the loss ratio first reaches ``loss_ratio`` (any ``duration_s``)."""
        _, ratio = self._check_goal(duration_s, loss_ratio)
        capacity, slope = self.capacity_pps, self.slope
        linear = capacity * (1.0 + slope) / (1.0 + slope - ratio)
        if capacity - slope * (linear - capacity) >= self.floor_fraction * capacity:
            return linear
        return self.floor_fraction * capacity / (1.0 - ratio)

    def parameters(self) -> dict[str, float]:
        """``{"capacity_pps": ..., "slope": ..., "floor_fraction": ...}``."""
        return {
            "capacity_pps": self.capacity_pps,
            "slope": self.slope,
            "floor_fraction": self.floor_fraction,
        }
