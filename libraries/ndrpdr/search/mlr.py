"""Our multiple-loss-ratio controller ("mlr").

Per goal, up to three stages instead of MLRsearch's chain of coarser targets:

1. short: trials at the goal's initial duration, each one deciding a load
   (duration sum = initial duration), until a short high-loss trial sits
   within one goal width above the predicted threshold;
2. scout (goals whose duration sum holds at least ``SCOUT_MIN_TRIALS``
   final trials, e.g. CSIT's 21 x 1 s): full-length trials, a load decided
   by sqrt(duration sum x final duration) of them (3 of 5 where the goal
   needs 11 of 21), until the scout bounds lie within ``SCOUT_WIDTHS`` goal
   widths; then the goal's own criterion settles the loads between and at
   them, so the scouting trials count again. A goal bound that lands
   outside the scout bracket (noise fooled the scout) scouts afresh from
   the goal's bounds. On a deterministic DUT the scout decides the same two
   loads the goal settles, at no extra cost. Once the goal's full-length
   trials show noise (a failure at or below a load that passed), the scout
   goes to the load where a logistic fit of every such trial's pass/fail
   puts the median trial's threshold (see ``knee``), clamped into the
   scout bracket, instead of stepping or bisecting (after
   ``FIT_YIELDS_AFTER_MOVES`` moves the same way a further geometric step
   wins). Before any noise, where a full-length trial lost a little (within
   the goal's loss ratio: a smooth loss curve), the scout tries the
   estimate (see ``hint``) as the final stage does;
3. final: the goal itself. The predicted threshold is tried at the final
   duration; the upper bound just above it is taken from a short trial
   whenever one failing short trial settles it (exceed ratio 0) and short
   trials have not been caught overstating the DUT.

Steps on a noisy knee: while a bound keeps moving the same way the step
doubles (in the scout stage from the first move, in the final stage from
``GROW_AFTER_MOVES`` moves), as MLRsearch's expansion does, instead of one
goal width per load; a full-length contradiction of a predicted pass counts
as two moves down; a min load that already lost (or an estimate below it)
sends the goal straight to the min load at full length instead of bisecting
down from the max load. Classification stays RFC 9971's: these rules only
choose the next load.

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
from collections.abc import Callable

from ndrpdr.search import knee
from ndrpdr.search.classify import Classification, Criterion, classify
from ndrpdr.search.errors import SearchError
from ndrpdr.search.goal import Goal
from ndrpdr.search.grid import LoadGrid
from ndrpdr.search.hint import estimate_threshold, pool
from ndrpdr.search.session import Session
from ndrpdr.search.trial import TrialReason, TrialResult

MAX_TRIALS = 10_000
SCOUT_MIN_TRIALS = 3.0
"""A goal whose duration sum holds at least this many final trials gets a scout stage."""
SCOUT_WIDTHS = 2
"""The scout stage ends once its bounds are this many goal widths apart."""
FIT_YIELDS_AFTER_MOVES = 4
"""From this many moves of a scout bound in a row on, a geometric step that
goes further than the fitted knee wins (a fit that lags a long walk)."""
GROW_AFTER_MOVES = 3
"""From this many moves of a bound in a row on, the final stage's step doubles per move."""
SCOUTED_GROW_AFTER_MOVES = 4
"""The same for a goal's bound that keeps moving through the scout's bounds (stale
verdicts: loss that came and went in spells); one move later than GROW_AFTER_MOVES,
since on loss that comes at random the scout's bounds are crossed often (noisyknee:
growing after 3 moves cost 6 % more search time, after 4 nothing)."""
_GUIDED = ("expect-pass", "expect-fail")


@dataclasses.dataclass(frozen=True)
class _Plan:
    """One goal's nomination: grid index, duration, and what it expects."""

    index: int
    duration: float
    phase: str
    strategy: str
    expect: str | None
    detail: str
    hint: int | None
    span: int
    low: int = -1
    high: int = 0


@dataclasses.dataclass
class _Track:
    """Per-goal controller state."""

    goal_index: int
    goal: Goal
    short_criterion: int | None
    width: int
    stage: str
    scout_criterion: int | None = None
    direction: str | None = None
    run: int = 0
    pass_misses: int = 0
    last_plan: _Plan | None = None


class MlrController:
    """Chooses trials for all goals at once; see the module docstring."""

    name = "mlr"

    def __init__(self, session: Session) -> None:
        self.session = session
        self.grid = LoadGrid(
            session.min_load, session.max_load, [g.relative_width for g in session.goals]
        )
        self.index_of: dict[float, int] = {}
        self.trust_short = True
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
        track = _Track(index, goal, self.session.db.add_criterion(short), width, "short")
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
            self._check_agreement(trial)
        raise SearchError(f"mlr controller did not converge in {MAX_TRIALS} trials")

    # -- nominations ---------------------------------------------------------

    def _plan(self, track: _Track) -> _Plan | None:
        if track.stage == "short":
            plan = self._plan_stage(track, short=True)
            if plan is not None:
                return plan
            self._next_stage(track)
        if track.stage == "scout":
            plan = self._plan_scout(track)
            if plan is not None:
                return plan
            self._next_stage(track)
        return self._plan_stage(track, short=False)

    @staticmethod
    def _next_stage(track: _Track) -> None:
        """short -> scout (when the goal has one) -> final; moves start afresh."""
        if track.stage == "short" and track.scout_criterion is not None:
            track.stage = "scout"
        else:
            track.stage = "final"
        track.direction, track.run = None, 0

    def _criterion(self, track: _Track, short: bool) -> int:
        if short:
            assert track.short_criterion is not None
            return track.short_criterion
        return track.goal_index

    def _indices(self, criterion: int) -> tuple[int, int]:
        """(low, high): grid indices of a criterion's relevant bounds, -1 / top + 1 if none."""
        lower, upper = self.session.db.relevant_bounds(criterion)
        low = -1 if lower is None else self.index_of[lower]
        high = self.grid.top + 1 if upper is None else self.index_of[upper]
        return low, high

    def _scout_bounds(self, track: _Track, low: int, high: int) -> tuple[int, int]:
        """The scout criterion's bounds between the goal's own bounds ``low`` and ``high``.

        The goal's lower (upper) bound is a hard floor (ceiling): scout
        decisions outside it are stale. Grid indices, -1 / top + 1 if none.
        """
        assert track.scout_criterion is not None
        db = self.session.db
        scout_low, scout_high = low, high
        for load in db.loads:
            index = self.index_of[load]
            if index <= low:
                continue
            if index >= high:
                break
            verdict = db.classification(track.scout_criterion, load)
            if verdict is Classification.UPPER:
                return scout_low, index
            if verdict is Classification.LOWER:
                scout_low = index
        return scout_low, scout_high

    def _plan_scout(self, track: _Track) -> _Plan | None:
        """Scout, then settle: the stages after the short one for goals with a duration sum.

        Scouting brackets the threshold within two goal widths with
        full-length trials, about sqrt(duration sum x final duration) of
        them deciding a load (3 of 5 where the goal needs 11 of 21). From
        a single bound the step grows geometrically while the bound keeps
        moving the same way; within a bracket, bisection. Only then does
        the goal's own criterion decide loads, starting at the scout's
        bounds, whose trials count again. A goal's bound that falls outside
        the scout bracket (the scout was fooled by noise) starts scouting
        afresh from the goal's bounds.
        """
        goal, top, width = track.goal, self.grid.top, track.width
        low, high = self._indices(track.goal_index)
        if low >= top or high <= 0 or (low >= 0 and high <= top and high - low <= width):
            return None
        scout_low, scout_high = self._scout_bounds(track, low, high)
        duration = goal.final_trial_duration
        threshold = self._threshold(track, short=False)
        detail = (
            f"lower={self._load_or_none(low)!r}, upper={self._load_or_none(high)!r}, "
            f"scout lower={self._load_or_none(scout_low)!r}, "
            f"scout upper={self._load_or_none(scout_high)!r}"
        )

        def plan(index: int, phase: str, strategy: str, expect: str | None = None) -> _Plan:
            bottom, ceiling = (scout_low, scout_high) if phase == "scout" else (low, high)
            index = min(max(index, bottom + 1, 0), ceiling - 1, top)
            return _Plan(
                index,
                duration,
                phase,
                strategy,
                expect,
                detail,
                None,
                ceiling - bottom,
                bottom,
                ceiling,
            )

        for phase, bottom, ceiling in (("final", low, high), ("scout", scout_low, scout_high)):
            unfinished = self._unfinished(track, phase, bottom, ceiling)
            if unfinished is not None:
                return unfinished
        if low < 0 and self._min_load_lossy(track, track.goal_index, threshold):
            return plan(0, "final", "min-load", "fail")
        if scout_high - scout_low > SCOUT_WIDTHS * width or scout_low < 0 or scout_high > top:
            fitted = self._knee_index(track)
            stepped = self._scout_step(track, plan, scout_low, scout_high, threshold)
            if fitted is None:
                return stepped
            # Clamped into the scout bracket: at worst a one-width step
            # towards the fitted knee, unless expansion has grown further.
            fit = plan(fitted, "scout", "knee-fit")
            if track.run < FIT_YIELDS_AFTER_MOVES:
                return fit
            if stepped.strategy == "expand-up" and stepped.index > fit.index:
                return stepped
            if stepped.strategy == "expand-down" and stepped.index < fit.index:
                return stepped
            return fit
        if scout_high - scout_low > width:
            # Whichever way the middle goes, the scout bound on the other
            # side (with its trials) closes the bracket.
            return plan((scout_low + scout_high) // 2, "final", "scouted-middle")
        # A bound of the goal that keeps moving through the scout's bounds (the
        # scout's verdicts were stale: on real DUTs loss comes and goes in
        # spells) moves on with a growing step, not one scout bound at a time.
        if scout_low > low:
            index = self._grown(track, scout_low, low, high, SCOUTED_GROW_AFTER_MOVES)
            return plan(index, "final", _scouted("lower", index != scout_low), "pass")
        index = self._grown(track, scout_high, low, high, SCOUTED_GROW_AFTER_MOVES)
        return plan(index, "final", _scouted("upper", index != scout_high), "fail")

    def _knee_index(self, track: _Track) -> int | None:
        """The grid index nearest the load where a fitted trial fails the goal
        half the time (see ``knee``); None until the goal's full-length trials
        show noise."""
        goal = track.goal
        counts = knee.count(self.session.trials, goal.loss_ratio, goal.final_trial_duration)
        load = knee.median_load(counts)
        if load is None:
            return None
        below = self.grid.floor_index(load)
        if below < self.grid.top and load**2 > self.grid.load(below) * self.grid.load(below + 1):
            return below + 1  # nearer in log(load)
        return below

    def _smooth(self, track: _Track) -> bool:
        """Has a full-length trial lost a little, within the goal's loss ratio?

        Loss that grows with the load (rather than trials that lose nothing
        or much more at random) is what makes the estimate exact.
        """
        goal = track.goal
        return any(
            0.0 < trial.loss_ratio <= goal.loss_ratio
            for trial in self.session.trials
            if trial.duration >= goal.final_trial_duration
        )

    def _scout_step(
        self,
        track: _Track,
        plan: Callable[..., _Plan],
        low: int,
        high: int,
        threshold: float | None,
    ) -> _Plan:
        """The next scouting load between scout bounds ``low`` and ``high``."""
        top, width = self.grid.top, track.width
        step = width << (max(track.run, 1) - 1)
        if low < 0 and high > top:
            # The estimate when the short stage brackets it, else the short
            # stage's lower bound (or one width below its upper bound).
            start = None if threshold is None else self.grid.floor_index(threshold)
            if track.short_criterion is not None and self.trust_short:
                short_low, short_high = self._indices(track.short_criterion)
                if start is None or not short_low <= start < short_high:
                    start = short_low if short_low >= 0 else short_high - width
            return plan(top if start is None else start, "scout", "scout-start")
        hint = None if threshold is None else self.grid.floor_index(threshold)
        if hint is not None and low <= hint < high and self._smooth(track):
            # The estimate (exact on smooth loss curves): the load at it,
            # or one width above when that is the lower bound already.
            if hint > low:
                return plan(hint, "scout", "expect-pass")
            if hint + width < high:
                return plan(hint + width, "scout", "expect-fail")
        if high > top:
            return plan(low + (step if track.direction == "up" else width), "scout", "expand-up")
        if low < 0:
            return plan(
                high - (step if track.direction == "down" else width), "scout", "expand-down"
            )
        return plan((low + high) // 2, "scout", "bisect")

    def _load_or_none(self, index: int) -> float | None:
        return self.grid.load(index) if 0 <= index <= self.grid.top else None

    def _plan_stage(self, track: _Track, short: bool) -> _Plan | None:
        goal, top, width = track.goal, self.grid.top, track.width
        phase = "short" if short else "final"
        duration = goal.initial_trial_duration if short else goal.final_trial_duration
        if not self.session.trials:
            return _Plan(top, duration, "probe", "probe", None, "max load first", None, top + 2)
        lower, upper = self.session.db.relevant_bounds(self._criterion(track, short))
        low = -1 if lower is None else self.index_of[lower]
        high = top + 1 if upper is None else self.index_of[upper]
        span = high - low
        if low >= top or high <= 0 or (lower is not None and upper is not None and span <= width):
            return None
        threshold = self._threshold(track, short)
        hint = None if threshold is None else self.grid.floor_index(threshold)
        if hint is not None and (hint < max(low, 0) or hint > top):
            hint = None  # below a load that passed: the estimate is stale
        if hint is None and not short:
            hint = self._short_lower(track, low, high)
        detail = f"lower={lower!r}, upper={upper!r}, hint={threshold!r}"

        def plan(index: int, strategy: str, expect: str | None) -> _Plan:
            grown = index if short else self._grown(track, index, low, high)
            if grown != index:
                index, strategy = grown, f"{strategy}-grown"
            chosen = duration
            if not short and expect == "fail" and self._short_settles(track, index):
                chosen = goal.initial_trial_duration
            return _Plan(index, chosen, phase, strategy, expect, detail, hint, span, low, high)

        unfinished = self._unfinished(track, phase, low, high)
        if unfinished is not None:
            return unfinished
        if low < 0 and self._min_load_lossy(track, self._criterion(track, short), threshold):
            return _Plan(0, duration, phase, "min-load", "fail", detail, hint, span, low, high)
        bracketed = low >= 0 and high <= top
        near_upper = hint is not None and upper is not None and low <= hint < high <= hint + width
        if short and near_upper and hint is not None and self._hint_stable(track, phase, hint):
            return None  # the final stage verifies the hint at full length
        if short and bracketed and span > 2 * width and self._stalled(track, phase, span):
            return plan((low + high) // 2, "bisect", None)
        if hint is not None and low <= hint < high:
            if short and near_upper:
                return plan(hint, "expect-pass", "pass")
            if short and hint + width < high:
                return plan(hint + width, "expect-fail", "fail")
            if hint > low and not short and track.pass_misses >= 2:
                # The estimate keeps landing just below the last failure:
                # step down geometrically instead of one width at a time.
                # With a lower bound known, bisect instead.
                stepped = high - width * 2 ** (track.pass_misses - 1)
                if low >= 0:
                    stepped = (low + high) // 2
                return plan(max(min(hint, stepped), low + 1), "expand-down", "pass")
            if hint > low:
                return plan(hint, "expect-pass", "pass")
            return plan(min(low + width, top), "expect-fail", "fail")
        if bracketed and (hint is None or hint < high):
            return plan((low + high) // 2, "bisect", None)
        step = width
        if low < 0 and high > top:
            return plan(top, "probe", None)
        if low < 0 and (hint is None or hint < high):
            return plan((low + high) // 2, "bisect", None)
        if low < 0:
            return plan(max(high - step, 0), "expand-down", "pass")
        return plan(min(low + step, top), "expand-up", "fail")

    def _grown(
        self, track: _Track, index: int, low: int, high: int, after: int = GROW_AFTER_MOVES
    ) -> int:
        """``index`` moved further along while a bound keeps moving one way.

        After ``run`` >= GROW_AFTER_MOVES consecutive moves of the lower
        bound up (upper bound down), the next load is at least
        ``width * 2**(run - GROW_AFTER_MOVES + 1)`` above the lower (below the
        upper) bound, as MLRsearch's expansion does; never past the middle of
        a bracket (that is bisection's job) nor the load range. Fewer moves
        keep the step the rules chose (a hint that is right twice in a row is
        not overruled).
        """
        if track.run < after:
            return index
        step = track.width << (track.run - after + 1)
        if track.direction == "up" and low < index:
            limit = (low + high) // 2 if high <= self.grid.top else self.grid.top
            return max(index, min(low + step, limit))
        if track.direction == "down" and index < high:
            limit = (low + high + 1) // 2 if low >= 0 else 0
            return min(index, max(high - step, limit))
        return index

    def _min_load_lossy(self, track: _Track, criterion: int, threshold: float | None) -> bool:
        """Should the min load be measured now (no lower bound yet)?

        Yes when a trial at the min load already lost more than the goal
        allows, or the estimate lies below the min load: bisecting down from
        the max load would spend a whole duration sum at every load on the way.
        The final stage also follows a short stage that ended at the min load.
        """
        min_load = self.grid.load(0)
        if self.session.db.classification(criterion, min_load) is not Classification.UNDECIDED:
            return False
        if threshold is not None and threshold < min_load:
            return True
        loss_ratio = track.goal.loss_ratio
        return any(t.loss_ratio > loss_ratio for t in self.session.db.trials_at(min_load))

    def _unfinished(self, track: _Track, phase: str, low: int, high: int) -> _Plan | None:
        """The last load this goal tried, while it is still undecided.

        With a duration sum above the trial duration a load needs several
        trials; finishing one load before moving on keeps a noisy estimate
        from scattering trials over many loads that all stay undecided.
        """
        last = track.last_plan
        if last is None or last.phase != phase or not low < last.index < high:
            return None
        load = self.grid.load(last.index)
        if not self.session.db.trials_at(load):
            return None
        goal = track.goal
        duration = goal.initial_trial_duration if phase == "short" else goal.final_trial_duration
        return dataclasses.replace(last, strategy="continue", duration=duration)

    def _short_lower(self, track: _Track, low: int, high: int) -> int | None:
        """The short stage's lower bound, if it lies inside the bracket."""
        if track.short_criterion is None or not self.trust_short:
            return None
        lower, _ = self.session.db.relevant_bounds(track.short_criterion)
        if lower is None or not low < self.index_of[lower] < high:
            return None
        return self.index_of[lower]

    def _stalled(self, track: _Track, phase: str, span: int) -> bool:
        """The last hint-guided trial of this stage did not halve the bracket."""
        last = track.last_plan
        if last is None or last.phase != phase or last.strategy not in _GUIDED:
            return False
        return 2 * span > last.span

    @staticmethod
    def _hint_stable(track: _Track, phase: str, hint: int) -> bool:
        """The trial that set the upper bound left the estimate where it was."""
        last = track.last_plan
        return last is not None and last.phase == phase and last.hint == hint

    def _threshold(self, track: _Track, short: bool) -> float | None:
        trials = self.session.trials
        goal = track.goal
        exceed = goal.exceed_ratio
        if not short:
            full = pool(trials, exceed, min_duration=goal.final_trial_duration)
            if not self.trust_short or any(p.loss_ratio > goal.loss_ratio for p in full):
                return estimate_threshold(full, goal.loss_ratio)
            return estimate_threshold(pool(trials, exceed), goal.loss_ratio)
        short_only = pool(trials, exceed, max_duration=goal.initial_trial_duration)
        return estimate_threshold(short_only, goal.loss_ratio)

    def _short_settles(self, track: _Track, index: int) -> bool:
        """Would one failing short trial make this load an upper bound?"""
        goal = track.goal
        if not self.trust_short or goal.initial_trial_duration >= goal.final_trial_duration:
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
        track.last_plan = plan
        goal = track.goal
        if (
            plan.phase == "final"
            and plan.expect == "pass"
            and goal.initial_trial_duration < goal.final_trial_duration
            and _far_below(trial, goal)
        ):
            self._distrust()  # the short stage predicted a pass here
        contradicted = False
        if plan.phase == "final" and plan.expect == "pass":
            verdict = self.session.db.classification(track.goal_index, trial.load)
            if verdict is Classification.UPPER:
                track.pass_misses += 1
                contradicted = True
            elif verdict is Classification.LOWER:
                track.pass_misses = 0
        if (track.stage == "short") != (plan.phase == "short"):
            return  # the stage changed (distrust): its moves start afresh
        self._track_moves(track, plan, contradicted)

    def _track_moves(self, track: _Track, plan: _Plan, contradicted: bool) -> None:
        """Count how many times in a row a bound moved the same way.

        A move is a trial that decided a load: the lower bound up or the
        upper bound down. A load expected to pass at full length that turns
        out an upper bound (a contradiction near a knee) counts as two moves
        down, so the next step down is already two widths.
        """
        if plan.phase == "scout":
            low, high = self._scout_bounds(track, *self._indices(track.goal_index))
        else:
            low, high = self._indices(self._criterion(track, plan.phase == "short"))
        if low > plan.low and high == plan.high:
            direction = "up"
        elif high < plan.high and low == plan.low:
            direction = "down"
        else:
            return  # undecided yet, or decided by another goal's trial as well
        if direction == track.direction:
            track.run += 1
        else:
            track.direction, track.run = direction, 1
        if contradicted and direction == "down":
            track.run = max(track.run, 2)

    def _check_agreement(self, trial: TrialResult) -> None:
        """Stop trusting short trials once a full-length one contradicts them.

        A contradiction is a full-length trial that puts a goal's threshold
        well below its load (see ``_far_below``) at a load no higher than one
        where a short trial was low-loss for that goal.
        Short trials then neither settle upper bounds nor steer the search:
        every goal goes on at its final duration.
        """
        if not self.trust_short:
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
        self.trust_short = False
        for track in self.tracks:
            if track.stage == "short":
                self._next_stage(track)


def _scouted(side: str, grown: bool) -> str:
    """The strategy name of a final-stage nomination at (or grown past) a scout bound."""
    return f"scouted-{side}-grown" if grown else f"scouted-{side}"


def _far_below(trial: TrialResult, goal: Goal) -> bool:
    """Is this full-length trial's forwarding rate two goal widths or more
    below what the goal needs at its load?

    A long trial that only just fails (one transient interruption) says
    little about short trials; one that forwards far less than it was
    offered while short trials passed means short trials overstate the DUT.
    """
    if trial.duration < goal.final_trial_duration or trial.loss_ratio <= goal.loss_ratio:
        return False
    needed = trial.load * (1.0 - goal.relative_width) ** 2
    return trial.forwarding_rate / (1.0 - goal.loss_ratio) < needed
