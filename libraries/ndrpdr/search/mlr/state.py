"""What the mlr controller's strategies ask of the search so far.

``MlrState`` holds the session, the load grid and whether short trials
are still trusted, and answers the questions every stage's strategies
share: a criterion's bounds as grid indices, the estimate, the scout
bracket, a grown step, whether the min load or one short trial settles
something.
"""

from __future__ import annotations

import dataclasses

from ndrpdr.search.classify import Classification, classify
from ndrpdr.search.grid import LoadGrid
from ndrpdr.search.mlr import knee
from ndrpdr.search.mlr.hint import LossPoint, estimate_threshold, pool
from ndrpdr.search.mlr.names import Direction, Phase, Rule
from ndrpdr.search.mlr.plan import Plan
from ndrpdr.search.mlr.track import Track
from ndrpdr.search.session import Session

FAR_OFF_WIDTHS = 4
"""A stage's estimate stays within this many goal widths below the
forwarding rate of the lowest load its trials failed at (short trials for
the short stage, full-length ones for the goal), unless that trial
forwarded nothing or the estimate lies below the min load."""
GROW_AFTER_MOVES = 3
"""From this many moves of a bound in a row on, the final stage's step doubles per move."""
SHORT_GROW_AFTER_MOVES = 2
"""The same for the short stage (from the first move on, the sim's loss spells at 60 s
took 1.007x MLRsearch's time)."""


class MlrState:
    """The search so far, as the mlr controller's strategies see it."""

    def __init__(self, session: Session, grid: LoadGrid) -> None:
        self.session = session
        self.grid = grid
        self.index_of: dict[float, int] = {}
        """Grid index of every load measured so far."""
        self.trust_short = True
        """False once a full-length trial contradicted the short trials."""
        self.refuted_fail = False
        """True once a full-length trial chosen to fail (next to an estimate)
        made its load a lower bound: the full-length trials are noisy."""

    @property
    def top(self) -> int:
        """The max load's grid index."""
        return self.grid.top

    def criterion(self, track: Track, short: bool) -> int:
        """The database criterion of a goal's short stage, or of the goal itself."""
        if short:
            assert track.short_criterion is not None
            return track.short_criterion
        return track.goal_index

    def indices(self, criterion: int) -> tuple[int, int]:
        """(low, high): grid indices of a criterion's relevant bounds, -1 / top + 1 if none."""
        lower, upper = self.session.db.relevant_bounds(criterion)
        low = -1 if lower is None else self.index_of[lower]
        high = self.grid.top + 1 if upper is None else self.index_of[upper]
        return low, high

    def scout_bounds(self, track: Track, low: int, high: int) -> tuple[int, int]:
        """The scout criterion's bounds between the goal's own bounds ``low`` and ``high``.

        The goal's lower (upper) bound is a hard floor (ceiling): scout
        decisions outside it are stale. Grid indices, -1 / top + 1 if none.
        """
        assert track.scout_criterion is not None
        db = self.session.db
        scout_low = low
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
        return scout_low, high

    def load_or_none(self, index: int) -> float | None:
        """The load at a grid index, None for the -1 / top + 1 of a missing bound."""
        return self.grid.load(index) if 0 <= index <= self.grid.top else None

    def threshold(self, track: Track, short: bool) -> float | None:
        """The estimated threshold load [fps] for a goal's short stage or the goal itself.

        The goal's estimate pools trials of every duration until a
        full-length trial lost too much or short trials are distrusted.
        """
        trials = self.session.trials
        goal = track.goal
        exceed = goal.exceed_ratio
        if not short:
            full = pool(trials, exceed, min_duration=goal.final_trial_duration)
            if not self.trust_short or any(p.loss_ratio > goal.loss_ratio for p in full):
                return self._guarded(estimate_threshold(full, goal.loss_ratio), full, track)
            return estimate_threshold(pool(trials, exceed), goal.loss_ratio)
        short_only = pool(trials, exceed, max_duration=goal.initial_trial_duration)
        return self._guarded(estimate_threshold(short_only, goal.loss_ratio), short_only, track)

    def _guarded(
        self, estimate: float | None, points: list[LossPoint], track: Track
    ) -> float | None:
        """``estimate``, but never further below the forwarding rate of the lowest
        load that lost too much than ``FAR_OFF_WIDTHS`` goal widths: an
        extrapolation through noise (a few percent lost at random, a spell) must
        not take a goal 30 % down at once, with every trial on the way back up a
        chance of an unlucky failure. Not guarded: a lowest failure that
        forwarded nothing (a dead DUT) and an estimate below the min load
        (loss at every load): one trial at the min load settles either."""
        goal = track.goal
        bad = [p for p in points if p.loss_ratio > goal.loss_ratio]
        if estimate is None or not bad or bad[0].loss_ratio >= 1.0:
            return estimate
        if estimate < self.grid.load(0):
            return estimate
        rate = bad[0].cliff_threshold(goal.loss_ratio)
        return max(estimate, rate * (1.0 - goal.relative_width) ** FAR_OFF_WIDTHS)

    def short_cliff(self, track: Track) -> bool:
        """Is the DUT saturated between the two lowest loads where short trials
        failed the goal's loss ratio: did the higher one forward less than half
        the extra load?

        A capacity cliff forwards its capacity at every load above it, so a
        failure just above the estimate that forwarded what a failure further
        up forwarded confirms the estimate. A DUT that loses a few frames in
        1000 from far below its capacity on (a loss plateau) forwards nearly
        all of any extra load: its failures say nothing of where the loss
        stops, and only a short trial that passes does.
        """
        goal = track.goal
        ranked = sorted(
            (
                t
                for t in self.session.trials
                if t.duration <= goal.initial_trial_duration and t.loss_ratio > goal.loss_ratio
            ),
            key=lambda t: t.load,
        )
        if not ranked:
            return False
        lowest = ranked[0]
        above = next((t for t in ranked if t.load > lowest.load), None)
        if above is None:
            return False
        extra_forwarded = above.forwarding_rate - lowest.forwarding_rate
        return extra_forwarded <= 0.5 * (above.load - lowest.load)

    def short_lower(self, track: Track, low: int, high: int) -> int | None:
        """The short stage's lower bound, if it lies inside the bracket."""
        if track.short_criterion is None or not self.trust_short:
            return None
        short_low, _ = self.indices(track.short_criterion)
        return short_low if low < short_low < high else None

    def knee_index(self, track: Track) -> int | None:
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

    def smooth(self, track: Track) -> bool:
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

    def grown(
        self, track: Track, index: int, low: int, high: int, after: int = GROW_AFTER_MOVES
    ) -> int:
        """``index`` moved further along while a bound keeps moving one way.

        After ``run`` >= ``after`` consecutive moves of the lower bound up
        (upper bound down), the next load is at least
        ``width * 2**(run - after + 1)`` above the lower (below the upper)
        bound, as MLRsearch's expansion does; never past the middle of a
        bracket (that is bisection's job) nor the load range. Fewer moves
        keep the step the rules chose (a hint that is right twice in a row
        is not overruled).
        """
        if track.run < after:
            return index
        step = track.width << (track.run - after + 1)
        if track.direction is Direction.UP and low < index:
            limit = (low + high) // 2 if high <= self.grid.top else self.grid.top
            return max(index, min(low + step, limit))
        if track.direction is Direction.DOWN and index < high:
            limit = (low + high + 1) // 2 if low >= 0 else 0
            return min(index, max(high - step, limit))
        return index

    def min_load_lossy(self, track: Track, criterion: int, threshold: float | None) -> bool:
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

    def unfinished(self, track: Track, phase: Phase, low: int, high: int) -> Plan | None:
        """The last load this goal tried in ``phase``, while it is still undecided.

        With a duration sum above the trial duration a load needs several
        trials; finishing one load before moving on keeps a noisy estimate
        from scattering trials over many loads that all stay undecided.
        """
        last = track.last_plan
        if last is None or last.phase != phase or not low < last.index < high:
            return None
        if not self.session.db.trials_at(self.grid.load(last.index)):
            return None
        goal = track.goal
        short = phase is Phase.SHORT
        duration = goal.initial_trial_duration if short else goal.final_trial_duration
        return dataclasses.replace(last, strategy=Rule.CONTINUE, duration=duration)

    def short_settles(self, track: Track, index: int) -> bool:
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
