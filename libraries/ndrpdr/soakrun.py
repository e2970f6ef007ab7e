"""One soak search run to its record: the search, then the record, failed or not.

What a soak adds to the run flow (``ndrpdr.runflow``): the soak search
(``ndrpdr.search.soak``), and the soak record (``ndrpdr.results.soakrecord``)
of the trials measured and the estimate they gave, made however the run
ends (``status`` "failed" with the error as a search's record says it:
what the TG raised).
"""

from __future__ import annotations

import dataclasses
import datetime
from typing import Any

from ndrpdr.results.record import RecordTraffic
from ndrpdr.results.soakrecord import SoakSettings, build_soak_record
from ndrpdr.runflow import RunEnd, RunHooks, RunOutcome, run_flow
from ndrpdr.search.soak import SoakProgress, SoakResult, soak_search
from ndrpdr.search.soak.soakestimate import Estimate
from ndrpdr.search.trial import TrialResult
from ndrpdr.trafficgen.base import TrafficGenerator


@dataclasses.dataclass(frozen=True)
class SoakRequest:
    """What one soak searches: the traffic, the target and load range and time budget
    (``settings``, kept in the record), and the first trial's duration [s]."""

    traffic: RecordTraffic
    settings: SoakSettings
    initial_duration_s: float


@dataclasses.dataclass(frozen=True)
class SoakRun(RunOutcome):
    """What a soak run leaves: the search's result (None when it failed) and the record."""

    result: SoakResult | None
    record: dict[str, Any]

    def record_json(self) -> dict[str, Any]:
        """The record."""
        return self.record


#: Who hears of a soak run (``progress``: ``SoakProgress`` after each trial).
SoakHooks = RunHooks[SoakProgress, SoakRun]


class SoakBody:
    """The soak search and its record (``ndrpdr.runflow.RunBody``)."""

    def __init__(self, tg: TrafficGenerator, request: SoakRequest, hooks: SoakHooks) -> None:
        self.tg, self.request, self.hooks = tg, request, hooks
        self.trials: list[TrialResult] = []
        self.last: SoakProgress | None = None
        self.result: SoakResult | None = None
        self.started = datetime.datetime.now(datetime.timezone.utc)

    def _after_trial(self, step: SoakProgress) -> None:
        self.trials.append(step.trial)
        self.last = step
        if self.hooks.progress is not None:
            self.hooks.progress(step)

    def measure(self) -> None:
        """The soak search."""
        settings = self.request.settings
        self.result = soak_search(
            self.tg,
            settings.min_load_pps,
            settings.max_load_pps,
            time_budget=settings.time_budget_s,
            loss_ratio=settings.loss_ratio,
            initial_duration=self.request.initial_duration_s,
            progress=self._after_trial,
        )

    def stop_traffic(self) -> None:
        """Stop the TG's traffic."""
        self.tg.stop_traffic()

    def _estimate(self) -> Estimate | None:
        """The search's own when it ended (the trials' spread read in: the interval it
        reports), else the one after the last trial measured (None before any)."""
        if self.result is not None:
            return self.result.estimate
        return None if self.last is None else self.last.estimate

    def conclude(self, end: RunEnd) -> SoakRun:
        """The record of the trials measured and the search's estimate (the one after the
        last trial when the search did not end)."""
        record = build_soak_record(
            traffic=self.request.traffic,
            settings=self.request.settings,
            trials=self.trials,
            estimate=self._estimate(),
            started=self.started,
            finished=datetime.datetime.now(datetime.timezone.utc),
            stopped=None if self.result is None else self.result.stopped,
            error=end.error,
        )
        return SoakRun(result=self.result, record=record, failure=end.failure)


def run_soak(tg: TrafficGenerator, request: SoakRequest, hooks: SoakHooks | None = None) -> SoakRun:
    """Search, then return the run with its soak record (also given to ``hooks.finish``).

    ``hooks`` hear of it as it goes (None: nobody). As ``run_search``: a
    known failure (NdrPdrError, a TG failure the soak search wrapped too)
    comes back in the run (``failure``, the record's ``error``), anything
    else propagates after ``hooks.finish``; traffic is stopped in every
    case, and a failure to stop it fails the run
    without losing its record.
    """
    hooks = SoakHooks() if hooks is None else hooks
    return run_flow(SoakBody(tg, request, hooks), hooks)
