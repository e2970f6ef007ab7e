"""Our multiple-loss-ratio controller ("mlr").

Per goal, two stages instead of MLRsearch's chain of coarser targets:

1. short: trials at the goal's initial duration, each one deciding a load
   (duration sum = initial duration), until a short high-loss trial sits
   within one goal width above the predicted threshold;
2. final: the goal itself. The predicted threshold is tried at the final
   duration; the upper bound just above it is taken from a short trial
   whenever one failing short trial settles it (exceed ratio 0) and short
   trials have not been caught overstating the DUT.

No intermediate durations: on DUTs whose short trials predict long ones the
first full-length trial confirms the short stage; when they disagree the
full-length trial's forwarding rate re-seeds the prediction directly (see
``hint``) instead of stepping down one width at a time. Loads live on an
integer log grid; among all goals' nominations the lowest load goes first
(ties: the longer trial), so a later lossy trial cannot undo a lower bound
above it; every trial counts for every goal.
"""

from __future__ import annotations

import dataclasses

from ndrpdr.search.classify import Classification, Criterion, classify
from ndrpdr.search.errors import SearchError
from ndrpdr.search.goal import Goal
from ndrpdr.search.grid import LoadGrid
from ndrpdr.search.hint import estimate_threshold, pool
from ndrpdr.search.session import Session
from ndrpdr.search.trial import TrialReason, TrialResult

MAX_TRIALS = 10_000


@dataclasses.dataclass(frozen=True)
class _Plan:
    """One goal's nomination: grid index, duration, and what it expects."""

    index: int
    duration: float
    phase: str
    strategy: str
    expect: str | None
    detail: str


@dataclasses.dataclass
class _Track:
    """Per-goal controller state."""

    goal_index: int
    goal: Goal
    short_criterion: int | None
    width: int
    stage: str
    trust_short: bool = True
    misses: int = 0
    streak: int = 0


class MlrController:
    """Chooses trials for all goals at once; see the module docstring."""

    name = "mlr"

    def __init__(self, session: Session) -> None:
        self.session = session
        self.grid = LoadGrid(
            session.min_load, session.max_load, [g.relative_width for g in session.goals]
        )
        self.index_of: dict[float, int] = {}
        self.tracks = [self._track(i, goal) for i, goal in enumerate(session.goals)]

    def _track(self, index: int, goal: Goal) -> _Track:
        width = self.grid.width_steps(goal.relative_width)
        if goal.duration_sum <= goal.initial_trial_duration:
            return _Track(index, goal, None, width, "final")
        short = Criterion(
            loss_ratio=goal.loss_ratio,
            exceed_ratio=goal.exceed_ratio,
            final_duration=goal.initial_trial_duration,
            duration_sum=goal.initial_trial_duration,
        )
        return _Track(index, goal, self.session.db.add_criterion(short), width, "short")

    def run(self) -> None:
        """Measure until every goal is settled."""
        for _ in range(MAX_TRIALS):
            plans = [(track, plan) for track in self.tracks if (plan := self._plan(track))]
            if not plans:
                return
            track, chosen = min(
                plans, key=lambda tp: (tp[1].index, -tp[1].duration, tp[0].goal_index)
            )
            load = self.grid.load(chosen.index)
            self.index_of[load] = chosen.index
            reason = TrialReason(
                algorithm=self.name,
                phase=chosen.phase,
                strategy=chosen.strategy,
                goal=None if chosen.strategy == "probe" else track.goal_index,
                detail=chosen.detail,
            )
            trial = self.session.measure(chosen.duration, load, reason)
            for other, plan in plans:
                if plan.index == chosen.index and plan.duration <= chosen.duration:
                    self._learn(other, plan, trial)
                self._check_agreement(other, trial)
        raise SearchError(f"mlr controller did not converge in {MAX_TRIALS} trials")

    # -- nominations ---------------------------------------------------------

    def _plan(self, track: _Track) -> _Plan | None:
        if track.stage == "short":
            plan = self._plan_stage(track, short=True)
            if plan is not None:
                return plan
            track.stage = "final"
            track.misses = track.streak = 0
        return self._plan_stage(track, short=False)

    def _criterion(self, track: _Track, short: bool) -> int:
        if short:
            assert track.short_criterion is not None
            return track.short_criterion
        return track.goal_index

    def _plan_stage(self, track: _Track, short: bool) -> _Plan | None:
        goal, top, width = track.goal, self.grid.top, track.width
        phase = "short" if short else "final"
        duration = goal.initial_trial_duration if short else goal.final_trial_duration
        if not self.session.trials:
            return _Plan(top, duration, "probe", "probe", None, "max load first")
        lower, upper = self.session.db.relevant_bounds(self._criterion(track, short))
        low = -1 if lower is None else self.index_of[lower]
        high = top + 1 if upper is None else self.index_of[upper]
        if low >= top or high <= 0 or high - low <= width:
            return None
        threshold = self._threshold(track, short)
        hint = None if threshold is None else self.grid.floor_index(threshold)
        detail = f"lower={lower!r}, upper={upper!r}, hint={threshold!r}"

        def plan(index: int, strategy: str, expect: str | None) -> _Plan:
            chosen = duration
            if not short and expect == "fail" and self._short_settles(track, index):
                chosen = goal.initial_trial_duration
            return _Plan(index, chosen, phase, strategy, expect, detail)

        near_upper = max(low, high - width - 1)
        if short and upper is not None and hint is not None and near_upper < hint < high:
            return None  # a width below a short upper bound: verify at full length
        if track.misses >= 2 and low >= 0 and high <= top and high - low > 2 * width:
            return plan((low + high) // 2, "bisect", None)
        if hint is not None and low < hint < high:
            if short and hint + width < high:
                return plan(hint + width, "expect-fail", "fail")
            return plan(hint, "expect-pass", "pass")
        step = width * 2**track.streak
        if hint is None and high <= top and low >= 0:
            return plan((low + high) // 2, "bisect", None)
        if (hint is not None and hint >= high) or (hint is None and low < 0):
            index = high - step
            if index <= low:
                return plan((low + high) // 2, "bisect", None)
            return plan(max(index, 0), "expand-down", "pass")
        index = low + step
        if index >= high:
            return plan((low + high) // 2, "bisect", None)
        return plan(min(index, top), "expand-up", "fail")

    def _threshold(self, track: _Track, short: bool) -> float | None:
        trials = self.session.trials
        goal = track.goal
        if not short:
            full = pool(trials, goal.final_trial_duration)
            if any(p.loss_ratio > goal.loss_ratio for p in full):
                return estimate_threshold(full, goal.loss_ratio)
        return estimate_threshold(pool(trials), goal.loss_ratio)

    def _short_settles(self, track: _Track, index: int) -> bool:
        """Would one failing short trial make this load an upper bound?"""
        goal = track.goal
        if not track.trust_short or goal.initial_trial_duration >= goal.final_trial_duration:
            return False
        load = self.grid.load(index)
        if any(t.duration < goal.final_trial_duration for t in self.session.db.trials_at(load)):
            return False
        known = self.session.db.stats(track.goal_index, load)
        trial_s = goal.initial_trial_duration
        stats = dataclasses.replace(known, short_high_s=known.short_high_s + trial_s)
        criterion = self.session.db.criteria[track.goal_index]
        return classify(stats, criterion) is Classification.UPPER

    # -- learning from results -----------------------------------------------

    def _learn(self, track: _Track, plan: _Plan, trial: TrialResult) -> None:
        short = plan.phase == "short"
        if plan.phase == "probe":
            return
        verdict = self.session.db.classification(self._criterion(track, short), trial.load)
        wasted = (
            not short
            and trial.duration < track.goal.final_trial_duration
            and trial.loss_ratio <= track.goal.loss_ratio
        )
        if plan.expect == "pass":
            missed = verdict is Classification.UPPER
        elif plan.expect == "fail":
            missed = verdict is Classification.LOWER or wasted
        else:
            missed = False
        if missed:
            track.misses += 1
        elif verdict is not Classification.UNDECIDED:
            track.misses = 0
        expanding = plan.strategy.startswith("expand")
        track.streak = track.streak + 1 if expanding and missed else 0

    def _check_agreement(self, track: _Track, trial: TrialResult) -> None:
        """Stop trusting short trials once a full-length one contradicts them."""
        goal = track.goal
        if trial.duration < goal.final_trial_duration or trial.loss_ratio <= goal.loss_ratio:
            return
        for load in self.session.db.loads:
            if load < trial.load:
                continue
            for other in self.session.db.trials_at(load):
                if other.duration < goal.final_trial_duration and (
                    other.loss_ratio <= goal.loss_ratio
                ):
                    track.trust_short = False
                    return
