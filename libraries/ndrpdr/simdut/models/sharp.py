"""The ``sharp`` model: a DUT with a hard capacity cliff."""

from __future__ import annotations

from typing import ClassVar

from ndrpdr.simdut.models.base import (
    DeterministicModel,
    check_positive,
    cliff_loss_ratio,
    cliff_throughput,
)


class SharpCliff(DeterministicModel):
    """A DUT that forwards everything up to its capacity and exactly its capacity above.

    Models a well-behaved software data plane (e.g. VPP or DPDK l3fwd on
    dedicated cores): a fixed per-packet cost gives a fixed capacity, and
    any excess overflows the receive rings. Forwarding rate is
    ``min(load, capacity_pps)`` [pps], whatever the trial duration.

    Truth: ``capacity_pps / (1 - loss_ratio)`` for any duration (NDR is the
    capacity itself).
    """

    NAME: ClassVar[str] = "sharp"

    def __init__(self, capacity_pps: float) -> None:
        """``capacity_pps``: highest forwarding rate [pps], > 0."""
        self.capacity_pps = check_positive("capacity_pps", capacity_pps)

    def loss_ratio(self, duration_s: float, load_pps: float) -> float:
        """Exact loss ratio of a trial at ``load_pps`` [pps] (independent of duration)."""
        return cliff_loss_ratio(self.capacity_pps, load_pps)

    def true_throughput(self, duration_s: float, loss_ratio: float) -> float:
        """``capacity_pps / (1 - loss_ratio)`` [pps], for any ``duration_s`` [s]."""
        _, loss_ratio = self._check_goal(duration_s, loss_ratio)
        return cliff_throughput(self.capacity_pps, loss_ratio)

    def parameters(self) -> dict[str, float]:
        """``{"capacity_pps": ...}``."""
        return {"capacity_pps": self.capacity_pps}
