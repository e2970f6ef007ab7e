"""One NDR/PDR search on a traffic generator, kept whole even when it fails.

``run_search`` records every trial as it is measured, so a search that
stops half way (a TG error, a time limit, Ctrl-C, a Robot timeout) still
yields a record with the trials measured so far and the bounds they
support, marked incomplete; traffic is stopped before it returns or
re-raises. With ``calibrate`` the max load is first checked against what
the TG really sends (``ndrpdr.trafficgen.calibrate``). With
``latency_duration_s`` a search that found a PDR lower bound is followed
by latency trials at 0, 10, 50 and 90 % of it (``ndrpdr.latencyrun``),
kept in the record's ``latency`` section. With ``record_path`` the record
file is rewritten as the search goes (``ndrpdr.results.journal``); with
``health`` the DUTs are checked between trials (``ndrpdr.searchwatch``).
"""

from __future__ import annotations

import dataclasses
import datetime
import logging
import math
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ndrpdr.dut.health import HealthCheck
from ndrpdr.errors import NdrPdrError
from ndrpdr.goals import PDR_LOSS_RATIO
from ndrpdr.latencyrun import LatencyPoint, LatencyRun, measure_latency_points, not_measured
from ndrpdr.profiles import FrameSize, Profile
from ndrpdr.results.irregular import (
    CLI_NAMES,
    Irregularity,
    IrregularPolicy,
    SettingNames,
    settle_record,
)
from ndrpdr.results.journal import RecordJournal, unfinished_error
from ndrpdr.results.record import SearchSettings, build_record
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
from ndrpdr.searchwatch import AfterTrial
from ndrpdr.testbed.model import Topology
from ndrpdr.trafficgen.base import TrafficGenerator
from ndrpdr.trafficgen.calibrate import MaxLoadCap, calibrate_max_load

_log = logging.getLogger(__name__)


@dataclasses.dataclass
class SearchRun:
    """The outcome: the search result, the record, the error text (None if it passed).

    ``result`` is, when the search failed or stopped, the bounds its trials
    support so far (RFC 9971 relevant bounds; the record says
    ``incomplete``). ``pending`` is an exception that is not a known
    failure (a bug, a Robot Framework timeout): the caller re-raises it once
    the record is safe. ``max_load_cap`` is the calibration, if one ran.
    ``irregular`` lists what is irregular about the result
    (``ndrpdr.results.irregular``); ``irregular_failed``: the run failed
    for them (``error`` is then the record's "irregular result: ...").
    """

    result: SearchResult | None
    record: dict[str, Any]
    error: str | None
    interrupted: bool = False
    pending: BaseException | None = None
    max_load_cap: MaxLoadCap | None = None
    irregular: tuple[Irregularity, ...] = ()
    irregular_failed: bool = False


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


def run_search(
    tg: TrafficGenerator,
    *,
    topology: Topology,
    profile: Profile,
    frame_size: FrameSize,
    goals: Sequence[Goal],
    algorithm: str = "mlr",
    min_load_pps: float | None = None,
    max_load_pps: float | None = None,
    max_search_time_s: float | None = None,
    directions: int = 2,
    progress: Callable[[SearchProgress], None] | None = None,
    telemetry: Callable[[], Mapping[str, Mapping[str, str]]] | None = None,
    pdr_loss_ratio: float = PDR_LOSS_RATIO,
    calibrate: bool = False,
    notice: Callable[[str], None] | None = None,
    latency_duration_s: float | None = None,
    latency_progress: Callable[[LatencyPoint], None] | None = None,
    record_path: Path | None = None,
    health: HealthCheck | None = None,
    irregular: IrregularPolicy = IrregularPolicy.FAIL,
    setting_names: SettingNames = CLI_NAMES,
) -> SearchRun:
    """Run one search over ``tg`` and build its record.

    Loads are aggregate [pps]; ``max_load_pps`` defaults to the TG's limit,
    ``min_load_pps`` to ``default_min_load``. An NdrPdrError (a TG or DUT
    failure, a time limit) or Ctrl-C does not propagate: the run comes back
    failed, with the error text and every trial measured so far;
    ``interrupted`` tells the caller to stop after writing the record. Any
    other exception comes back as ``pending``, with the same record.
    ``progress(snapshot)`` is called after every trial (``SearchProgress``:
    the trial, its number, each goal's bounds so far). Traffic is stopped
    in every case; a failure to stop it fails the run too. ``telemetry()``
    is read after the search; if it fails, the record has none (logged).
    ``pdr_loss_ratio`` names the goal the record calls PDR.
    With ``calibrate``, a trial at the max load (as long as the shortest
    initial trial duration) first measures what the TG sends; a max load
    the TG cannot reach is capped at the slowest of three such trials
    (``notice(text)`` says so, else a logged warning; the record keeps it
    as ``search.max_load_cap``).
    ``latency_duration_s`` [s] (None or 0: off) is each latency trial's
    duration after the search; a TG failure there leaves the bounds
    alone and the record's latency "failed" (``notice`` hears of it);
    ``latency_progress(point)`` is called after each latency point.
    ``record_path``: the record file, rewritten (atomically, throttled) as
    the search goes with the trials so far, marked failed and incomplete
    (a failed write is a ``notice``, once); the caller writes the final
    record over it. ``health(lost_all=...)`` is called after each trial
    (``lost_all``: it lost every frame); its DutError fails the search.
    An irregular result (a lossy min load, bounds out of order, TG-limited
    bounds, the time cap hit) fails the run with ``irregular`` FAIL and
    passes with WARN (``ndrpdr.results.irregular.settle_record``); its
    messages name the options as ``setting_names`` says.
    """
    high = tg.max_load_pps if max_load_pps is None else max_load_pps
    low = default_min_load(high) if min_load_pps is None else min_load_pps
    trials: list[TrialResult] = []
    cap: MaxLoadCap | None = None

    started, clock_start = _now(), time.monotonic()

    def in_progress() -> dict[str, Any]:
        wall = time.monotonic() - clock_start
        so_far = result_so_far(goals, trials, low, high, algorithm=algorithm, wall_time=wall)
        return build_record(
            topology=topology,
            profile=profile,
            frame_size=frame_size,
            settings=SearchSettings(algorithm, tuple(goals), low, high, pdr_loss_ratio),
            result=so_far,
            trials=trials,
            started=started,
            finished=_now(),
            error=unfinished_error(len(trials)),
            directions=directions,
            max_load_cap=None if cap is None else cap.to_json(),
            latency=not_measured("the search had not finished").to_json(),
        )

    journal = None
    if record_path is not None:
        journal = RecordJournal(record_path, in_progress, notice=notice)
    record_trial = AfterTrial(trials, journal=journal, progress=progress, health=health)
    result: SearchResult | None = None
    error: str | None = None
    interrupted = False
    pending: BaseException | None = None
    latency: LatencyRun | None = None
    time_capped = False
    try:
        if journal is not None:
            journal.update()  # a record from the start: a kill during calibration leaves one too
        if calibrate:
            cap = calibrate_max_load(
                tg,
                high,
                min(goal.initial_trial_duration for goal in goals),
                min_load_pps=min_load_pps,
            )
            _log.info("%s", cap.describe())
            if cap.capped_pps is not None:
                if notice is not None:
                    notice(cap.describe())
                else:
                    _log.warning("%s", cap.describe())
                high = cap.capped_pps
                low = default_min_load(high) if min_load_pps is None else min_load_pps
        result = search(
            tg,
            goals,
            low,
            high,
            algorithm,
            max_search_time=max_search_time_s,
            progress=record_trial,
        )
        latency = measure_latency_points(
            tg,
            pdr_pps=_pdr_lower_bound(result, pdr_loss_ratio),
            duration_s=latency_duration_s,
            tg_name=f"the {topology.tg.driver} TG",
            notice=notice,
            progress=latency_progress,
        )
    except SearchAbortedError as exc:
        error = str(exc)
        result = exc.partial
        time_capped = isinstance(exc, SearchTimeLimitError)
    except NdrPdrError as exc:
        error = str(exc)
    except KeyboardInterrupt:
        error = "interrupted (Ctrl-C or SIGTERM)"
        interrupted = True
    except BaseException as exc:  # kept with the trials; the caller re-raises it
        error = f"stopped by {type(exc).__name__}: {exc}"
        pending = exc
    finally:
        try:
            tg.stop_traffic()
        except NdrPdrError as exc:  # the trials so far are still recorded
            error = _join(error, f"stopping traffic: {exc}")
    if journal is not None:
        journal.flush()  # the last trials, should the caller's final write fail
    if error is not None and not isinstance(result, SearchResult):
        # stopped early: the bounds the trials so far support (RFC 9971 over them)
        result = result_so_far(
            goals, trials, low, high, algorithm=algorithm, wall_time=time.monotonic() - clock_start
        )
    if latency is None:
        off = latency_duration_s is None or latency_duration_s <= 0
        latency = not_measured("turned off" if off else "the search did not finish")
    texts: Mapping[str, Mapping[str, str]] | None = None
    if telemetry is not None:
        try:
            texts = telemetry()
        except NdrPdrError as exc:  # a DUT that cannot report must not lose the record
            _log.warning("telemetry after the search could not be collected: %s", exc)
    record = build_record(
        topology=topology,
        profile=profile,
        frame_size=frame_size,
        settings=SearchSettings(
            algorithm, tuple(goals), low, high, pdr_loss_ratio, max_search_time_s
        ),
        result=result,
        trials=trials,
        started=started,
        finished=_now(),
        error=error,
        telemetry=texts,
        directions=directions,
        max_load_cap=None if cap is None else cap.to_json(),
        latency=latency.to_json(),
        time_capped=time_capped,
    )
    verdict = settle_record(record, irregular, setting_names)  # may fail or pass the record
    return SearchRun(
        result=result,
        record=record,
        error=record["error"],
        irregular=verdict.irregularities,
        irregular_failed=verdict.failed,
        interrupted=interrupted,
        pending=pending,
        max_load_cap=cap,
    )
