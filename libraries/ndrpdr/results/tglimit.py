"""Whether the traffic generator, not the DUT, limited a search's bounds.

A trial is *TG-limited* when the TG offered (sent) frames at less than
``TG_LIMIT_TOLERANCE`` of the trial's load: fewer frames than intended (its
loss ratio then counts frames never sent, RFC 9971 "unsent"), or all of
them but stretched over more time than the trial's duration (tcpreplay
falling behind), so the DUT saw a lower rate than the load says. A bound
classified from such trials says as much about the TG as about the DUT. A goal is
TG-limited when the TG fell short at its lower or upper bound load: the trials at
that load together (every frame they got out over every second they took) were
sent at less than TG_LIMIT_TOLERANCE of it. Together, because the bound rests on
them together (a duration sum), and because a TG's own timing of one trial is
noisy: TRex's trials here are seen to end 10 ms late on average, up to 23 ms on
a busy machine, so with 20 trials at a load one of them crosses the 2 % of a 1 s
trial while the TG kept up with all of them; when a
trial at its upper bound exceeded the goal's loss ratio only through frames
never sent (the DUT alone lost at most that ratio of what it was offered:
for NDR a few unsent frames are enough); or when
the max load was capped at what the TG can send (``ndrpdr.trafficgen.calibrate``)
and that capped max load is the goal's lower bound with no upper bound above
it (the DUT might do more than the TG sends). The search is TG-limited when
any goal is. Works on record entries (``ndrpdr.results.record``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ndrpdr.search.result import GoalIrregularity

#: The one tolerance: a trial whose TG sent at less than this share of its load was
#: limited by the TG (98 %, the local TG's own "achieved < 98 % of intended" warning).
TG_LIMIT_TOLERANCE = 0.98


def trial_tg_limited(trial: Mapping[str, Any]) -> bool:
    """True when the trial entry's TG sent at less than TG_LIMIT_TOLERANCE of its load
    (``offered_rate_pps``: fewer frames than intended, or the same frames stretched).
    A trial meant to send less than one frame (a load below one frame per trial) was not
    limited by the TG: it had nothing to send."""
    load = float(trial.get("load_pps") or 0.0)
    intended = float(trial.get("intended_count", load * float(trial["duration_s"])))
    return load > 0 and intended >= 1 and offered_rate_pps(trial) < TG_LIMIT_TOLERANCE * load


def offered_rate_pps(trial: Mapping[str, Any]) -> float:
    """Frames the TG got out per second it was sending [pps].

    The seconds are the longer of the trial's duration and its effective
    duration (how long the traffic really ran: a TG that cannot keep up,
    like tcpreplay, stretches its trials).
    """
    seconds = max(float(trial["duration_s"]), float(trial.get("effective_duration_s") or 0.0))
    return float(trial.get("offered_count") or 0.0) / seconds


#: Why a goal is TG-limited (the record's ``tg_limit_reason`` of the goal).
CAPPED_REASON = "the max load, capped at what the TG sends, is the lower bound"
SLOW_REASON = f"the trials at a bound were sent at less than {TG_LIMIT_TOLERANCE:.0%} of its load"
UNSENT_REASON = "the upper bound was lossy only through frames the TG did not send"


def goal_tg_limit_reason(
    goal: Mapping[str, Any], trials: Sequence[Mapping[str, Any]], *, capped: bool = False
) -> str | None:
    """Why the goal entry is TG-limited (one of the ``*_REASON`` texts), None if it is not.

    ``capped``: the max load was capped at the TG's rate by a calibration.
    """
    if capped and goal.get("irregular_reason") == GoalIrregularity.MAX_LOAD_IS_LOWER.value:
        return CAPPED_REASON
    loads = {goal.get("lower_bound"), goal.get("upper_bound")} - {None}
    if any(_sent_short([t for t in trials if t.get("load_pps") == load]) for load in loads):
        return SLOW_REASON
    upper = goal.get("upper_bound")
    ratio = float(goal["loss_ratio"])
    if any(_lossy_only_by_unsent(t, ratio) for t in trials if t.get("load_pps") == upper):
        return UNSENT_REASON
    return None


def goal_tg_limited(
    goal: Mapping[str, Any], trials: Sequence[Mapping[str, Any]], *, capped: bool = False
) -> bool:
    """True when the goal entry is TG-limited (``goal_tg_limit_reason`` gives why)."""
    return goal_tg_limit_reason(goal, trials, capped=capped) is not None


def _sent_short(trials: Sequence[Mapping[str, Any]]) -> bool:
    """True when ``trials`` (all at one load) together were sent at less than
    TG_LIMIT_TOLERANCE of that load: their frames got out over their seconds."""
    if not trials:
        return False
    total = {
        "load_pps": trials[0]["load_pps"],
        "duration_s": sum(float(t["duration_s"]) for t in trials),
        "effective_duration_s": sum(
            max(float(t["duration_s"]), float(t.get("effective_duration_s") or 0.0)) for t in trials
        ),
        "offered_count": sum(float(t.get("offered_count") or 0.0) for t in trials),
    }
    return trial_tg_limited(total)


def _lossy_only_by_unsent(trial: Mapping[str, Any], loss_ratio: float) -> bool:
    """The trial exceeded ``loss_ratio`` although the DUT lost at most that share of its
    offered frames: the frames the TG never sent made it lossy."""
    offered = float(trial.get("offered_count") or 0.0)
    if float(trial.get("loss_ratio", 0.0)) <= loss_ratio or offered <= 0:
        return False
    return float(trial.get("loss_count") or 0.0) / offered <= loss_ratio


def tg_limit_summary(
    goals: Sequence[Mapping[str, Any]],
    trials: Sequence[Mapping[str, Any]],
    *,
    calibration_pps: float | None = None,
) -> dict[str, Any]:
    """The record's ``tg_limit`` object (after each goal entry got its ``tg_limited``).

    ``limited``: some goal is TG-limited;
    ``tolerance``: TG_LIMIT_TOLERANCE; ``limited_trials``: how many trials
    were TG-limited; ``max_offered_pps``: the highest rate the TG sent in any
    trial or in a calibration trial (``calibration_pps``, the fastest), None without either:
    the "sent at most" of the test message.
    """
    rates = [offered_rate_pps(t) for t in trials]
    if calibration_pps is not None:
        rates.append(calibration_pps)
    return {
        "limited": any(bool(goal.get("tg_limited")) for goal in goals),
        "tolerance": TG_LIMIT_TOLERANCE,
        "limited_trials": sum(1 for t in trials if trial_tg_limited(t)),
        "max_offered_pps": max(rates) if rates else None,
    }
