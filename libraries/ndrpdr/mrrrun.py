"""One MRR measurement, CSIT's MRR test type: ``trials`` trials at one load, no search.

What an MRR run adds to the run flow (``ndrpdr.runflow``): the trials in
order, and the MRR record (``ndrpdr.results.mrrrecord``) of those measured,
made however the run ends (``status`` "failed" with the error as a
search's record says it).
"""

from __future__ import annotations

import dataclasses
import datetime
from typing import Any

from ndrpdr.results.mrrrecord import build_mrr_record
from ndrpdr.results.record import RecordTraffic
from ndrpdr.runflow import RunEnd, RunHooks, RunOutcome, run_flow
from ndrpdr.search.trial import TrialResult
from ndrpdr.trafficgen.base import TrafficGenerator


@dataclasses.dataclass(frozen=True)
class MrrRequest:
    """What one MRR measurement sends: ``trials`` trials of ``trial_duration_s`` at ``load_pps``."""

    traffic: RecordTraffic
    load_pps: float
    trial_duration_s: float
    trials: int


@dataclasses.dataclass(frozen=True)
class MrrProgress:
    """After one trial: its number (from 1) and the trial."""

    trial_number: int
    trial: TrialResult


@dataclasses.dataclass(frozen=True)
class MrrRun(RunOutcome):
    """What an MRR run leaves: its record (a JSON-ready dict)."""

    record: dict[str, Any]

    def record_json(self) -> dict[str, Any]:
        """The record."""
        return self.record


#: Who hears of an MRR run (``progress`` after each trial, ``finish`` at the end).
MrrHooks = RunHooks[MrrProgress, MrrRun]


class MrrBody:
    """The trials of an MRR run and its record (``ndrpdr.runflow.RunBody``)."""

    def __init__(self, tg: TrafficGenerator, request: MrrRequest, hooks: MrrHooks) -> None:
        self.tg, self.request, self.hooks = tg, request, hooks
        self.trials: list[TrialResult] = []
        self.started = datetime.datetime.now(datetime.timezone.utc)

    def measure(self) -> None:
        """The trials, in order."""
        request = self.request
        for number in range(1, request.trials + 1):
            trial = self.tg.measure(request.trial_duration_s, request.load_pps)
            self.trials.append(trial)
            if self.hooks.progress is not None:
                self.hooks.progress(MrrProgress(number, trial))

    def stop_traffic(self) -> None:
        """Stop the TG's traffic."""
        self.tg.stop_traffic()

    def conclude(self, end: RunEnd) -> MrrRun:
        """The record of the trials measured."""
        request = self.request
        record = build_mrr_record(
            traffic=request.traffic,
            load_pps=request.load_pps,
            trial_duration_s=request.trial_duration_s,
            trials=self.trials,
            started=self.started,
            finished=datetime.datetime.now(datetime.timezone.utc),
            error=end.error,
        )
        return MrrRun(record=record, failure=end.failure)


def run_mrr(tg: TrafficGenerator, request: MrrRequest, hooks: MrrHooks | None = None) -> MrrRun:
    """Measure, then return the run with its MRR record (also given to ``hooks.finish``).

    ``hooks`` hear of it as it goes (None: nobody). As ``run_search``: a
    known failure (NdrPdrError) comes back in the run (``failure``, the
    record's ``error``), anything else propagates after ``hooks.finish``;
    traffic is stopped in every case, and a failure to stop it fails the
    run without losing its record.
    """
    hooks = MrrHooks() if hooks is None else hooks
    return run_flow(MrrBody(tg, request, hooks), hooks)
