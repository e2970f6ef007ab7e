"""Bursty loss in a soak: trials that no loss curve growing smoothly with the load explains.

A DUT whose loss comes in bursts (rare interrupts, loss at random near a
knee, a capacity that moves from trial to trial, spells of contention) does
what no smooth curve does: one trial loses far more than the target allows
while another, with at least as many frames and at a load at least as high
(or a few targets below: no loss grows that steeply with the load), stays
within it (``ndrpdr.search.soak.soakbursty.contradicted``). A deep buffer
cannot give such a pair either (at a load no lower, as many frames or more
are as many excess frames or more over any capacity; a shorter clean trial
counts only where the buffer it needs is over a second deep), nor can a few frames
lost per trial whatever its length, once a longer trial allows them and
loses far fewer (``per_trial_frames``: they vanish from the long-run average). From the first such
trial on (``MIN_CONTRADICTED``), the soak's fit changes model
(``ndrpdr.search.soak.soakfit``): it reads how often trials lost rather than how
much, since a Poisson count of frames would take every clean trial as proof
that the average loss is tiny there and claim a precision the trials do not
have. The record, the message and the test's warning say so. On the
simulator (``python -m benchmarks.soak``) the smooth models (sharp, gradual,
duration, overload) never have one; the figures for the bursty ones are in
docs/search-engine.rst.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from ndrpdr.search.soak.soakbursty import BURST_TARGETS, MIN_CONTRADICTED, contradicted
from ndrpdr.search.soak.soakfit import Observation, as_read
from ndrpdr.search.trial import TrialResult
from ndrpdr.units import format_rate


@dataclasses.dataclass(frozen=True)
class Bursts:
    """The evidence of bursty loss in a soak's trials.

    contradicted: trials that lost far beyond the target while a trial with
        at least as many frames (or too many for a buffer) at a load no lower stayed
        within it; trials: all;
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
        f"over {BURST_TARGETS:g}x the target while a trial at a load as high or nearly, of as "
        "many frames or more or of too many for any buffer to explain, did not "
        f"({section['example']}); the estimate reads how often "
        "trials lost, not how much, and its interval is wide"
    )


def _said(number: int, trial: TrialResult) -> str:
    lost = Observation.of(trial).lost
    what = f"lost {lost:.0f} frames" if lost >= 0.5 else "lost none"
    return f"trial {number} ({trial.duration:g} s at {format_rate(trial.load)}) {what}"


def find_bursts(trials: Sequence[TrialResult], loss_ratio: float) -> Bursts | None:
    """The evidence of bursty loss (see the module), None when there is too little."""
    # As the soak fit reads them: frames meant to be sent, unsent ones counted as lost.
    # A few frames lost per trial whatever its length are no bursts (``per_trial_frames``).
    _, seen = as_read([Observation.of(trial) for trial in trials], loss_ratio)
    found = contradicted(seen, loss_ratio)
    if len(found) < MIN_CONTRADICTED:
        return None
    lossy, clean = found[0]
    return Bursts(
        contradicted=len(found),
        trials=len(trials),
        lowest_load=min(trials[i].load for i, _ in found),
        example=f"{_said(lossy + 1, trials[lossy])}, {_said(clean + 1, trials[clean])}",
    )
