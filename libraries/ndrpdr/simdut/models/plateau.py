"""The ``plateau`` model: loss that starts far below the capacity and stays a few in 1000."""

from __future__ import annotations

import math
import random
from typing import ClassVar

from ndrpdr.search.errors import SearchInputError
from ndrpdr.simdut.models.base import (
    ModelBase,
    check_fraction,
    check_non_negative,
    check_positive,
    cliff_loss_ratio,
    highest_passing,
    offered_frames,
    whole_frames_lost,
)

_BISECTION_STEPS = 200


class LossPlateau(ModelBase):
    """A capacity cliff with a plateau of small loss far below it.

    The shape the Linux kernel showed forwarding on the lab in a box (real
    TRex, ``benchmarks.real_dut``): no loss up to the onset ``L0`` =
    ``onset_fraction * C`` (``C`` = ``capacity_pps``); above it the loss
    ratio rises over ``ramp_fraction * C`` to a plateau ``level`` (a few in
    1000, below the usual PDR's 0.5 %) and stays there up to the cliff at
    ``C``. So NDR lies a third of the way up, PDR at the cliff, and every
    load between loses a little. Of the plateau's loss, ``burst_share``
    comes once per trial (a burst at its start: ``level * burst_share * L
    * 1 s`` frames) and the rest per second, so short trials lose a larger
    share than long ones (the kernel's 1 s trials lost 0.1-0.4 %, its 10 s
    trials at the same loads 0.02-0.36 %). A trial's plateau loss is
    scaled by ``exp(spread * Z)``, ``Z`` standard normal (one draw per
    trial). Above ``C`` the cliff's loss comes on top.

    Truth (noisy model): the highest load whose median trial (``Z = 0``)
    meets the goal, in whole frames; the median trial's loss ratio rises
    with the load, so a bisection finds it. For NDR that is ``L0`` (within
    a frame) for every duration.
    """

    NAME: ClassVar[str] = "plateau"
    DETERMINISTIC: ClassVar[bool] = False

    def __init__(
        self,
        capacity_pps: float,
        onset_fraction: float,
        ramp_fraction: float,
        level: float,
        burst_share: float,
        spread: float,
    ) -> None:
        """``capacity_pps`` [pps] > 0; ``onset_fraction`` in (0, 1); ``ramp_fraction``
        > 0 with onset + ramp <= 1; ``level`` in (0, 0.5); ``burst_share`` in [0, 1];
        ``spread`` >= 0."""
        self.capacity_pps = check_positive("capacity_pps", capacity_pps)
        self.onset_fraction = check_positive("onset_fraction", onset_fraction)
        self.ramp_fraction = check_positive("ramp_fraction", ramp_fraction)
        if self.onset_fraction + self.ramp_fraction > 1.0:
            raise SearchInputError(
                f"onset_fraction={onset_fraction!r} + ramp_fraction={ramp_fraction!r} "
                "must be <= 1: the plateau is reached below the capacity"
            )
        self.level = check_positive("level", check_fraction("level", level, upper=0.5))
        self.burst_share = check_non_negative("burst_share", burst_share)
        if self.burst_share > 1.0:
            raise SearchInputError(f"burst_share={burst_share!r} must be <= 1")
        self.spread = check_non_negative("spread", spread)

    @property
    def onset_pps(self) -> float:
        """The highest load [pps] at which no trial loses anything."""
        return self.onset_fraction * self.capacity_pps

    def plateau_ratio(self, load_pps: float) -> float:
        """The plateau's loss ratio per second of traffic at ``load_pps`` [pps] (no burst)."""
        onset = self.onset_pps
        if load_pps <= onset:
            return 0.0
        rise = (load_pps - onset) / (self.ramp_fraction * self.capacity_pps)
        return self.level * min(1.0, rise)

    def loss_ratio(self, duration_s: float, load_pps: float, scale: float = 1.0) -> float:
        """The real-valued loss ratio of a trial whose plateau loss is scaled by ``scale``
        (``exp(spread * Z)``; 1 for the median trial)."""
        per_trial = self.burst_share / duration_s + (1.0 - self.burst_share)
        plateau = self.plateau_ratio(load_pps) * per_trial * scale
        return min(1.0, cliff_loss_ratio(self.capacity_pps, load_pps) + plateau)

    def long_run_loss_ratio(self, load_pps: float) -> float:
        """Lost over sent frames over a long time: the cliff's and the per-second part of
        the plateau (the per-trial burst vanishes), scaled by E[exp(spread Z)]."""
        mean_scale = math.exp(self.spread**2 / 2.0)
        plateau = (1.0 - self.burst_share) * self.plateau_ratio(load_pps) * mean_scale
        return min(1.0, cliff_loss_ratio(self.capacity_pps, load_pps) + plateau)

    def true_throughput(self, duration_s: float, loss_ratio: float) -> float:
        """The highest load [pps] whose median ``duration_s`` trial meets ``loss_ratio``."""
        duration_s, loss_ratio = self._check_goal(duration_s, loss_ratio)

        def passes(load: float) -> bool:
            offered = offered_frames(duration_s, load)
            lost = whole_frames_lost(offered, self.loss_ratio(duration_s, load))
            return lost <= loss_ratio * offered

        low = self.onset_pps
        high = 2.0 * self.capacity_pps / (1.0 - loss_ratio)
        return highest_passing(low, high, passes, _BISECTION_STEPS)

    def trial(self, duration_s: float, load_pps: float, rng: random.Random) -> tuple[int, int]:
        """Run one trial: ``(offered_count, forwarded_count)`` [frames]."""
        duration_s, load_pps = self._check_trial(duration_s, load_pps)
        # One draw in every trial, so one trial's load never shifts the
        # random stream of the trials after it.
        scale = math.exp(self.spread * rng.gauss(0.0, 1.0))
        offered = offered_frames(duration_s, load_pps)
        if offered == 0:
            return 0, 0
        lost = whole_frames_lost(offered, self.loss_ratio(duration_s, load_pps, scale))
        return offered, offered - lost

    def parameters(self) -> dict[str, float]:
        """The constructor's arguments by name."""
        return {
            "capacity_pps": self.capacity_pps,
            "onset_fraction": self.onset_fraction,
            "ramp_fraction": self.ramp_fraction,
            "level": self.level,
            "burst_share": self.burst_share,
            "spread": self.spread,
        }
