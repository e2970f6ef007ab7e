"""The ``duration`` model: a buffer that makes short trials look better."""

from __future__ import annotations

from typing import ClassVar

from ndrpdr.simdut.models.base import (
    DeterministicModel,
    check_non_negative,
    check_positive,
)


class DurationDependent(DeterministicModel):
    """A capacity cliff behind a large buffer: short trials overstate the capacity.

    Models DUTs with deep queues (large descriptor rings, a vSwitch or VM
    in the path, a shaper's burst bucket, a software queue between
    threads): above capacity the excess first fills ``buffer_frames`` and
    only then is dropped, so a trial of ``D`` seconds at load ``L`` [pps]
    loses ``max(0, (L - C) * D - B)`` frames. This is RFC 9971's "strong
    increase" of loss with trial duration.

    Truth: ``(C + B / D) / (1 - loss_ratio)`` [pps] for trials of ``D`` s;
    it falls towards the cliff truth ``C / (1 - loss_ratio)`` as ``D`` grows.
    """

    NAME: ClassVar[str] = "duration"

    def __init__(self, capacity_pps: float, buffer_frames: float) -> None:
        """``capacity_pps``: sustained rate [pps]; ``buffer_frames``: excess absorbed [frames]."""
        self.capacity_pps = check_positive("capacity_pps", capacity_pps)
        self.buffer_frames = check_non_negative("buffer_frames", buffer_frames)

    def loss_ratio(self, duration_s: float, load_pps: float) -> float:
        """Exact loss ratio of a ``duration_s`` [s] trial at ``load_pps`` [pps]."""
        if load_pps <= self.capacity_pps:
            return 0.0
        lost = (load_pps - self.capacity_pps) * duration_s - self.buffer_frames
        return max(0.0, lost / (load_pps * duration_s))

    def true_throughput(self, duration_s: float, loss_ratio: float) -> float:
        """``(C + B / duration_s) / (1 - loss_ratio)`` [pps]."""
        duration_s, loss_ratio = self._check_goal(duration_s, loss_ratio)
        return (self.capacity_pps + self.buffer_frames / duration_s) / (1.0 - loss_ratio)

    def parameters(self) -> dict[str, float]:
        """``{"capacity_pps": ..., "buffer_frames": ...}``."""
        return {"capacity_pps": self.capacity_pps, "buffer_frames": self.buffer_frames}
