"""One NDR/PDR search on a traffic generator, kept whole even when it fails.

``run_search`` records every trial as it is measured, so a search that
stops half way (a TG error, a time limit, Ctrl-C, a Robot timeout) still
yields a record with the trials measured so far and the bounds they
support, marked incomplete. The flow is a context manager,
``RecordedRun`` (as Robot Framework's status reporter around a keyword):
its ``__exit__`` stops traffic, builds the record (``SearchRecord``) and
hands it to the caller's ``finish`` in ``finally``; a known failure
(``NdrPdrError``) ends there as a failed record, any other exception (a
Ctrl-C, a Robot timeout, a bug) propagates as it was raised, after the
record is safe. Loads are aggregate over the directions [pps]
(``ndrpdr.units``). With ``calibrate`` the max load is first checked against what
the TG really sends (``ndrpdr.trafficgen.calibrate``). With
``latency_duration_s`` a search that found a PDR lower bound is followed
by latency trials at 0, 10, 50 and 90 % of it (``ndrpdr.latencyrun``),
kept in the record's ``latency`` section. With ``record_path`` the record
file is rewritten as the search goes (``ndrpdr.results.journal``); with
``health`` the DUTs are checked between trials (``ndrpdr.searchwatch``).
With ``state`` (a stateful family's ``StatePlan``) the TG is wrapped so
that a ramp-up and the DUT's state check come first and ramp-ups follow
as the state ages (``ndrpdr.rampup``), kept in the record's
``search.ramp_up``.
"""

from __future__ import annotations

import dataclasses
import datetime
import logging
import math
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from types import TracebackType

from ndrpdr.dut.health import HealthCheck
from ndrpdr.errors import NdrPdrError
from ndrpdr.families.stateful import StatePlan
from ndrpdr.goals import PDR_LOSS_RATIO
from ndrpdr.latencyrun import LatencyPoint, LatencyRun, measure_latency_points, not_measured
from ndrpdr.profiles import FrameSize, Profile
from ndrpdr.rampup import RampedTraffic
from ndrpdr.results.irregular import (
    CLI_NAMES,
    Irregularity,
    IrregularPolicy,
    SettingNames,
    Verdict,
)
from ndrpdr.results.journal import RecordJournal, unfinished_error
from ndrpdr.results.searchrecord import SearchRecord, SearchSettings, build_record, settle
from ndrpdr.search import (
    Goal,
    MeasurerFailedError,
    SearchAbortedError,
    SearchProgress,
    SearchResult,
    SearchTimeLimitError,
    TrialResult,
    result_so_far,
    search,
)
from ndrpdr.searchwatch import AfterTrial
from ndrpdr.topology.model import Topology
from ndrpdr.trafficgen.base import TrafficGenerator
from ndrpdr.trafficgen.calibrate import MaxLoadCap, calibrate_max_load

_log = logging.getLogger(__name__)

#: The record's error after a Ctrl-C or SIGTERM.
INTERRUPTED = "interrupted (Ctrl-C or SIGTERM)"


@dataclasses.dataclass(frozen=True)
class SearchRun:
    """What a run leaves: the search result, the record, the verdict on irregularities.

    ``result`` is, when the search failed or stopped, the bounds its trials
    support so far (RFC 9971 relevant bounds; the record says
    ``incomplete``). ``max_load_cap`` is the calibration, if one ran.
    """

    result: SearchResult | None
    record: SearchRecord
    verdict: Verdict
    max_load_cap: MaxLoadCap | None = None

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

    topology: Topology
    """The testbed the search runs on (named in the record)."""
    profile: Profile
    """The traffic profile the TG sends."""
    frame_size: FrameSize
    """The frame size [B] or IMIX name."""
    goals: tuple[Goal, ...]
    """The search goals (RFC 9971), NDR and PDR by default."""
    algorithm: str = "mlr"
    """The search algorithm (``ndrpdr.search``)."""
    min_load_pps: float | None = None
    """The lowest load tried, aggregate [pps]; None: ``default_min_load``."""
    max_load_pps: float | None = None
    """The highest load tried, aggregate [pps]; None: the TG's limit."""
    max_search_time_s: float | None = None
    """The search's time cap [s]; past it the search stops with the bounds so far. None: none."""
    directions: int = 2
    """How many directions the traffic goes (the record keeps it)."""
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
class RunHooks:
    """Who hears of the run as it goes, and where its record is kept (``run_search``)."""

    progress: Callable[[SearchProgress], None] | None = None
    """Called after every trial (``SearchProgress``: the trial, its number, each goal's
    bounds so far)."""
    telemetry: Callable[[], Mapping[str, Mapping[str, str]]] | None = None
    """Read after the search; if it fails, the record has none (logged)."""
    notice: Callable[[str], None] | None = None
    """Hears of what the user should know: a capped max load, a latency failure, a
    failed journal write (once)."""
    latency_progress: Callable[[LatencyPoint], None] | None = None
    """Called after each latency point."""
    record_path: Path | None = None
    """The record file, rewritten (atomically, throttled) as the search goes with the
    trials so far, marked failed and incomplete; the caller writes the final record
    over it."""
    health: HealthCheck | None = None
    """``health(lost_all=...)`` after each trial (``lost_all``: it lost every frame); its
    DutError fails the search."""
    finish: Callable[[SearchRun], None] | None = None
    """Called with the run's outcome however it ends, before an exception propagates:
    the place to write the record."""
    failed: Callable[[str], None] | None = None
    """Hears why a run failed or stopped as soon as it does, before traffic is stopped and
    telemetry read (a console line while they take their time)."""
    state: StatePlan | None = None
    """A stateful family's ramp-up and state check before the search (``ndrpdr.rampup``); a
    state check that fails fails the run before the first search trial, and ``notice``
    hears when the TG sends a sample of the flows."""


def default_min_load(max_load_pps: float) -> float:
    """The lowest load a search tries by default [pps]: 1/1000 of the max, at least 10 kpps."""
    return min(max_load_pps / 2, max(10_000.0, max_load_pps / 1000))


def _pdr_lower_bound(result: SearchResult, pdr_loss_ratio: float) -> float | None:
    """The PDR goal's relevant lower bound [pps], None when there is none (or no PDR goal)."""
    for goal_result in result.goal_results:
        if goal_result.goal.loss_ratio == pdr_loss_ratio:
            lower = goal_result.lower_bound
            return lower if lower is not None and math.isfinite(lower) and lower > 0 else None
    return None


def _join(error: str | None, more: str) -> str:
    return more if error is None else f"{error}; {more}"


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc)


def failure_text(exc: BaseException) -> str:
    """The record's error for an exception that stopped a run."""
    if isinstance(exc, NdrPdrError):
        return str(exc)
    if isinstance(exc, KeyboardInterrupt):
        return INTERRUPTED
    return f"stopped by {type(exc).__name__}: {exc}"


def measurer_cause(exc: BaseException | None) -> BaseException | None:
    """What the TG raised, for a MeasurerFailedError from the search; else ``exc``."""
    if isinstance(exc, MeasurerFailedError) and exc.__cause__ is not None:
        return exc.__cause__
    return exc


class RecordedRun:
    """One search run whose record is made and handed on however the run ends.

    ``with RecordedRun(tg, request, hooks) as run: run.search()``. On the
    way out, traffic is stopped (a failure to stop it fails the run too),
    the record is built from the trials so far and settled, and
    ``hooks.finish(outcome)`` hears of it, in ``finally``. An NdrPdrError
    (a TG or DUT failure, a time limit) ends as the record's error and is
    not raised further; anything else (KeyboardInterrupt, a Robot timeout,
    a bug) propagates unchanged, its traceback whole. ``outcome`` is the
    run's ``SearchRun`` once the block is left.
    """

    def __init__(self, tg: TrafficGenerator, request: SearchRequest, hooks: RunHooks) -> None:
        """``tg`` runs the trials; nothing is measured before ``search``."""
        self.ramped = None if hooks.state is None else RampedTraffic(tg, hooks.state)
        self.tg: TrafficGenerator = tg if self.ramped is None else self.ramped
        self.request, self.hooks = request, hooks
        self.high = tg.max_load_pps if request.max_load_pps is None else request.max_load_pps
        self.low = self._min_load(self.high)
        self.trials: list[TrialResult] = []
        self.cap: MaxLoadCap | None = None
        self.result: SearchResult | None = None
        self.latency: LatencyRun | None = None
        self.outcome: SearchRun | None = None
        self._started, self._clock_start = _now(), time.monotonic()
        self._journal: RecordJournal | None = None
        if hooks.record_path is not None:
            self._journal = RecordJournal(
                hooks.record_path, lambda: self._in_progress().to_json(), notice=hooks.notice
            )

    def _min_load(self, high: float) -> float:
        given = self.request.min_load_pps
        return default_min_load(high) if given is None else given

    def __enter__(self) -> RecordedRun:
        return self

    def search(self) -> None:
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
            progress=AfterTrial(
                self.trials, journal=self._journal, progress=hooks.progress, health=hooks.health
            ),
        )
        self.latency = measure_latency_points(
            self.tg,
            pdr_pps=_pdr_lower_bound(self.result, request.pdr_loss_ratio),
            duration_s=request.latency_duration_s,
            tg_name=f"the {request.topology.tg.driver} TG",
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

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> bool:
        """Stop traffic, build and settle the record, ``finish`` it; True for known failures.

        A failure of the TG inside the search comes wrapped in
        MeasurerFailedError: what the TG raised decides, as if unwrapped.
        """
        raised = measurer_cause(exc)
        try:
            error = None if raised is None else failure_text(raised)
            if error is not None and self.hooks.failed is not None:
                self.hooks.failed(error)  # at once: the record and telemetry take a while
            if isinstance(exc, SearchAbortedError):
                self.result = exc.partial
            try:
                self.tg.stop_traffic()
            except NdrPdrError as stop_exc:  # the trials so far are still recorded
                error = _join(error, f"stopping traffic: {stop_exc}")
            if self._journal is not None:
                self._journal.flush()  # the last trials, should the caller's final write fail
            self.outcome = self._outcome(error, time_capped=isinstance(exc, SearchTimeLimitError))
        finally:
            if self.outcome is not None and self.hooks.finish is not None:
                self.hooks.finish(self.outcome)
        unwrapped = exc is not None and raised is not None and raised is not exc
        if unwrapped and not isinstance(raised, NdrPdrError):
            # A bug or a foreign exception in the TG, as raised, its traceback whole. The
            # wrapper lets go of it first: raised from here it would become the wrapper's
            # context, and a chain that loops sends Robot's traceback cleaner into recursion.
            assert exc is not None and raised is not None
            exc.__cause__ = exc.__context__ = None
            raise raised from raised.__cause__
        return isinstance(raised, NdrPdrError)

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
        return build_record(
            topology=request.topology,
            profile=request.profile,
            frame_size=request.frame_size,
            settings=SearchSettings(
                request.algorithm,
                request.goals,
                self.low,
                self.high,
                request.pdr_loss_ratio,
                request.max_search_time_s,
            ),
            result=result,
            trials=self.trials,
            started=self._started,
            finished=_now(),
            error=error,
            telemetry=telemetry,
            directions=request.directions,
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

    def _outcome(self, error: str | None, *, time_capped: bool) -> SearchRun:
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
        record = self._record(result, error, latency, telemetry=texts, time_capped=time_capped)
        settled, verdict = settle(record, request.irregular, request.setting_names)
        return SearchRun(result=result, record=settled, verdict=verdict, max_load_cap=self.cap)


def run_search(
    tg: TrafficGenerator, request: SearchRequest, hooks: RunHooks = RunHooks()
) -> SearchRun:
    """Run one search over ``tg`` as ``request`` says and build its record (``RecordedRun``).

    ``hooks`` hear of it as it goes (each field says when). An NdrPdrError
    (a TG or DUT failure, a time limit) does not propagate: the run comes
    back failed, with the error text and every trial measured so far. A
    Ctrl-C or SIGTERM (KeyboardInterrupt) or any other exception (a Robot
    timeout) propagates as raised, after ``hooks.finish`` saw the record
    (error "interrupted ...", "stopped by <type>: ..."). Traffic is stopped
    in every case; a failure to stop it fails the run too.
    """
    with RecordedRun(tg, request, hooks) as run:
        run.search()
    assert run.outcome is not None  # set by __exit__, which raised otherwise
    return run.outcome
