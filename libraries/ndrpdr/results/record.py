"""The result record of one search: a plain JSON document with a versioned schema.

Loads are aggregate over the traffic's directions, in frames per second
(``*_pps``); bandwidths include 20 B of L1 overhead per frame (``*_bps``).
``ndr`` / ``pdr`` are the first goals with loss ratio 0 and
``search.pdr_loss_ratio`` (0.005 by default); every goal is also in
``goals``. ``trials`` holds every trial measured, even when
the search failed (``status`` "failed" and ``error`` say why); then the
bounds are the ones those trials support and ``incomplete`` is true.
A trial's counts add up: intended = offered + unsent, offered = forwarded +
lost (``loss_count``: frames the DUT lost); its loss ratio counts unsent
frames as lost. ``tg_limit`` (and each goal's ``tg_limited``) says whether
the TG, not the DUT, limited the bounds (``ndrpdr.results.tglimit``).
``latency`` (since 1.2.0) holds the latency trials after the search
(``ndrpdr.latencyrun``): per load point and direction min/avg/max and
percentiles [us], or ``status`` "not measured" and why.
``irregular`` (since 1.3.0) lists what is irregular about the result
(``ndrpdr.results.irregular``); ``search.max_search_time_s`` is the time
cap and ``search.time_capped`` says whether the search stopped at it.
Since 1.4.0 a record may also be of ``kind`` "mrr" (``ndrpdr.results.mrrrecord``):
the same top-level fields where they apply, and an ``mrr`` section instead
of the search's. Since 1.5.0 a record of either kind may have a ``run``
section (the keyword layer stamps it when it writes the record): the run's
id and start, the Robot test, suite and tags, the suites' git revision
and the versions of the nodes' software (``ndrpdr.results.history``
reads it; records without it stay valid).
"""

from __future__ import annotations

import dataclasses
import datetime
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import ndrpdr
from ndrpdr.goals import NDR_LOSS_RATIO, PDR_LOSS_RATIO
from ndrpdr.profiles import FrameSize, Profile, average_frame_size, bandwidth_bps
from ndrpdr.results.journal import write_json_atomically
from ndrpdr.results.tglimit import goal_tg_limit_reason, tg_limit_summary
from ndrpdr.search.goal import Goal
from ndrpdr.search.result import GoalResult, SearchResult
from ndrpdr.search.trial import TrialResult
from ndrpdr.testbed.model import Topology

#: Version of the record format; bump the major part on incompatible changes.
RECORD_VERSION = "1.5.0"


def not_asked_latency() -> dict[str, Any]:
    """The ``latency`` section of a record whose search was not asked to measure latency."""
    return {
        "status": "not measured",
        "reason": "not asked for",
        "pdr_pps": None,
        "duration_s": None,
        "points_pct": [],
        "points": [],
    }


@dataclasses.dataclass(frozen=True)
class SearchSettings:
    """What the search was asked to do."""

    algorithm: str
    goals: tuple[Goal, ...]
    min_load_pps: float
    max_load_pps: float
    #: The loss ratio of the goal called PDR (the record's ``pdr`` entry).
    pdr_loss_ratio: float = PDR_LOSS_RATIO
    #: The cap on the sum of trial durations [s], None for none.
    max_search_time_s: float | None = None


def _number(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else float(value)


def _goal_entry(goal: Goal, result: GoalResult | None, frame_size: FrameSize) -> dict[str, Any]:
    lower = result.lower_bound if result else None
    entry: dict[str, Any] = {
        "loss_ratio": goal.loss_ratio,
        "exceed_ratio": goal.exceed_ratio,
        "relative_width": goal.relative_width,
        "initial_trial_duration_s": goal.initial_trial_duration,
        "final_trial_duration_s": goal.final_trial_duration,
        "duration_sum_s": goal.duration_sum,
        "lower_bound": _number(lower),
        "upper_bound": _number(result.upper_bound if result else None),
        "conditional_throughput": _number(result.conditional_throughput if result else None),
        "lower_bound_bps": None if lower is None else bandwidth_bps(lower, frame_size),
        "regular": bool(result and result.regular),
        "irregular_reason": _reason_text(result),
    }
    return entry


def _reason_text(result: GoalResult | None) -> str | None:
    if result is None:
        return "no result"
    reason = result.irregular_reason
    return None if reason is None else reason.value


def _bounds(goals: list[dict[str, Any]], settings: SearchSettings, loss: float) -> Any:
    for goal, entry in zip(settings.goals, goals, strict=True):
        if goal.loss_ratio == loss:
            keys = ("lower_bound", "upper_bound", "conditional_throughput", "lower_bound_bps")
            return {key: entry[key] for key in keys}
    return None


def trial_entry(index: int, trial: TrialResult) -> dict[str, Any]:
    """One trial as a JSON object."""
    reason = trial.reason
    return {
        "index": index,
        "duration_s": trial.duration,
        "load_pps": trial.load,
        "intended_count": trial.intended_count,
        "offered_count": trial.offered_count,
        "unsent_count": trial.unsent_count,
        "forwarded_count": trial.forwarded_count,
        "loss_count": trial.loss_count,
        "loss_ratio": trial.loss_ratio,
        "effective_duration_s": trial.effective_duration,
        "reason": None
        if reason is None
        else {
            "algorithm": reason.algorithm,
            "phase": reason.phase,
            "strategy": reason.strategy,
            "goal": reason.goal,
            "detail": reason.detail,
        },
        "warnings": list(trial.warnings),
    }


def testbed_section(topology: Topology) -> dict[str, Any]:
    """The record's ``testbed``: the topology file, the TG's and DUTs' nodes and drivers."""
    tg = topology.tg
    return {
        "topology": str(topology.source) if topology.source else None,
        "tg": {"node": tg.key, "driver": tg.driver},
        "duts": [{"node": d.key, "driver": d.driver} for d in topology.duts],
    }


def profile_section(profile: Profile, frame_size: FrameSize, directions: int) -> dict[str, Any]:
    """The record's ``profile``: the traffic, its frame size [B] and directions."""
    return {
        "name": profile.name,
        "layer": profile.layer,
        "flows_per_direction": profile.flows_per_direction,
        "frame_size": frame_size,
        "average_frame_size_b": average_frame_size(frame_size),
        "directions": directions,
    }


def build_record(
    *,
    topology: Topology,
    profile: Profile,
    frame_size: FrameSize,
    settings: SearchSettings,
    result: SearchResult | None,
    trials: Sequence[TrialResult],
    started: datetime.datetime,
    finished: datetime.datetime,
    error: str | None = None,
    telemetry: Mapping[str, Mapping[str, str]] | None = None,
    directions: int = 2,
    max_load_cap: Mapping[str, Any] | None = None,
    latency: Mapping[str, Any] | None = None,
    time_capped: bool = False,
) -> dict[str, Any]:
    """The record as a JSON-ready dict (validate with ``ndrpdr.results.schema``).

    With ``error`` the search stopped early: ``result`` (if given) holds the
    bounds its trials support, and the record is marked ``incomplete``.
    ``max_load_cap`` is the calibration of the max load
    (``ndrpdr.trafficgen.calibrate``), kept as ``search.max_load_cap``.
    ``latency`` is the ``latency`` section (``LatencyRun.to_json``);
    None gives "not measured" (not asked for). ``time_capped``: the search
    stopped at its time cap. ``irregular`` starts empty
    (``ndrpdr.results.irregular.settle_record`` fills it).
    """
    goal_results: Sequence[GoalResult | None] = (
        result.goal_results if result is not None else [None] * len(settings.goals)
    )
    goals = [
        _goal_entry(goal, res, frame_size)
        for goal, res in zip(settings.goals, goal_results, strict=True)
    ]
    entries = [trial_entry(i, t) for i, t in enumerate(trials)]
    for goal_entry in goals:
        capped = max_load_cap is not None and max_load_cap.get("capped_pps") is not None
        why = goal_tg_limit_reason(goal_entry, entries, capped=capped)
        goal_entry["tg_limited"], goal_entry["tg_limit_reason"] = why is not None, why
    return {
        "version": RECORD_VERSION,
        "kind": "ndrpdr",
        "tool": {"name": "ndrpdr", "version": ndrpdr.__version__},
        "status": "failed" if error else "passed",
        "error": error,
        "incomplete": error is not None,
        "started": started.isoformat(timespec="seconds"),
        "finished": finished.isoformat(timespec="seconds"),
        "testbed": testbed_section(topology),
        "profile": profile_section(profile, frame_size, directions),
        "search": {
            "algorithm": settings.algorithm,
            "min_load_pps": settings.min_load_pps,
            "max_load_pps": settings.max_load_pps,
            "trial_count": len(trials),
            "search_time_s": sum(t.effective_duration or t.duration for t in trials),
            "wall_time_s": result.wall_time if result else None,
            "pdr_loss_ratio": settings.pdr_loss_ratio,
            "max_load_cap": None if max_load_cap is None else dict(max_load_cap),
            "max_search_time_s": settings.max_search_time_s,
            "time_capped": time_capped,
        },
        "tg_limit": tg_limit_summary(
            goals, entries, calibration_pps=_fastest_calibration(max_load_cap)
        ),
        "ndr": _bounds(goals, settings, NDR_LOSS_RATIO),
        "pdr": _bounds(goals, settings, settings.pdr_loss_ratio),
        "goals": goals,
        "trials": entries,
        "irregular": [],
        "latency": dict(latency) if latency is not None else not_asked_latency(),
        "telemetry": {k: dict(v) for k, v in (telemetry or {}).items()},
    }


def write_record(record: Mapping[str, Any], path: Path) -> None:
    """Write ``record`` as indented JSON, atomically (temporary file, rename; parents created)."""
    write_json_atomically(record, path)


def _fastest_calibration(max_load_cap: Mapping[str, Any] | None) -> float | None:
    """The highest rate [pps] the TG sent in a calibration trial (records before 1.2.0: the one)."""
    if max_load_cap is None:
        return None
    highest = max_load_cap.get("highest_pps")
    return float(highest) if highest is not None else max_load_cap.get("capable_pps")
