"""The ``noisyknee`` model: a band below the capacity where trials lose at random."""

from __future__ import annotations

import math
import random
from typing import ClassVar

from ndrpdr.search.errors import SearchInputError
from ndrpdr.simdut.models.base import (
    ModelBase,
    check_fraction,
    check_positive,
    cliff_loss_ratio,
    highest_passing,
    offered_frames,
    whole_frames_lost,
)

_BISECTION_STEPS = 200


class NoisyKnee(ModelBase):
    """A capacity cliff with a noisy knee below it, as a software data plane shows.

    Below the knee band (loads under ``C * (1 - band_fraction)``, with ``C``
    = ``capacity_pps``) every trial forwards every frame. Inside the band a
    trial is lossy with probability ``p(L)`` rising linearly from 0 at the
    band's bottom to ``max_loss_probability`` at ``C``; above ``C`` the
    probability stays at ``max_loss_probability`` and the cliff's loss comes
    first. A lossy trial loses a share drawn uniformly from
    [``min_loss_fraction``, ``max_loss_fraction``] of the frames the cliff
    left (a few percent), a clean one nothing. The probability does not
    depend on the trial duration (a 1 s and a 60 s trial are alike), so
    neighbouring loads in the band classify differently from trial to
    trial: the knee the local testbed shows. Each trial draws exactly two
    numbers from the rng.

    Truth (noisy model): the highest load whose trial fails the goal with
    probability at most 0.5, i.e. where the median trial meets the goal.
    For goal loss ratios below ``min_loss_fraction`` (NDR and the usual
    PDR) that is ``C * (1 - band_fraction * (1 - 0.5 / max_loss_probability))``,
    inside the band, whatever the duration.
    """

    NAME: ClassVar[str] = "noisyknee"
    DETERMINISTIC: ClassVar[bool] = False

    def __init__(
        self,
        capacity_pps: float,
        band_fraction: float,
        max_loss_probability: float,
        min_loss_fraction: float = 0.01,
        max_loss_fraction: float = 0.05,
    ) -> None:
        """``capacity_pps`` [pps] > 0; ``band_fraction`` in (0, 1) of the capacity;
        ``max_loss_probability`` in (0.5, 1]; loss fractions with
        0 < min <= max < 1."""
        self.capacity_pps = check_positive("capacity_pps", capacity_pps)
        self.band_fraction = check_fraction("band_fraction", band_fraction)
        if self.band_fraction <= 0.0:
            raise SearchInputError(f"band_fraction={band_fraction!r} must be > 0")
        self.max_loss_probability = check_positive("max_loss_probability", max_loss_probability)
        if not 0.5 < self.max_loss_probability <= 1.0:
            raise SearchInputError(
                f"max_loss_probability={max_loss_probability!r} must be in (0.5, 1]: "
                "otherwise the median trial never loses below the cliff"
            )
        self.min_loss_fraction = check_fraction("min_loss_fraction", min_loss_fraction)
        self.max_loss_fraction = check_fraction("max_loss_fraction", max_loss_fraction)
        if not 0.0 < self.min_loss_fraction <= self.max_loss_fraction:
            raise SearchInputError(
                f"min_loss_fraction={min_loss_fraction!r} must be > 0 and <= "
                f"max_loss_fraction={max_loss_fraction!r}"
            )

    @property
    def band_bottom_pps(self) -> float:
        """The highest load [pps] at which no trial loses anything."""
        return self.capacity_pps * (1.0 - self.band_fraction)

    def loss_probability(self, load_pps: float) -> float:
        """Probability [0, 1] that a trial at ``load_pps`` is lossy (has a loss episode)."""
        bottom = self.band_bottom_pps
        if load_pps <= bottom:
            return 0.0
        if load_pps >= self.capacity_pps:
            return self.max_loss_probability
        share = (load_pps - bottom) / (self.capacity_pps - bottom)
        return self.max_loss_probability * share

    def fail_probability(self, load_pps: float, loss_ratio: float) -> float:
        """Probability that a trial at ``load_pps`` loses more than ``loss_ratio``.

        Ignores whole-frame rounding (exact for large frame counts).
        """
        cliff = cliff_loss_ratio(self.capacity_pps, load_pps)
        if cliff > loss_ratio:
            return 1.0
        # A lossy trial fails when cliff + share * (1 - cliff) > loss_ratio.
        needed = (loss_ratio - cliff) / (1.0 - cliff)
        low, high = self.min_loss_fraction, self.max_loss_fraction
        if needed < low:
            beyond = 1.0
        elif needed >= high:
            beyond = 0.0
        else:
            beyond = (high - needed) / (high - low)
        return self.loss_probability(load_pps) * beyond

    def true_throughput(self, duration_s: float, loss_ratio: float) -> float:
        """The highest load [pps] whose trials fail the goal with probability <= 0.5.

        The same for every ``duration_s`` [s]. The failure probability grows
        with the load, so a bisection between the band's bottom and the
        cliff's limit for ``loss_ratio`` finds it.
        """
        _, loss_ratio = self._check_goal(duration_s, loss_ratio)
        low = self.band_bottom_pps
        high = self.capacity_pps / (1.0 - loss_ratio)
        if self.fail_probability(high, loss_ratio) <= 0.5:
            return high
        return highest_passing(
            low, high, lambda load: self.fail_probability(load, loss_ratio) <= 0.5, _BISECTION_STEPS
        )

    def trial(self, duration_s: float, load_pps: float, rng: random.Random) -> tuple[int, int]:
        """Run one trial: ``(offered_count, forwarded_count)`` [frames]."""
        duration_s, load_pps = self._check_trial(duration_s, load_pps)
        offered = offered_frames(duration_s, load_pps)
        # Two draws in every trial, so one trial's load never shifts the
        # random stream of the trials after it.
        lossy = rng.random() < self.loss_probability(load_pps)
        share = rng.uniform(self.min_loss_fraction, self.max_loss_fraction)
        if offered == 0:
            return 0, 0
        lost = whole_frames_lost(offered, cliff_loss_ratio(self.capacity_pps, load_pps))
        if lossy:
            lost += max(1, math.floor(share * (offered - lost)))
        lost = min(offered, lost)
        return offered, offered - lost

    def parameters(self) -> dict[str, float]:
        """Capacity [pps], band fraction, max loss probability, loss fractions."""
        return {
            "capacity_pps": self.capacity_pps,
            "band_fraction": self.band_fraction,
            "max_loss_probability": self.max_loss_probability,
            "min_loss_fraction": self.min_loss_fraction,
            "max_loss_fraction": self.max_loss_fraction,
        }
