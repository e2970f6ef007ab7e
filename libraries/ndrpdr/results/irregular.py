"""Irregular results: a finished search whose bounds must not end as a plain pass.

``find_irregularities(record)`` lists, from a run's typed record
(``ndrpdr.results.searchrecord.SearchRecord``), what is irregular about it, each with an
``IrregularReason`` and a message saying what happened and what to change:

- ``MIN_LOAD_LOSSY``: the min load is already an upper bound of a goal (the
  DUT loses too much even there), so the goal has no lower bound;
- ``BOUNDS_OUT_OF_ORDER``: a goal's lower bound is above its upper bound, or a
  stricter goal (lower or equal loss ratio and exceed ratio) has a bound above
  the same bound of a laxer one (NDR above PDR). ``bswlv`` passes a load when
  any repeat passes, per goal (TST009's rule); across goals that can
  contradict itself, and this is where it is reported;
- ``TG_LIMITED``: a bound rests on trials the TG could not send in full
  (``ndrpdr.results.tglimit``);
- ``TIME_CAP``: the search stopped at its time cap before every goal had
  bounds within its width (the record's ``search.time_capped``);
- ``CPU_SHARED``: another run used a DUT's CPU while the search ran (the
  record's ``testbed.cpus.duts[].shared_with``): the bounds measure two runs
  at once (a second run on one CPU took a third off an NDR, with only a
  warning to say so);
- ``DUT_FLAPPING``: the DUT's capacity jumped between trials: a trial lost a
  large share of its frames where another as long, at a load as high,
  passed (``ndrpdr.results.flapping`` has the rule); bounds between the
  levels are a coin toss.

A lossy min load says why when the trials tell: a DUT that forwarded
nothing in any trial, a min load whose trials sent no frame, a direction
that received nothing.

``judge(found, error, policy)`` decides: with ``IrregularPolicy.FAIL`` (the
default everywhere) the record fails with the messages as its ``error``;
with ``WARN`` it passes and keeps the list (``ndrpdr.results.searchrecord.settle``
does both to the record before it is written as JSON). The
CLI (``--allow-irregular``) and the Robot keywords (``irregular=warn``,
``${IRREGULAR}``) both go through here, naming their own options
(``SettingNames``).
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ndrpdr.results.flapping import TrialView, find_flapping
from ndrpdr.results.oneway import is_one_way
from ndrpdr.results.record import cpus_section
from ndrpdr.search.result import GoalIrregularity
from ndrpdr.search.trial import TrialResult
from ndrpdr.units import format_percent, format_rate

if TYPE_CHECKING:  # the record module imports this one: its types are read, not imported
    from ndrpdr.results.searchrecord import GoalEntry, NamedEntry, SearchRecord

#: The test tag of every irregular result (with the reason's own tag).
IRREGULAR_TAG = "IRREGULAR"
#: Relative slack when bounds are compared (float noise is not disorder).
_SLACK = 1e-9


class IrregularReason(str, enum.Enum):
    """Why a finished search is irregular; ``tag`` is its Robot test tag."""

    MIN_LOAD_LOSSY = "min load lossy"
    BOUNDS_OUT_OF_ORDER = "bounds out of order"
    TG_LIMITED = "TG-limited"
    TIME_CAP = "time cap"
    CPU_SHARED = "CPU shared"
    DUT_FLAPPING = "DUT flapping"

    @property
    def tag(self) -> str:
        """``MIN_LOAD_LOSSY``, ``BOUNDS_OUT_OF_ORDER``, ``TG_LIMITED``, ``TIME_CAP``,
        ``CPU_SHARED``, ``DUT_FLAPPING``."""
        return self.name


class IrregularPolicy(str, enum.Enum):
    """What an irregular result does to the run.

    An irregular result: a min load that already loses too much, bounds out
    of order (NDR above PDR), bounds limited by the traffic generator, the
    time cap hit before the bounds were found, a DUT's CPU shared with
    another run, a DUT whose capacity jumps between trials.

    | =Value= | =Irregular result= |
    | ``fail`` | fails (the default) |
    | ``warn`` | passes with a warning |

    Either way the test is tagged ``IRREGULAR`` and ``MIN_LOAD_LOSSY``,
    ``BOUNDS_OUT_OF_ORDER``, ``TG_LIMITED``, ``TIME_CAP``, ``CPU_SHARED`` or
    ``DUT_FLAPPING``.
    """

    FAIL = "fail"
    WARN = "warn"


@dataclasses.dataclass(frozen=True)
class SettingNames:
    """How the user gives the settings a message tells them to change."""

    min_rate: str
    max_rate: str
    max_search_time: str
    algorithm: str
    accept: str


#: The ``ndrpdr search`` options.
CLI_NAMES = SettingNames(
    min_rate="--min-rate",
    max_rate="--max-rate",
    max_search_time="--max-search-time",
    algorithm="--algorithm mlr",
    accept="--allow-irregular",
)
#: The keyword arguments and resources/performance.resource variables.
ROBOT_NAMES = SettingNames(
    min_rate="min_rate (${MIN_RATE})",
    max_rate="max_rate (${MAX_RATE})",
    max_search_time="max_search_time (${MAX_SEARCH_TIME})",
    algorithm="algorithm=mlr (${SEARCH_ALGORITHM})",
    accept="irregular=warn (${IRREGULAR})",
)


@dataclasses.dataclass(frozen=True)
class Irregularity:
    """One irregularity: its reason and a one-line message (what happened; what to change)."""

    reason: IrregularReason
    message: str

    def to_json(self) -> dict[str, str]:
        """The entry of the record's ``irregular`` list."""
        return {"reason": self.reason.value, "tag": self.reason.tag, "message": self.message}


def find_irregularities(
    record: SearchRecord, names: SettingNames = CLI_NAMES
) -> list[Irregularity]:
    """What is irregular about ``record`` (empty when nothing), in ``IrregularReason`` order."""
    goals = record.named_goals()
    found = [
        _min_load_lossy(record, goals, names),
        _out_of_order(goals, names),
        _tg_limited(record, goals, names),
        _time_cap(record, goals, names),
        _cpu_shared(record, names),
        _flapping(record, names),
    ]
    return [item for item in found if item is not None]


def irregular_text(irregularities: Sequence[Irregularity]) -> str:
    """The messages on one line, ``; ``-separated."""
    return "; ".join(item.message for item in irregularities)


def irregular_tags(record: Mapping[str, Any]) -> list[str]:
    """``IRREGULAR`` and each reason's tag for a record listing irregularities, else none."""
    entries = record.get("irregular") or []
    if not entries:
        return []
    return [IRREGULAR_TAG, *dict.fromkeys(str(entry["tag"]) for entry in entries)]


@dataclasses.dataclass(frozen=True)
class Verdict:
    """What ``judge`` found: the irregularities, whether the run fails for them, its error."""

    irregularities: tuple[Irregularity, ...]
    failed: bool
    #: The record's error after the verdict (None: it passes).
    error: str | None = None


def judge(
    found: Sequence[Irregularity],
    error: str | None,
    *,
    time_capped: bool,
    policy: IrregularPolicy = IrregularPolicy.FAIL,
) -> Verdict:
    """Apply ``policy`` to the irregularities ``found`` in a record whose error is ``error``.

    A record that failed for another reason (a TG error, Ctrl-C) keeps its
    error. Otherwise an irregular record, with FAIL, fails with the error
    "irregular result: <messages>" (``failed``); with WARN it passes, its
    error (a time cap's) cleared.
    """
    items = tuple(found)
    if not items or (error is not None and not time_capped):
        return Verdict(items, failed=False, error=error)
    if policy is IrregularPolicy.FAIL:
        return Verdict(items, failed=True, error=f"irregular result: {irregular_text(items)}")
    return Verdict(items, failed=False, error=None)


def _joined(labels: Sequence[str]) -> str:
    return " and ".join(labels) if len(labels) <= 2 else ", ".join(labels)


def _min_load_lossy(
    record: SearchRecord, goals: Sequence[NamedEntry], names: SettingNames
) -> Irregularity | None:
    lossy = [
        g.label for g in goals if g.entry.irregular_reason is GoalIrregularity.MIN_LOAD_IS_UPPER
    ]
    if not lossy:
        return None
    low = record.settings.min_load_pps
    trials_at_min = [t for t in record.trials if t.load <= low * 1.0001]
    at_min = [t.loss_ratio for t in trials_at_min]
    seen = ""
    if at_min:  # a range: with an exceed ratio some of them may even be lossless
        low_loss, high_loss = format_percent(min(at_min)), format_percent(max(at_min))
        span = low_loss if low_loss == high_loss else f"{low_loss}..{high_loss}"
        seen = f" (loss {span} % in its {len(at_min)} trial{'s' if len(at_min) > 1 else ''})"
    sent_nothing = _sent_nothing(trials_at_min, names)
    if sent_nothing is not None:
        what, advice = sent_nothing
        return Irregularity(
            IrregularReason.MIN_LOAD_LOSSY,
            f"{_joined(lossy)}: the min load {format_rate(low)} {what}, so there is no lower "
            f"bound; {advice}",
        )
    return Irregularity(
        IrregularReason.MIN_LOAD_LOSSY,
        f"{_joined(lossy)}: the min load {format_rate(low)} already loses too much{seen}, "
        f"so there is no lower bound; {_lossy_advice(record, trials_at_min, names)}",
    )


def _sent_nothing(
    trials_at_min: Sequence[TrialResult], names: SettingNames
) -> tuple[str, str] | None:
    """What happened and what to do when no trial at the min load sent a frame (None: some
    did)."""
    if not trials_at_min or any(t.offered_count > 0 for t in trials_at_min):
        return None
    count = len(trials_at_min)
    trials = f"{count} trial{'s' if count > 1 else ''}"
    if all((t.intended_count or 0.0) < 1 for t in trials_at_min):
        return (
            f"is less than one frame per trial: its {trials} sent no frame and measured "
            "nothing (the DUT lost nothing)",
            f"give a higher {names.min_rate}",
        )
    return (
        f"measured nothing: the traffic generator sent no frame in its {trials} (the DUT "
        "lost nothing)",
        "check the TG's ports and its log",
    )


def _lossy_advice(
    record: SearchRecord, trials_at_min: Sequence[TrialResult], names: SettingNames
) -> str:
    """Why the min load loses, as far as the trials tell, and what to do."""
    sent = [t for t in record.trials if t.offered_count > 0]
    if sent and all((t.forwarded_count or 0.0) <= 0 for t in sent):
        loads = sorted(t.load for t in sent)
        span = format_rate(loads[0])
        if loads[-1] > loads[0]:
            span += f" to {format_rate(loads[-1])}"
        offered = sum(t.offered_count for t in sent)
        return (
            f"the DUT forwarded nothing: 0 of {offered:.0f} frames in all {len(sent)} trials "
            f"({span}); it is down or not forwarding (a crashed data plane, ports down, wrong "
            f"routes or MACs), and a lower {names.min_rate} will not help"
        )
    one_way = [w for t in trials_at_min for w in t.warnings if is_one_way(w)]
    if one_way:
        return (
            f"one direction received nothing: {one_way[0]}; a lower {names.min_rate} will not help"
        )
    return f"give a lower {names.min_rate}, or check that the DUT forwards at all"


def _stricter(a: GoalEntry, b: GoalEntry) -> bool:
    """Goal entry ``a`` asks at least as much as ``b`` (and is not the same goal)."""
    mine, theirs = a.goal, b.goal
    asks_no_less = mine.loss_ratio <= theirs.loss_ratio and mine.exceed_ratio <= theirs.exceed_ratio
    return asks_no_less and (
        mine.loss_ratio < theirs.loss_ratio or mine.exceed_ratio < theirs.exceed_ratio
    )


def _bound(entry: GoalEntry, which: str) -> float | None:
    return entry.lower_bound_pps if which == "lower" else entry.upper_bound_pps


def _out_of_order(goals: Sequence[NamedEntry], names: SettingNames) -> Irregularity | None:
    found: list[str] = []
    for goal in goals:
        lower, upper = _bound(goal.entry, "lower"), _bound(goal.entry, "upper")
        if lower is not None and upper is not None and lower > upper * (1 + _SLACK):
            found.append(
                f"{goal.label} lower bound {format_rate(lower)} is above its upper bound "
                f"{format_rate(upper)}"
            )
    for strict in goals:
        for lax in goals:
            if not _stricter(strict.entry, lax.entry):
                continue
            for which in ("lower", "upper"):
                mine, theirs = _bound(strict.entry, which), _bound(lax.entry, which)
                if mine is not None and theirs is not None and mine > theirs * (1 + _SLACK):
                    found.append(
                        f"{strict.label} {which} bound {format_rate(mine)} is above "
                        f"{lax.label}'s {format_rate(theirs)}"
                    )
    if not found:
        return None
    return Irregularity(
        IrregularReason.BOUNDS_OUT_OF_ORDER,
        f"bounds out of order: {', '.join(found)} (a stricter goal cannot pass a higher load; "
        "the trials disagree, as when a binary search verifies each goal apart); "
        f"search again with longer trials, or with {names.algorithm}, whose goals share "
        "every trial",
    )


def _tg_limited(
    record: SearchRecord, goals: Sequence[NamedEntry], names: SettingNames
) -> Irregularity | None:
    if all(entry.tg_limit_reason is None for entry in record.goals):
        return None
    why: dict[str, list[str]] = {}
    for goal in goals:
        if goal.entry.tg_limit_reason is not None:
            reason = goal.entry.tg_limit_reason or "limited"
            why.setdefault(reason, []).append(goal.label)
    reasons = "; ".join(f"{_joined(labels)}: {reason}" for reason, labels in why.items())
    sent = record.tg_limit()["max_offered_pps"]
    most = f" (it sent at most {format_rate(float(sent))})" if sent is not None else ""
    return Irregularity(
        IrregularReason.TG_LIMITED,
        f"the traffic generator, not the DUT, limited the bounds{most}: {reasons}; "
        f"give a {names.max_rate} the TG can send, or use a faster TG",
    )


def _time_cap(
    record: SearchRecord, goals: Sequence[NamedEntry], names: SettingNames
) -> Irregularity | None:
    if not record.time_capped:
        return None
    cap = record.settings.max_search_time_s
    cap_text = f"of {cap:g} s of trials " if cap is not None else ""
    open_goals = [
        f"{g.label} {_bound_text(g.entry.lower_bound_pps)}...{_bound_text(g.entry.upper_bound_pps)}"
        for g in goals
        if not g.entry.regular
    ]
    pending = f" ({', '.join(open_goals)})" if open_goals else ""
    return Irregularity(
        IrregularReason.TIME_CAP,
        f"the search hit its time cap {cap_text}after {len(record.trials)} trials, "
        f"before every goal had bounds within its width{pending}; give a longer "
        f"{names.max_search_time}, or ask for less (a shorter duration sum or final trial "
        "duration, a wider goal width)",
    )


def _bound_text(value: float | None) -> str:
    return "?" if value is None else format_rate(value)


def _cpu_shared(record: SearchRecord, names: SettingNames) -> Irregularity | None:
    duts = (cpus_section(record.telemetry) or {}).get("duts") or []
    shared = [f"{d['node']} ({d['shared_with']})" for d in duts if d.get("shared_with")]
    if not shared:
        return None
    return Irregularity(
        IrregularReason.CPU_SHARED,
        f"the CPU of {_joined(shared)} was shared while the search ran: the bounds measure "
        f"two runs at once; run alone, or accept it with {names.accept}",
    )


def _flapping(record: SearchRecord, names: SettingNames) -> Irregularity | None:
    if not record.goals:
        return None
    loosest = max(entry.goal.loss_ratio for entry in record.goals)
    views = [TrialView.from_trial(i, t) for i, t in enumerate(record.trials)]
    evidence = find_flapping(views, loosest)
    if evidence is None:
        return None
    return Irregularity(
        IrregularReason.DUT_FLAPPING,
        f"the DUT's capacity jumped between trials: {evidence.describe()}; bounds between "
        "the two levels are a coin toss: find what changes the DUT's speed (CPU frequency "
        "scaling, a worker moved between cores, interrupts, a link renegotiating), or accept "
        f"it with {names.accept}",
    )
