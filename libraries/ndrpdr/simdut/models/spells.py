"""The ``spells`` model: a DUT that now and then forwards less for a few seconds."""

from __future__ import annotations

import random
from typing import ClassVar

from ndrpdr.simdut.models.base import (
    ModelBase,
    check_fraction,
    check_positive,
    cliff_throughput,
    highest_passing,
    offered_frames,
    whole_frames_lost,
)

_BISECTION_STEPS = 100
_TRUTH_SAMPLES = 20_001
"""Trials drawn (from a fixed seed) to find the median spell overlap of a duration."""
_TRUTH_SEED = 20261129


class LossSpells(ModelBase):
    """A capacity cliff that drops by a share for a few seconds now and then.

    What testpmd or VPP show when they share CPUs with a software TG or
    another run: every so often, for a few seconds, the DUT forwards
    ``spell_drop`` (5-20 %) less. Spells of ``spell_s`` seconds start as a
    Poisson process of rate ``spells_per_s`` in wall time, so a trial meets
    the spells that start within it or ``spell_s`` before it. A 1 s trial
    rarely meets one; a 60 s trial nearly always does.

    A trial of ``D`` s at load ``L`` that spends ``o`` s in spells (the
    union of the spells clipped to the trial) loses
    ``max(0, L - C) * (D - o) + max(0, L - C * (1 - drop)) * o`` frames
    (whole frames, rounded down). The draws of a trial depend on its
    duration only, never on its load.

    Truth (noisy model): the loss grows with the overlap, so the median
    trial is the one with the median overlap ``m`` of that duration (found
    once per duration from a fixed seed); the truth is the highest load
    whose loss at overlap ``m`` meets the goal.
    """

    NAME: ClassVar[str] = "spells"
    DETERMINISTIC: ClassVar[bool] = False

    def __init__(
        self, capacity_pps: float, spells_per_s: float, spell_s: float, spell_drop: float
    ) -> None:
        """``capacity_pps`` [pps], ``spells_per_s`` [1/s], ``spell_s`` [s] all > 0;
        ``spell_drop`` in (0, 1): the share of the capacity lost during a spell."""
        self.capacity_pps = check_positive("capacity_pps", capacity_pps)
        self.spells_per_s = check_positive("spells_per_s", spells_per_s)
        self.spell_s = check_positive("spell_s", spell_s)
        self.spell_drop = check_positive("spell_drop", check_fraction("spell_drop", spell_drop))
        self._median_overlaps: dict[float, float] = {}

    def overlap(self, duration_s: float, rng: random.Random) -> float:
        """Seconds of a ``duration_s`` trial spent in spells, drawn from ``rng``."""
        time_s = -self.spell_s
        covered_until = 0.0
        overlap = 0.0
        while True:
            time_s += rng.expovariate(self.spells_per_s)
            if time_s >= duration_s:
                return overlap
            start = max(time_s, covered_until)
            end = min(time_s + self.spell_s, duration_s)
            if end > start:
                overlap += end - start
                covered_until = end

    def median_overlap(self, duration_s: float) -> float:
        """The median seconds in spells of a ``duration_s`` trial (fixed seed, kept)."""
        if duration_s not in self._median_overlaps:
            rng = random.Random(_TRUTH_SEED)
            samples = sorted(self.overlap(duration_s, rng) for _ in range(_TRUTH_SAMPLES))
            self._median_overlaps[duration_s] = samples[len(samples) // 2]
        return self._median_overlaps[duration_s]

    def lost_frames(self, duration_s: float, load_pps: float, overlap_s: float) -> float:
        """Frames lost (not rounded) by a trial that spends ``overlap_s`` in spells."""
        slow = self.capacity_pps * (1.0 - self.spell_drop)
        return (
            max(0.0, load_pps - self.capacity_pps) * (duration_s - overlap_s)
            + max(0.0, load_pps - slow) * overlap_s
        )

    def true_throughput(self, duration_s: float, loss_ratio: float) -> float:
        """The highest load [pps] at which the median trial meets the goal."""
        duration_s, loss_ratio = self._check_goal(duration_s, loss_ratio)
        median = self.median_overlap(duration_s)
        cliff = cliff_throughput(self.capacity_pps, loss_ratio)
        if median <= 0.0:
            return cliff

        def passes(load: float) -> bool:
            return self.lost_frames(duration_s, load, median) <= loss_ratio * load * duration_s

        low = self.capacity_pps * (1.0 - self.spell_drop)
        return highest_passing(low, cliff, passes, _BISECTION_STEPS)

    def trial(self, duration_s: float, load_pps: float, rng: random.Random) -> tuple[int, int]:
        """Run one trial: ``(offered_count, forwarded_count)`` [frames]."""
        duration_s, load_pps = self._check_trial(duration_s, load_pps)
        overlap = self.overlap(duration_s, rng)
        offered = offered_frames(duration_s, load_pps)
        if offered == 0:
            return 0, 0
        ratio = self.lost_frames(duration_s, load_pps, overlap) / (load_pps * duration_s)
        lost = whole_frames_lost(offered, ratio)
        return offered, offered - lost

    def parameters(self) -> dict[str, float]:
        """Capacity [pps], spell rate [1/s], spell length [s] and drop (share)."""
        return {
            "capacity_pps": self.capacity_pps,
            "spells_per_s": self.spells_per_s,
            "spell_s": self.spell_s,
            "spell_drop": self.spell_drop,
        }
