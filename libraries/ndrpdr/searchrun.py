"""One NDR/PDR search on a traffic generator, kept whole even when it fails.

``run_search`` records every trial as it is measured, so a search that
stops half way (a TG error, a time limit, Ctrl-C, a Robot timeout) still
yields a record with the trials measured so far and the bounds they
support, marked incomplete. The flow is ``ndrpdr.runflow``'s, shared with
MRR and soak runs: traffic stopped, the record (``SearchRecord``) built
and handed to the caller's ``finish`` in ``finally``; a known failure
(``NdrPdrError``) ends there as a failed record, any other exception (a
Ctrl-C, a Robot timeout, a bug) propagates as it was raised, after the
record is safe. ``SearchBody`` is what a search adds to it. Loads are
aggregate over the directions [pps] (``ndrpdr.units``). With ``calibrate``
the max load is first checked against what the TG really sends
(``ndrpdr.trafficgen.calibrate``). With ``latency_duration_s`` a search
that found a PDR lower bound is followed by latency trials at 0, 10, 50
and 90 % of it (``ndrpdr.latencyrun``), kept in the record's ``latency``
section. With ``record_path`` the record
file is rewritten as the search goes (``ndrpdr.results.journal``); with
``health`` the DUTs are checked between trials (``ndrpdr.searchwatch``).
With ``state`` (a stateful family's ``StatePlan``) the TG is wrapped so
that a ramp-up and the DUT's state check come first and ramp-ups follow
as the state ages (``ndrpdr.rampup``), kept in the record's
``search.ramp_up``. With ``trial_reset`` (a stateful family's CSIT
resetter) the DUT's state is reset before every trial
(``ndrpdr.trialreset``); the trials and the record are as without it.
"""

from __future__ import annotations

import dataclasses
import datetime
import logging
import math
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ndrpdr.dut.health import HealthCheck
from ndrpdr.errors import NdrPdrError
from ndrpdr.families.stateful import StatePlan
from ndrpdr.goals import PDR_LOSS_RATIO
from ndrpdr.latencyrun import LatencyPoint, LatencyRun, measure_latency_points, not_measured
from ndrpdr.rampup import RampedTraffic
from ndrpdr.results.irregular import (
    CLI_NAMES,
    Irregularity,
    IrregularPolicy,
    SettingNames,
    Verdict,
)
from ndrpdr.results.journal import RecordJournal, unfinished_error
from ndrpdr.results.record import RecordTraffic
from ndrpdr.results.searchrecord import SearchRecord, SearchSettings, build_record, settle
from ndrpdr.runflow import RunEnd, RunHooks, RunOutcome, run_flow
from ndrpdr.search import (
    Goal,
    SearchAbortedError,
    SearchProgress,
    SearchResult,
    SearchTimeLimitError,
    TrialResult,
    result_so_far,
    search,
)
from ndrpdr.searchlimits import default_min_load
from ndrpdr.searchwatch import AfterTrial
from ndrpdr.trafficgen.base import TrafficGenerator
from ndrpdr.trafficgen.calibrate import MaxLoadCap, calibrate_max_load
from ndrpdr.trialreset import ResetTraffic

_log = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class SearchRun(RunOutcome):
    """What a run leaves: the search result, the record, the verdict on irregularities.

    ``result`` is, when the search failed or stopped, the bounds its trials
    support so far (RFC 9971 relevant bounds; the record says
    ``incomplete``). ``max_load_cap`` is the calibration, if one ran.
    """

    result: SearchResult | None
    record: SearchRecord
    verdict: Verdict
    max_load_cap: MaxLoadCap | None = None

    def record_json(self) -> dict[str, Any]:
        """The record as a JSON-ready dict."""
        return self.record.to_json()

    @property
    def error(self) -> str | None:
        """Why the run failed (the record's ``error``), None when it passed."""
        return self.record.error

    @property
    def irregular(self) -> tuple[Irregularity, ...]:
        """What is irregular about the result (``ndrpdr.results.irregular``)."""
        return self.verdict.irregularities

    @property
    def irregular_failed(self) -> bool:
        """The run failed for its irregularities (``error`` is "irregular result: ...")."""
        return self.verdict.failed


@dataclasses.dataclass(frozen=True)
class SearchRequest:
    """What to search for and how: the typed settings of one search (``run_search``)."""

    traffic: RecordTraffic
    """The testbed the search runs on (named in the record), the traffic profile the TG
    sends, the frame size [B] or IMIX name, and how many directions the traffic goes."""
    goals: tuple[Goal, ...]
    """The search goals (RFC 9971), NDR and PDR by default."""
    algorithm: str = "mlr"
    """The search algorithm (``ndrpdr.search``)."""
    intermediate_trials: bool = False
    """mlr: an intermediate-duration trial before each load's first full-length one
    (``search(..., intermediate_trials=True)``)."""
    min_load_pps: float | None = None
    """The lowest load tried, aggregate [pps]; None: ``default_min_load``."""
    max_load_pps: float | None = None
    """The highest load tried, aggregate [pps]; None: the TG's limit."""
    max_search_time_s: float | None = None
    """The search's time cap [s]; past it the search stops with the bounds so far. None: none."""
    pdr_loss_ratio: float = PDR_LOSS_RATIO
    """The loss ratio of the goal the record calls PDR."""
    calibrate: bool = False
    """First measure what the TG sends at the max load: a trial there (as long as the
    shortest initial trial duration); a max load the TG cannot reach is capped at the
    slowest of three such trials, starved ones left out (``calibrate_max_load``;
    ``RunHooks.notice`` says so, else a logged warning; the record keeps it as
    ``search.max_load_cap``)."""
    latency_duration_s: float | None = None
    """Each latency trial's duration after the search [s] (None or 0: off); a TG failure
    there leaves the bounds alone and the record's latency "failed" (``RunHooks.notice``
    hears of it)."""
    irregular: IrregularPolicy = IrregularPolicy.FAIL
    """An irregular result (a lossy min load, bounds out of order, TG-limited bounds, the
    time cap hit) fails the run with FAIL and passes with WARN
    (``ndrpdr.results.irregular.judge``)."""
    setting_names: SettingNames = CLI_NAMES
    """How the irregular messages name the settings (CLI options or Robot arguments)."""


@dataclasses.dataclass(frozen=True)
class SearchHooks(RunHooks[SearchProgress, SearchRun]):
    """A run's hooks (``progress``: ``SearchProgress``, the trial, its number, each goal's
    bounds so far) and what a search adds: where its record is kept, its DUTs' health, the
    telemetry after it, a stateful family's ramp-up (``run_search``)."""

    telemetry: Callable[[], Mapping[str, Mapping[str, str]]] | None = None
    """Read after the search; if it fails, the record has none (logged)."""
    latency_progress: Callable[[LatencyPoint], None] | None = None
    """Called after each latency point."""
    record_path: Path | None = None
    """The record file, rewritten (atomically, throttled) as the search goes with the
    trials so far, marked failed and incomplete; the caller writes the final record
    over it."""
    health: HealthCheck | None = None
    """``health(lost_all=...)`` after each trial (``lost_all``: it lost every frame); its
    DutError fails the search."""
    state: StatePlan | None = None
    """A stateful family's ramp-up and state check before the search (``ndrpdr.rampup``); a
    state check that fails fails the run before the first search trial, and ``notice``
    hears when the TG sends a sample of the flows."""
    trial_reset: Callable[[], None] | None = None
    """Resets the DUT's state before every trial (calibration and latency trials too; CSIT's
    resetter, ``ndrpdr.trialreset``); a DutError it raises fails the run."""


def _pdr_lower_bound(result: SearchResult, pdr_loss_ratio: float) -> float | None:
    """The PDR goal's relevant lower bound [pps], None when there is none (or no PDR goal)."""
    for goal_result in result.goal_results:
        if goal_result.goal.loss_ratio == pdr_loss_ratio:
            lower = goal_result.lower_bound
            return lower if lower is not None and math.isfinite(lower) and lower > 0 else None
    return None


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc)


class SearchBody:
    """What a search adds to the run flow (``ndrpdr.runflow.RunBody``): calibration, the
    search, latency trials, the journal, and the record and verdict at the end.

    ``run_flow(SearchBody(tg, request, hooks), hooks)`` is ``run_search``.
    """

    def __init__(self, tg: TrafficGenerator, request: SearchRequest, hooks: SearchHooks) -> None:
        """``tg`` runs the trials; nothing is measured before ``measure``."""
        self.ramped = None if hooks.state is None else RampedTraffic(tg, hooks.state)
        self.tg: TrafficGenerator = tg if self.ramped is None else self.ramped
        self.reset = None if hooks.trial_reset is None else ResetTraffic(self.tg, hooks.trial_reset)
        if self.reset is not None:  # the reset first, then a ramp-up if due, as CSIT's measure
            self.tg = self.reset
        self.request, self.hooks = request, hooks
        self.high = tg.max_load_pps if request.max_load_pps is None else request.max_load_pps
        self.low = self._min_load(self.high)
        self.trials: list[TrialResult] = []
        self.cap: MaxLoadCap | None = None
        self.result: SearchResult | None = None
        self.latency: LatencyRun | None = None
        self._started, self._clock_start = _now(), time.monotonic()
        self._journal: RecordJournal | None = None
        if hooks.record_path is not None:
            self._journal = RecordJournal(
                hooks.record_path, lambda: self._in_progress().to_json(), notice=hooks.notice
            )

    def _min_load(self, high: float) -> float:
        given = self.request.min_load_pps
        return default_min_load(high) if given is None else given

    def measure(self) -> None:
        """Calibrate (if asked), search, measure latency (if asked); exceptions propagate."""
        request, hooks = self.request, self.hooks
        if self._journal is not None:
            self._journal.update()  # a record from the start: a kill during calibration leaves one
        if self.ramped is not None:
            self.ramped.prepare()
            if hooks.notice is not None and self.ramped.plan.flows_sent < self.ramped.plan.flows:
                hooks.notice(self.ramped.note())
            _log.info("%s", self.ramped.note())
        if request.calibrate:
            self._calibrate()
        self.result = search(
            self.tg,
            request.goals,
            self.low,
            self.high,
            request.algorithm,
            max_search_time=request.max_search_time_s,
            intermediate_trials=request.intermediate_trials,
            progress=AfterTrial(
                self.trials, journal=self._journal, progress=hooks.progress, health=hooks.health
            ),
        )
        self.latency = measure_latency_points(
            self.tg,
            pdr_pps=_pdr_lower_bound(self.result, request.pdr_loss_ratio),
            duration_s=request.latency_duration_s,
            tg_name=f"the {request.traffic.topology.tg.driver} TG",
            notice=hooks.notice,
            progress=hooks.latency_progress,
        )

    def _calibrate(self) -> None:
        request = self.request
        self.cap = cap = calibrate_max_load(
            self.tg,
            self.high,
            min(goal.initial_trial_duration for goal in request.goals),
            min_load_pps=request.min_load_pps,
        )
        _log.info("%s", cap.describe())
        if cap.capped_pps is not None:
            if self.hooks.notice is not None:
                self.hooks.notice(cap.describe())
            else:
                _log.warning("%s", cap.describe())
            self.high = cap.capped_pps
            self.low = self._min_load(self.high)

    def stop_traffic(self) -> None:
        """Stop the TG's traffic (the ramped TG's, for a stateful family)."""
        self.tg.stop_traffic()

    def conclude(self, end: RunEnd) -> SearchRun:
        """The run's outcome: the record of the trials so far, settled (``settle``)."""
        if self._journal is not None:
            self._journal.flush()  # the last trials, should the caller's final write fail
        if isinstance(end.exc, SearchAbortedError):
            self.result = end.exc.partial
        time_capped = isinstance(end.exc, SearchTimeLimitError)
        request = self.request
        result = self.result
        if result is None:  # stopped early: the bounds of the trials so far
            result = self._so_far()
        latency = self.latency
        if latency is None:
            off = request.latency_duration_s is None or request.latency_duration_s <= 0
            latency = not_measured("turned off" if off else "the search did not finish")
        texts: Mapping[str, Mapping[str, str]] | None = None
        if self.hooks.telemetry is not None:
            try:
                texts = self.hooks.telemetry()
            except NdrPdrError as exc:  # a DUT that cannot report must not lose the record
                _log.warning("telemetry after the search could not be collected: %s", exc)
        record = self._record(result, end.error, latency, telemetry=texts, time_capped=time_capped)
        settled, verdict = settle(record, request.irregular, request.setting_names)
        return SearchRun(
            result=result,
            record=settled,
            verdict=verdict,
            max_load_cap=self.cap,
            failure=end.failure,
        )

    def _so_far(self) -> SearchResult:
        """The bounds the trials so far support (RFC 9971 over them)."""
        wall = time.monotonic() - self._clock_start
        request = self.request
        return result_so_far(
            request.goals,
            self.trials,
            self.low,
            self.high,
            algorithm=request.algorithm,
            wall_time=wall,
        )

    def _record(
        self,
        result: SearchResult,
        error: str | None,
        latency: LatencyRun,
        *,
        telemetry: Mapping[str, Mapping[str, str]] | None = None,
        time_capped: bool = False,
    ) -> SearchRecord:
        """The record of the run with the trials so far (not settled)."""
        request = self.request
        traffic = request.traffic
        return build_record(
            topology=traffic.topology,
            profile=traffic.profile,
            frame_size=traffic.frame_size,
            settings=SearchSettings(
                request.algorithm,
                request.goals,
                self.low,
                self.high,
                request.pdr_loss_ratio,
                request.max_search_time_s,
                request.intermediate_trials,
            ),
            result=result,
            trials=self.trials,
            started=self._started,
            finished=_now(),
            error=error,
            telemetry=telemetry,
            directions=traffic.directions,
            max_load_cap=None if self.cap is None else self.cap.to_json(),
            latency=latency.to_json(),
            time_capped=time_capped,
            ramp_up=None if self.ramped is None else self.ramped.to_json(),
        )

    def _in_progress(self) -> SearchRecord:
        return self._record(
            self._so_far(),
            unfinished_error(len(self.trials)),
            not_measured("the search had not finished"),
        )


def run_search(
    tg: TrafficGenerator, request: SearchRequest, hooks: SearchHooks = SearchHooks()
) -> SearchRun:
    """Run one search over ``tg`` as ``request`` says and build its record (``run_flow``).

    ``hooks`` hear of it as it goes (each field says when). An NdrPdrError
    (a TG or DUT failure, a time limit) does not propagate: the run comes
    back failed, with the error text and every trial measured so far. A
    Ctrl-C or SIGTERM (KeyboardInterrupt) or any other exception (a Robot
    timeout) propagates as raised, after ``hooks.finish`` saw the record
    (error "interrupted ...", "stopped by <type>: ..."). Traffic is stopped
    in every case; a failure to stop it fails the run too.
    """
    return run_flow(SearchBody(tg, request, hooks), hooks)
