"""Bursty loss in a soak: trials that the soak's smooth loss model cannot explain.

The soak search (``ndrpdr.search.soakfit``) fits loss that grows smoothly
with the load, with Poisson counts. A DUT whose loss comes in bursts (rare
interrupts, loss at random near a knee, a capacity that moves from trial to
trial, spells of contention) does what no such curve does: one trial loses
far more than the target allows while another, with at least as many
frames and at a load at least as high, stays within it. The posterior then still narrows
on the trials' loads, and its spread claims a precision the trials do not
have (on the simulator's bursty models the 95 % interval held the truth in
0-30 % of the runs, against 95-100 % on the smooth ones).

``find_bursts(trials, loss_ratio)`` counts such *contradicted* trials: each
lost more than ``BURST_TARGETS`` times the target's allowance (and more
than ``MIN_FRAMES`` frames) while a trial with at least as many frames, at
a load no lower (within the target as a relative tolerance: loads closer
than that are the same load to a curve measured at that target), lost at
most the allowance. A deep buffer cannot cause it (at a load no lower, as
many frames or more are as many excess frames or more over any capacity,
however long each trial was), a smooth curve cannot either (the clean
trial is at least as high): on
the simulator's smooth models (sharp, gradual, duration, overload; 80 seeds
each) no soak had one, while ``MIN_CONTRADICTED`` or more were found in
29-40 of 40 soaks on transient, noisyknee, spells and jitter. The result
keeps its estimate; the record, the message and the test's warning say its
spread understates the error.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from ndrpdr.search.soakfit import Observation
from ndrpdr.search.trial import TrialResult
from ndrpdr.units import format_rate

#: A trial losing more than this many times the target's allowance is far beyond it.
BURST_TARGETS = 10.0
#: ... and more than this many frames (a short trial's allowance is a fraction of a frame).
MIN_FRAMES = 10.0
#: This many contradicted trials make a soak's loss bursty.
MIN_CONTRADICTED = 3


@dataclasses.dataclass(frozen=True)
class Bursts:
    """The evidence of bursty loss in a soak's trials.

    contradicted: trials that lost far beyond the target while a trial with
        at least as many frames at a load no lower stayed within it; trials: all;
    lowest_load: the lowest load of a contradicted trial [pps];
    example: one such pair, said in words.
    """

    contradicted: int
    trials: int
    lowest_load: float
    example: str

    def to_json(self) -> dict[str, object]:
        """The record's ``soak.bursts``."""
        return {
            "contradicted": self.contradicted,
            "trials": self.trials,
            "lowest_load_pps": self.lowest_load,
            "example": self.example,
        }


def bursts_text(section: Mapping[str, Any]) -> str:
    """The sentence for a record's ``soak.bursts`` (``Bursts.to_json``), for the message and
    the test's warning."""
    return (
        f"loss came in bursts: {section['contradicted']} of {section['trials']} trials lost "
        f"over {BURST_TARGETS:g}x the target while a trial of as many frames or more at a load "
        f"as high or higher did not ({section['example']}); the estimate assumes loss that grows "
        "smoothly with the load, so its spread understates the error"
    )


def _said(number: int, trial: TrialResult) -> str:
    lost = Observation.of(trial).lost
    what = f"lost {lost:.0f} frames" if lost >= 0.5 else "lost none"
    return f"trial {number} ({trial.duration:g} s at {format_rate(trial.load)}) {what}"


def find_bursts(trials: Sequence[TrialResult], loss_ratio: float) -> Bursts | None:
    """The evidence of bursty loss (see the module), None when there is too little."""
    # As the soak fit reads them: frames meant to be sent, unsent ones counted as lost.
    seen = [Observation.of(trial) for trial in trials]
    found: list[tuple[int, int]] = []  # (contradicted trial, a clean trial that contradicts it)
    for index, trial in enumerate(seen):
        if trial.lost <= max(BURST_TARGETS * loss_ratio * trial.frames, MIN_FRAMES):
            continue
        floor = trial.load * (1.0 - loss_ratio)
        for other_index, other in enumerate(seen):
            if other_index == index or other.load < floor or other.frames < trial.frames:
                continue
            if other.lost <= loss_ratio * other.frames:
                found.append((index, other_index))
                break
    if len(found) < MIN_CONTRADICTED:
        return None
    lossy, clean = found[0]
    return Bursts(
        contradicted=len(found),
        trials=len(trials),
        lowest_load=min(trials[i].load for i, _ in found),
        example=f"{_said(lossy + 1, trials[lossy])}, {_said(clean + 1, trials[clean])}",
    )
