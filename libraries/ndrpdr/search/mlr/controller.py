"""Our multiple-loss-ratio controller ("mlr").

Per goal, up to three stages instead of MLRsearch's chain of coarser targets:

1. short: trials at the goal's initial duration, each one deciding a load
   (duration sum = initial duration), until a short high-loss trial sits
   within one goal width above the predicted threshold and the DUT looks
   saturated there (a cliff: the two lowest failures forwarded nearly the
   same rate), or else until a short trial passes. A plateau of small loss far
   below the capacity (the Linux kernel on the lab in a box) forwards
   nearly all it is offered at every failing load and looks like a cliff
   to its first failure; once the estimate misses there, the stage bisects.
   A full-length (or intermediate) trial that fails below the short upper
   bound of a goal handed over without a short pass reopens its short
   stage, once: short trials search on down at a second each;
2. scout (goals whose duration sum holds at least ``SCOUT_MIN_TRIALS``
   final trials, e.g. CSIT's 21 x 1 s): full-length trials, a load decided
   by sqrt(duration sum x final duration) of them (3 of 5 where the goal
   needs 11 of 21), until the scout bounds lie within ``view.SCOUT_WIDTHS`` goal
   widths; then the goal's own criterion settles the loads between and at
   them, so the scouting trials count again. A goal bound that lands
   outside the scout bracket (noise fooled the scout) scouts afresh from
   the goal's bounds. On a deterministic DUT the scout decides the same two
   loads the goal settles, at no extra cost. Once the goal's full-length
   trials show noise (a failure at or below a load that passed), the scout
   goes to the load where a logistic fit of every such trial's pass/fail
   puts the median trial's threshold (see ``knee``), clamped into the
   scout bracket, instead of stepping or bisecting (after
   ``scout.FIT_YIELDS_AFTER_MOVES`` moves the same way a further geometric step
   wins). Before any noise, where a full-length trial lost a little (within
   the goal's loss ratio: a smooth loss curve), the scout tries the
   estimate (see ``hint``) as the final stage does;
3. final: the goal itself. The predicted threshold is tried at the final
   duration; the upper bound just above it is taken from a short trial
   whenever one failing short trial settles it (exceed ratio 0) and short
   trials have not been caught overstating the DUT.

Steps on a noisy knee: while a bound keeps moving the same way the step
doubles (in the scout stage from the first move, in the short stage from
``state.SHORT_GROW_AFTER_MOVES``, in the final stage from
``state.GROW_AFTER_MOVES`` moves), as MLRsearch's expansion does, instead of one
goal width per load; a full-length contradiction of a predicted pass counts
as two moves down; a min load that already lost (or an estimate below it)
sends the goal straight to the min load at full length instead of bisecting
down from the max load; once a full-length trial expected to fail next to
the estimate passes (a noisy DUT), every goal's final stage steps down from
its upper bound one width at a time instead of climbing through the noisy
band. Classification stays RFC 9971's: these rules only choose the next
load.

No intermediate durations by default: on DUTs whose short trials predict
long ones the first full-length trial confirms the short stage; when they
disagree the full-length trial's forwarding rate re-seeds the prediction
directly (see ``hint``) instead of stepping down one width at a time
(docs/search-engine.rst has the measured trial counts against MLRsearch's
intermediate phases). With ``intermediate_trials`` on, the first
full-length trial a goal asks for at a load is preceded by one trial of the
goal's intermediate duration (``intermediate_duration``: MLRsearch's middle
target) at that load: one more chance to meet loss that comes rarely (an
interrupt). It counts as a short trial (RFC 9971); the goal learns from it
as from the trial it stands before, so a pass leads on to the full-length
trial at the same load, a failure that settles the load saves it.
Loads live on an integer log grid; among all goals' nominations the lowest
load goes first (ties: the longer trial), so a later lossy trial cannot
undo a lower bound above it; every trial counts for every goal.

Where the parts live: each stage's rules are small strategy objects that
nominate a trial or decline, asked in priority order (``strategy``):
``stage`` for the short and final stages, ``scout`` for the scout
stage. They read a per-stage view (``view``) built from the shared
queries of ``state``; a goal's state is a ``track.Track``, a
nomination a ``plan.Plan``, and the names of stages, phases and rules
are the str enums of ``names``. This module creates the goals' tracks,
picks among their nominations and learns from each trial.
"""

from __future__ import annotations

import dataclasses
import math

from ndrpdr.search.classify import Classification, Criterion
from ndrpdr.search.errors import SearchError
from ndrpdr.search.goal import Goal
from ndrpdr.search.grid import LoadGrid
from ndrpdr.search.mlr.names import Direction, Expect, Phase, Rule, Stage
from ndrpdr.search.mlr.plan import Plan
from ndrpdr.search.mlr.scout import SCOUT_STAGE
from ndrpdr.search.mlr.stage import FINAL_STAGE, SHORT_STAGE
from ndrpdr.search.mlr.state import MlrState
from ndrpdr.search.mlr.strategy import select
from ndrpdr.search.mlr.track import Track
from ndrpdr.search.mlr.view import bounds_view, scout_view
from ndrpdr.search.session import Session
from ndrpdr.search.trial import TrialReason, TrialResult

MAX_TRIALS = 10_000
SCOUT_MIN_TRIALS = 3.0
"""A goal whose duration sum holds at least this many final trials gets a scout stage."""


class MlrController:
    """Chooses trials for all goals at once; see the module docstring."""

    name = "mlr"

    def __init__(self, session: Session, *, intermediate_trials: bool = False) -> None:
        self.session = session
        self.intermediate_trials = intermediate_trials
        grid = LoadGrid(
            session.min_load, session.max_load, [g.relative_width for g in session.goals]
        )
        self.state = MlrState(session, grid)
        self.tracks = [self._track(i, goal) for i, goal in enumerate(session.goals)]

    def _track(self, index: int, goal: Goal) -> Track:
        width = self.state.grid.width_steps(goal.relative_width)
        if goal.duration_sum <= goal.initial_trial_duration:
            return Track(index, goal, None, width, Stage.FINAL)
        short = Criterion(
            loss_ratio=goal.loss_ratio,
            exceed_ratio=goal.exceed_ratio,
            final_duration=goal.initial_trial_duration,
            duration_sum=goal.initial_trial_duration,
        )
        track = Track(index, goal, self.session.db.add_criterion(short), width, Stage.SHORT)
        final_s = goal.final_trial_duration
        if goal.duration_sum >= SCOUT_MIN_TRIALS * final_s:
            # The geometric mean of one trial and the duration sum: 3 of 5
            # trials decide a load where the goal needs 11 of 21.
            scout = Criterion(
                loss_ratio=goal.loss_ratio,
                exceed_ratio=goal.exceed_ratio,
                final_duration=final_s,
                duration_sum=(goal.duration_sum * final_s) ** 0.5,
            )
            track.scout_criterion = self.session.db.add_criterion(scout)
        return track

    def run(self) -> None:
        """Measure until every goal is settled."""
        for _ in range(MAX_TRIALS):
            plans = [(track, plan) for track in self.tracks if (plan := self._plan(track))]
            if not plans:
                return
            track, chosen = min(
                plans, key=lambda tp: (tp[1].index, -tp[1].duration, tp[0].goal_index)
            )
            load = self.state.grid.load(chosen.index)
            self.state.index_of[load] = chosen.index
            reason = TrialReason(
                algorithm=self.name,
                phase=chosen.phase,
                strategy=chosen.strategy,
                goal=None if chosen.strategy is Rule.PROBE else track.goal_index,
                detail=chosen.detail,
            )
            duration = chosen.duration
            middle = self._intermediate(track.goal, chosen.duration, load)
            if middle is not None:
                duration = middle
                reason = dataclasses.replace(
                    reason,
                    phase=Phase.INTERMEDIATE,
                    detail=f"before the first {chosen.duration:g} s trial here "
                    f"(as {chosen.phase}); {chosen.detail}",
                )
            trial = self.session.measure(duration, load, reason)
            for other, plan in plans:
                if plan.index == chosen.index and plan.duration <= chosen.duration:
                    self._learn(other, plan, trial)
            self._check_agreement(trial)
        raise SearchError(f"mlr controller did not converge in {MAX_TRIALS} trials")

    def _intermediate(self, goal: Goal, duration: float, load: float) -> float | None:
        """The intermediate duration to measure ``load`` at instead of a
        full-length ``duration``; None when the option is off, the goal has
        no intermediate duration, or the load has a trial that long already."""
        if not self.intermediate_trials or duration < goal.final_trial_duration:
            return None
        middle = intermediate_duration(goal)
        if middle is None:
            return None
        if any(t.duration >= middle for t in self.session.db.trials_at(load)):
            return None
        return middle

    def _plan(self, track: Track) -> Plan | None:
        """The goal's nomination: its stage's strategies' first, moving on to
        the next stage while one has nothing left to try."""
        state = self.state
        if track.stage is Stage.SHORT:
            view = bounds_view(state, track, short=True)
            plan = None if view is None else select(SHORT_STAGE, view)
            if plan is not None:
                return plan
            track.next_stage()
        if track.stage is Stage.SCOUT:
            scout = scout_view(state, track)
            plan = None if scout is None else select(SCOUT_STAGE, scout)
            if plan is not None:
                return plan
            track.next_stage()
        view = bounds_view(state, track, short=False)
        return None if view is None else select(FINAL_STAGE, view)

    # -- learning from results -----------------------------------------------

    def _learn(self, track: Track, plan: Plan, trial: TrialResult) -> None:
        track.last_plan = plan
        goal = track.goal
        expected_pass = plan.phase is Phase.FINAL and plan.expect is Expect.PASS
        if (
            expected_pass
            and goal.initial_trial_duration < goal.final_trial_duration
            and _far_below(trial, goal)
        ):
            self._distrust()  # the short stage predicted a pass here
        expected_fail = plan.phase is Phase.FINAL and plan.expect is Expect.FAIL
        if expected_fail and plan.strategy.guided:
            verdict = self.session.db.classification(track.goal_index, trial.load)
            if verdict is Classification.LOWER:
                self.state.refuted_fail = True  # see stage.BelowUpperOnceRefuted
        contradicted = False
        if expected_pass:
            verdict = self.session.db.classification(track.goal_index, trial.load)
            contradicted = verdict is Classification.UPPER
            track.pass_misses = _misses_after(track.pass_misses, verdict)
        if plan.phase is Phase.SHORT and plan.expect is Expect.PASS:
            criterion = self.state.criterion(track, short=True)
            verdict = self.session.db.classification(criterion, trial.load)
            track.short_misses = _misses_after(track.short_misses, verdict)
        if self._refutes_hint_handover(track, plan, trial):
            track.reopen_short()
            return
        if (track.stage is Stage.SHORT) != (plan.phase is Phase.SHORT):
            return  # the stage changed (distrust): its moves start afresh
        self._track_moves(track, plan, contradicted)

    def _refutes_hint_handover(self, track: Track, plan: Plan, trial: TrialResult) -> bool:
        """Did this full-length trial (or the intermediate one standing before it)
        fail the goal below the short stage's upper bound while the short stage
        has no lower bound?

        The short stage then handed the goal over on a cliff's estimate
        (``stage.HintVerified``) that the DUT does not bear out: a plateau of
        small loss above a cliff looks like the cliff to the two short
        trials that decided it. Searching on down in short trials costs a
        second each; in full-length trials, the whole final duration. A
        trial longer than the short ones that lost far more (two goal
        widths below what the goal needs) is the other story, short trials
        that overstate the DUT (a buffer): more short trials would not
        help, and ``_check_agreement`` stops trusting them. (Where the
        final trials are as short as the initial ones, CSIT's 1 s, there
        is no such story: a noisy knee's scout trials lose a few percent.)
        """
        goal = track.goal
        if track.stage is Stage.SHORT or track.short_reopened or not self.state.trust_short:
            return False
        if plan.phase not in (Phase.SCOUT, Phase.FINAL) or track.short_criterion is None:
            return False
        longer = trial.duration > goal.initial_trial_duration  # an intermediate one too
        if not (longer or trial.duration >= goal.final_trial_duration):
            return False  # a short trial the final stage took to settle an upper bound
        if trial.loss_ratio <= goal.loss_ratio:
            return False
        if longer and _lost_far_more(trial, goal):
            return False  # a longer trial lost far more: short trials overstate the DUT
        lower, upper = self.session.db.relevant_bounds(track.short_criterion)
        return lower is None and upper is not None and trial.load <= upper

    def _track_moves(self, track: Track, plan: Plan, contradicted: bool) -> None:
        """Count how many times in a row a bound moved the same way.

        A move is a trial that decided a load: the lower bound up or the
        upper bound down. A load expected to pass at full length that turns
        out an upper bound (a contradiction near a knee) counts as two moves
        down, so the next step down is already two widths.
        """
        state = self.state
        if plan.phase is Phase.SCOUT:
            low, high = state.scout_bounds(track, *state.indices(track.goal_index))
        else:
            low, high = state.indices(state.criterion(track, plan.phase is Phase.SHORT))
        if low > plan.low and high == plan.high:
            direction = Direction.UP
        elif high < plan.high and low == plan.low:
            direction = Direction.DOWN
        else:
            return  # undecided yet, or decided by another goal's trial as well
        if direction is track.direction:
            track.run += 1
        else:
            track.direction, track.run = direction, 1
        if contradicted and direction is Direction.DOWN:
            track.run = max(track.run, 2)

    def _check_agreement(self, trial: TrialResult) -> None:
        """Stop trusting short trials once a full-length one contradicts them.

        A contradiction is a full-length trial that puts a goal's threshold
        well below its load (see ``_far_below``) at a load no higher than one
        where a short trial was low-loss for that goal.
        Short trials then neither settle upper bounds nor steer the search:
        every goal goes on at its final duration.
        """
        if not self.state.trust_short:
            return
        for track in self.tracks:
            goal = track.goal
            if not _far_below(trial, goal):
                continue
            for load in self.session.db.loads:
                if load >= trial.load and any(
                    other.duration < goal.final_trial_duration
                    and other.loss_ratio <= goal.loss_ratio
                    for other in self.session.db.trials_at(load)
                ):
                    self._distrust()
                    return

    def _distrust(self) -> None:
        self.state.trust_short = False
        for track in self.tracks:
            if track.stage is Stage.SHORT:
                track.next_stage()


def intermediate_duration(goal: Goal) -> float | None:
    """The goal's intermediate trial duration [s], None when it has none.

    MLRsearch's middle target (its default two preceding targets): the
    geometric mean of the initial trial duration and the duration sum,
    capped at the final trial duration; None unless it lies strictly
    between the initial and the final duration (CSIT's 1 s trials have
    none; strict goals of 30 s have 5.48 s).
    """
    middle = min(
        math.sqrt(goal.initial_trial_duration * goal.duration_sum), goal.final_trial_duration
    )
    if not goal.initial_trial_duration < middle < goal.final_trial_duration:
        return None
    return middle


def _misses_after(misses: int, verdict: Classification) -> int:
    """Predicted passes missed in a row, after a trial expected to pass whose load is now
    ``verdict``: one more for an upper bound, none for a lower one, as it was if undecided."""
    if verdict is Classification.UPPER:
        return misses + 1
    if verdict is Classification.LOWER:
        return 0
    return misses


def _far_below(trial: TrialResult, goal: Goal) -> bool:
    """Is this full-length trial's forwarding rate two goal widths or more
    below what the goal needs at its load?

    A long trial that only just fails (one transient interruption) says
    little about short trials; one that forwards far less than it was
    offered while short trials passed means short trials overstate the DUT.
    """
    if trial.duration < goal.final_trial_duration:
        return False
    return _lost_far_more(trial, goal)


def _lost_far_more(trial: TrialResult, goal: Goal) -> bool:
    """Did this trial forward two goal widths or more below what the goal needs
    at its load (whatever its duration)?"""
    if trial.loss_ratio <= goal.loss_ratio:
        return False
    needed = trial.load * (1.0 - goal.relative_width) ** 2
    return trial.forwarding_rate / (1.0 - goal.loss_ratio) < needed
