"""The result record of one search as a type, until the moment it is written as JSON.

``SearchRecord`` is what ``build_record`` makes from the engine's
``SearchResult`` and what the record writers take; ``settle`` judges its
irregularities (``ndrpdr.results.irregular``); its ``to_json`` is the one
place the JSON document (``ndrpdr.results.record`` describes its fields;
``schemas/result.schema.json`` checks it) is made.
Loads are in frames per second, aggregate over the traffic's directions
(``ndrpdr.units``); bandwidths in bit/s with 20 B of L1 overhead per frame.
Records read back from files stay JSON (``ndrpdr.results.schema``); they are
not judged again: their ``irregular`` list says what ``settle`` found.
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import math
from collections.abc import Mapping, Sequence
from typing import Any

import ndrpdr
from ndrpdr.goals import NDR_LOSS_RATIO, PDR_LOSS_RATIO, goal_label
from ndrpdr.profiles import FrameSize, Profile, bandwidth_bps
from ndrpdr.results.goalentries import first_per_name
from ndrpdr.results.irregular import (
    CLI_NAMES,
    Irregularity,
    IrregularPolicy,
    SettingNames,
    Verdict,
    find_irregularities,
    judge,
)
from ndrpdr.results.record import (
    RECORD_VERSION,
    not_asked_latency,
    profile_section,
    testbed_section,
    trial_entry,
)
from ndrpdr.results.tglimit import goal_tg_limit_reason, tg_limit_summary
from ndrpdr.search.goal import Goal
from ndrpdr.search.result import GoalIrregularity, GoalResult, SearchResult
from ndrpdr.search.trial import TrialResult
from ndrpdr.topology.model import Topology


class RecordStatus(str, enum.Enum):
    """A record's ``status``: the run passed or failed (``error`` says why)."""

    PASSED = "passed"
    FAILED = "failed"


@dataclasses.dataclass(frozen=True)
class SearchSettings:
    """What the search was asked to do [loads: pps, aggregate]."""

    algorithm: str
    goals: tuple[Goal, ...]
    min_load_pps: float
    max_load_pps: float
    #: The loss ratio of the goal called PDR (the record's ``pdr`` entry).
    pdr_loss_ratio: float = PDR_LOSS_RATIO
    #: The cap on the sum of trial durations [s], None for none.
    max_search_time_s: float | None = None
    #: mlr ran an intermediate-duration trial before a load's first full-length one.
    intermediate_trials: bool = False


def _number(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else float(value)


@dataclasses.dataclass(frozen=True)
class GoalEntry:
    """One goal of the record: its settings and its result.

    Bounds and the conditional throughput are in pps (aggregate), None when
    not found (or not finite); ``lower_bound_bps`` is the lower bound as a
    bandwidth [bit/s]. ``irregular_reason`` is None exactly when the result
    is regular (``NO_RESULT`` when the record has no result for the goal).
    ``tg_limit_reason`` says why the TG, not the DUT, limited the bounds
    (``ndrpdr.results.tglimit``), None when it did not.
    """

    goal: Goal
    lower_bound_pps: float | None
    upper_bound_pps: float | None
    conditional_throughput_pps: float | None
    lower_bound_bps: float | None
    irregular_reason: GoalIrregularity | None
    tg_limit_reason: str | None = None

    @property
    def regular(self) -> bool:
        """Both bounds found, within the goal width (RFC 9971)."""
        return self.irregular_reason is None

    def bounds_json(self) -> dict[str, Any]:
        """The record's ``ndr`` / ``pdr`` entry: the bounds alone."""
        return {
            "lower_bound": self.lower_bound_pps,
            "upper_bound": self.upper_bound_pps,
            "conditional_throughput": self.conditional_throughput_pps,
            "lower_bound_bps": self.lower_bound_bps,
        }

    def to_json(self) -> dict[str, Any]:
        """The entry of the record's ``goals`` list."""
        goal, reason = self.goal, self.irregular_reason
        return {
            "loss_ratio": goal.loss_ratio,
            "exceed_ratio": goal.exceed_ratio,
            "relative_width": goal.relative_width,
            "initial_trial_duration_s": goal.initial_trial_duration,
            "final_trial_duration_s": goal.final_trial_duration,
            "duration_sum_s": goal.duration_sum,
            **self.bounds_json(),
            "regular": self.regular,
            "irregular_reason": None if reason is None else reason.value,
            "tg_limited": self.tg_limit_reason is not None,
            "tg_limit_reason": self.tg_limit_reason,
        }


@dataclasses.dataclass(frozen=True)
class NamedEntry:
    """A goal of the record with its label ("NDR", "PDR", "loss ≤ 2 %")."""

    label: str
    entry: GoalEntry


@dataclasses.dataclass(frozen=True)
class SearchRecord:
    """One search's record: where, what traffic, what was asked, every trial, the bounds.

    ``goals`` has one ``GoalEntry`` per goal of ``settings``, in order;
    ``trials`` every trial measured, also when the run failed (``error``
    says why; ``incomplete``: the search stopped early, so the bounds are
    those its trials support). ``wall_time_s`` [s] is the search's
    wall-clock time (None without a result); ``time_capped``: it stopped at
    ``settings.max_search_time_s``. ``max_load_cap``
    (``MaxLoadCap.to_json``) and ``latency`` (``LatencyRun.to_json``; None:
    not asked for) are sections their own modules write, as is ``ramp_up``
    (``RampedTraffic.to_json``: a stateful family's ramp-up and state
    check; None: the family has none). ``irregular`` is what ``settle`` found.
    """

    topology: Topology
    profile: Profile
    frame_size: FrameSize
    directions: int
    settings: SearchSettings
    goals: tuple[GoalEntry, ...]
    trials: tuple[TrialResult, ...]
    started: datetime.datetime
    finished: datetime.datetime
    error: str | None
    incomplete: bool
    wall_time_s: float | None = None
    time_capped: bool = False
    max_load_cap: Mapping[str, Any] | None = None
    latency: Mapping[str, Any] | None = None
    telemetry: Mapping[str, Mapping[str, str]] = dataclasses.field(default_factory=dict)
    irregular: tuple[Irregularity, ...] = ()
    ramp_up: Mapping[str, Any] | None = None

    @property
    def status(self) -> RecordStatus:
        """FAILED exactly when there is an ``error``."""
        return RecordStatus.PASSED if self.error is None else RecordStatus.FAILED

    def label(self, entry: GoalEntry) -> str:
        """The goal's name for people: "NDR", "PDR" (``settings.pdr_loss_ratio``), "loss ≤ 2 %"."""
        return goal_label(entry.goal.loss_ratio, self.settings.pdr_loss_ratio)

    def named_goals(self) -> list[NamedEntry]:
        """The goals in order, one per name (``ndrpdr.results.goalentries.first_per_name``)."""
        ratios = (entry.goal.loss_ratio for entry in self.goals)
        named = first_per_name(ratios, self.settings.pdr_loss_ratio)
        return [NamedEntry(label, self.goals[index]) for index, label, _ in named]

    def goal_with(self, loss_ratio: float) -> GoalEntry | None:
        """The first goal with ``loss_ratio``, None when there is none."""
        return next((g for g in self.goals if g.goal.loss_ratio == loss_ratio), None)

    @property
    def ndr(self) -> GoalEntry | None:
        """The first zero-loss goal."""
        return self.goal_with(NDR_LOSS_RATIO)

    @property
    def pdr(self) -> GoalEntry | None:
        """The first goal with the PDR loss ratio."""
        return self.goal_with(self.settings.pdr_loss_ratio)

    @property
    def search_time_s(self) -> float:
        """The sum of the trials' effective durations [s]."""
        return sum(t.effective_duration or t.duration for t in self.trials)

    def tg_limit(self) -> dict[str, Any]:
        """The record's ``tg_limit`` section (``ndrpdr.results.tglimit.tg_limit_summary``)."""
        return tg_limit_summary(
            [entry.to_json() for entry in self.goals],
            [trial_entry(i, t) for i, t in enumerate(self.trials)],
            calibration_pps=_fastest_calibration(self.max_load_cap),
        )

    def to_json(self) -> dict[str, Any]:
        """The record as a JSON-ready dict (valid against the schema, ``RECORD_VERSION``)."""
        settings = self.settings
        goals = [entry.to_json() for entry in self.goals]
        trials = [trial_entry(i, t) for i, t in enumerate(self.trials)]
        ndr, pdr = self.ndr, self.pdr
        return {
            "version": RECORD_VERSION,
            "kind": "ndrpdr",
            "tool": {"name": "ndrpdr", "version": ndrpdr.__version__},
            "status": self.status.value,
            "error": self.error,
            "incomplete": self.incomplete,
            "started": self.started.isoformat(timespec="seconds"),
            "finished": self.finished.isoformat(timespec="seconds"),
            "testbed": testbed_section(self.topology, self.telemetry),
            "profile": profile_section(self.profile, self.frame_size, self.directions),
            "search": {
                "algorithm": settings.algorithm,
                "min_load_pps": settings.min_load_pps,
                "max_load_pps": settings.max_load_pps,
                "trial_count": len(self.trials),
                "search_time_s": self.search_time_s,
                "wall_time_s": self.wall_time_s,
                "pdr_loss_ratio": settings.pdr_loss_ratio,
                "max_load_cap": None if self.max_load_cap is None else dict(self.max_load_cap),
                "max_search_time_s": settings.max_search_time_s,
                "intermediate_trials": settings.intermediate_trials,
                "time_capped": self.time_capped,
                **({} if self.ramp_up is None else {"ramp_up": dict(self.ramp_up)}),
            },
            "tg_limit": self.tg_limit(),
            "ndr": None if ndr is None else ndr.bounds_json(),
            "pdr": None if pdr is None else pdr.bounds_json(),
            "goals": goals,
            "trials": trials,
            "irregular": [item.to_json() for item in self.irregular],
            "latency": dict(self.latency) if self.latency is not None else not_asked_latency(),
            "telemetry": {k: dict(v) for k, v in self.telemetry.items()},
        }


def _goal_entry(goal: Goal, result: GoalResult | None, frame_size: FrameSize) -> GoalEntry:
    if result is None:
        return GoalEntry(goal, None, None, None, None, GoalIrregularity.NO_RESULT)
    lower = result.lower_bound
    return GoalEntry(
        goal,
        lower_bound_pps=_number(lower),
        upper_bound_pps=_number(result.upper_bound),
        conditional_throughput_pps=_number(result.conditional_throughput),
        lower_bound_bps=None if lower is None else bandwidth_bps(lower, frame_size),
        irregular_reason=result.irregular_reason,
    )


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
    ramp_up: Mapping[str, Any] | None = None,
) -> SearchRecord:
    """The record of a search (``to_json`` gives the document; ``settle`` judges it).

    With ``error`` the search stopped early: ``result`` (if given) holds the
    bounds its trials support, and the record is marked ``incomplete``.
    ``max_load_cap`` is the calibration of the max load
    (``ndrpdr.trafficgen.calibrate``), kept as ``search.max_load_cap``.
    ``latency`` is the ``latency`` section (``LatencyRun.to_json``);
    None gives "not measured" (not asked for). ``time_capped``: the search
    stopped at its time cap. ``ramp_up``: the ``search.ramp_up`` section
    (None: no ramp-up). ``irregular`` starts empty (``settle``).
    """
    goal_results: Sequence[GoalResult | None] = (
        result.goal_results if result is not None else [None] * len(settings.goals)
    )
    entries = [trial_entry(i, t) for i, t in enumerate(trials)]
    capped = max_load_cap is not None and max_load_cap.get("capped_pps") is not None
    goals = []
    for goal, res in zip(settings.goals, goal_results, strict=True):
        entry = _goal_entry(goal, res, frame_size)
        why = goal_tg_limit_reason(entry.to_json(), entries, capped=capped)
        goals.append(dataclasses.replace(entry, tg_limit_reason=why))
    return SearchRecord(
        topology=topology,
        profile=profile,
        frame_size=frame_size,
        directions=directions,
        settings=settings,
        goals=tuple(goals),
        trials=tuple(trials),
        started=started,
        finished=finished,
        error=error,
        incomplete=error is not None,
        wall_time_s=result.wall_time if result else None,
        time_capped=time_capped,
        max_load_cap=max_load_cap,
        latency=latency,
        telemetry=dict(telemetry or {}),
        ramp_up=ramp_up,
    )


def settle(
    record: SearchRecord,
    policy: IrregularPolicy = IrregularPolicy.FAIL,
    names: SettingNames = CLI_NAMES,
) -> tuple[SearchRecord, Verdict]:
    """``record`` with its irregularities and the ``policy``'s verdict on them.

    The verdict is ``irregular.judge``'s on what ``find_irregularities`` reads
    of the typed record: its ``irregular`` and ``error`` (so its ``status``)
    follow it; a time-capped record passed with WARN stays ``incomplete``.
    """
    found = tuple(find_irregularities(record, names))
    verdict = judge(found, record.error, time_capped=record.time_capped, policy=policy)
    return dataclasses.replace(record, irregular=found, error=verdict.error), verdict


def _fastest_calibration(max_load_cap: Mapping[str, Any] | None) -> float | None:
    """The highest rate [pps] the TG sent in a calibration trial (records before 1.2.0: the one)."""
    if max_load_cap is None:
        return None
    highest = max_load_cap.get("highest_pps")
    return float(highest) if highest is not None else max_load_cap.get("capable_pps")
