"""A flapping DUT: trials that contradict each other far beyond what noise explains.

A DUT's loss grows with the load, and a noisy DUT's trials disagree by a
little: a few frames, a few percent near its knee. That is what a goal's
exceed ratio is for. A DUT whose capacity jumps between two levels from
trial to trial does something no exceed ratio explains: at one load a
trial loses a large share of its frames while, at the same or a higher
load and the same trial duration, another forwards everything. Between the
two levels every trial is a coin toss, so the bounds a search reports
there are arbitrary.

``find_flapping(trials, pass_loss_ratio)`` looks for that evidence in a
record's trials: each *contradicted* trial lost at least
``FLAP_LOSS_RATIO`` of at least ``MIN_FRAMES`` frames, while a trial of the
same duration at a load at least as high lost at most ``pass_loss_ratio``
(the loosest goal's loss ratio). The DUT's own loss is used (lost over
offered), so frames the TG did not send never count as a contradiction.
Two conditions make a flapping DUT. First, ``MIN_CONTRADICTED`` such
trials: one or two may be glitches that repeats settle (a link flap, a
second in which a DUT sharing its CPUs was not scheduled, a DUT still
warming up). VPP on the local and lab-in-a-box testbeds, sharing 2 CPUs
with the TG, was seen losing 26-95 % in two trials of a search at a load
that passed later. Second, they must be at least ``MIN_SHARE`` of the
trials of their duration whose loads lie in the band they span (from the
lowest contradicted load to the highest passing one). A DUT that flaps does
so in a good share of the trials between its levels; rare interrupts on a
shared CPU are noise that the goals' exceed ratio and repeats absorb (2 of
199 trials in that band, seen on the lab in a box with three VPPs and TRex
on 2 CPUs).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from ndrpdr.search.trial import TrialResult
from ndrpdr.units import format_percent, format_rate

#: A trial losing this share of its frames is far beyond a noisy DUT's few percent.
FLAP_LOSS_RATIO = 0.1
#: A trial needs this many frames for its loss share to mean anything (10 % of it: 100 frames).
MIN_FRAMES = 1000
#: Contradicted trials it takes to call the DUT flapping.
MIN_CONTRADICTED = 3
#: The least share of the trials in the contradicted band that must be contradicted.
MIN_SHARE = 0.1
#: Loads closer than this (relative) count as the same load.
_SAME_LOAD = 1e-9


@dataclasses.dataclass(frozen=True)
class TrialView:
    """What the judgement reads of one trial (``TrialResult``)."""

    number: int
    duration_s: float
    load_pps: float
    offered_count: float
    loss_count: float

    @property
    def dut_loss_ratio(self) -> float:
        """Lost over offered frames (1 when nothing was offered)."""
        return self.loss_count / self.offered_count if self.offered_count > 0 else 1.0

    @classmethod
    def from_trial(cls, index: int, trial: TrialResult) -> TrialView:
        """The view of a search's trial ``index`` (counted from 0; its number from 1)."""
        return cls(
            number=index + 1,
            duration_s=trial.duration,
            load_pps=trial.load,
            offered_count=trial.offered_count,
            loss_count=max(0.0, trial.loss_count or 0.0),
        )


@dataclasses.dataclass(frozen=True)
class Contradiction:
    """A heavily losing trial and the trial that, at a load as high or higher, passed."""

    lossy: TrialView
    passing: TrialView


@dataclasses.dataclass(frozen=True)
class Flapping:
    """The evidence of a flapping DUT: every contradicted trial, the widest contradiction,
    and how many trials there were of the durations concerned."""

    contradictions: tuple[Contradiction, ...]
    trials_seen: int

    @property
    def widest(self) -> Contradiction:
        """The contradiction whose lossy trial lost the largest share."""
        return max(self.contradictions, key=lambda c: c.lossy.dut_loss_ratio)

    def describe(self) -> str:
        """The evidence in a sentence: loads, trial numbers, losses, counts."""
        lossy, passing = self.widest.lossy, self.widest.passing
        where = (
            "at the same load"
            if passing.load_pps <= lossy.load_pps * (1 + _SAME_LOAD)
            else f"at a higher load, {format_rate(passing.load_pps)}"
        )
        return (
            f"trial {lossy.number} ({lossy.duration_s:g} s at {format_rate(lossy.load_pps)}) "
            f"lost {format_percent(lossy.dut_loss_ratio)} % of {lossy.offered_count:.0f} frames "
            f"while trial {passing.number} ({passing.duration_s:g} s {where}) lost "
            f"{format_percent(passing.dut_loss_ratio)} %; {len(self.contradictions)} of "
            f"{self.trials_seen} trials lost {format_percent(FLAP_LOSS_RATIO)} % or more where "
            "a trial as long at a load as high passed"
        )


def find_flapping(trials: Sequence[TrialView], pass_loss_ratio: float) -> Flapping | None:
    """The evidence of a flapping DUT in ``trials``, None when there is too little.

    ``pass_loss_ratio``: the most a trial may lose and still pass (the loosest goal's).
    """
    found: list[Contradiction] = []
    concerned: set[float] = set()
    for duration in sorted({t.duration_s for t in trials}):
        same = [t for t in trials if t.duration_s == duration]
        passing = [t for t in same if t.offered_count > 0 and t.dut_loss_ratio <= pass_loss_ratio]
        if not passing:
            continue
        contradictions: list[Contradiction] = []
        for lossy in same:
            if lossy.offered_count < MIN_FRAMES or lossy.dut_loss_ratio < FLAP_LOSS_RATIO:
                continue
            above = [p for p in passing if p.load_pps >= lossy.load_pps * (1 - _SAME_LOAD)]
            if above:
                contradictions.append(Contradiction(lossy, max(above, key=lambda p: p.load_pps)))
        if contradictions and len(contradictions) >= MIN_SHARE * len(_band(same, contradictions)):
            found.extend(contradictions)
            concerned.add(duration)
    if len(found) < MIN_CONTRADICTED:
        return None
    seen = sum(1 for t in trials if t.duration_s in concerned)
    return Flapping(tuple(found), seen)


def _band(same: Sequence[TrialView], contradictions: Sequence[Contradiction]) -> list[TrialView]:
    """The trials of ``same`` whose loads lie in the band the contradictions span."""
    low = min(c.lossy.load_pps for c in contradictions) * (1 - _SAME_LOAD)
    high = max(c.passing.load_pps for c in contradictions) * (1 + _SAME_LOAD)
    return [t for t in same if low <= t.load_pps <= high]
