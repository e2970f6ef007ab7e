"""What a running search does after each trial besides searching: keep the record, check DUTs.

``AfterTrial`` is the progress callback ``run_search`` gives the search
engine (which stays pure: it only calls it). After each trial it keeps the
trial, rewrites the in-progress record file (``RecordJournal``), shows the
trial (the caller's progress callback), then asks the DUTs whether they
still forward (``HealthCheck``): every time the DUT access allows it, and
always after a trial that lost every frame (a dead DUT looks like 100 %
loss, at any load, the min load too). A failed health check raises its
DutError, which ends the search as a failure with the trials so far.
"""

from __future__ import annotations

from collections.abc import Callable

from ndrpdr.dut.health import HealthCheck
from ndrpdr.interrupts import raise_if_interrupted
from ndrpdr.results.journal import RecordJournal
from ndrpdr.search import SearchProgress, TrialResult


def lost_every_frame(trial: TrialResult) -> bool:
    """True when a trial that meant to send frames got none through (loss ratio 1)."""
    return trial.load > 0 and trial.loss_ratio >= 1.0


class AfterTrial:
    """The search's progress callback: keep the trial, journal it, show it, check the DUTs."""

    def __init__(
        self,
        trials: list[TrialResult],
        *,
        journal: RecordJournal | None = None,
        progress: Callable[[SearchProgress], None] | None = None,
        health: HealthCheck | None = None,
    ) -> None:
        """``trials`` is the run's list, appended to in place."""
        self.trials = trials
        self.journal = journal
        self.progress = progress
        self.health = health
        #: Health checks asked for because a trial lost every frame.
        self.forced_checks = 0

    def __call__(self, snapshot: SearchProgress) -> None:
        """Handle one trial (a DutError from the health check propagates; so does a Ctrl-C
        whose first KeyboardInterrupt Python dropped: ``ndrpdr.interrupts``)."""
        self.trials.append(snapshot.trial)
        if self.journal is not None:
            self.journal.update()
        if self.progress is not None:
            self.progress(snapshot)
        if self.health is not None:
            lost_all = lost_every_frame(snapshot.trial)
            self.forced_checks += lost_all
            self.health(lost_all=lost_all)
        raise_if_interrupted()
