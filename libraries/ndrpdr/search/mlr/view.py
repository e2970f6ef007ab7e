"""What one goal's stage looks like when its strategies nominate a trial.

A view is built once per goal and nomination round from ``MlrState``: the
goal's bounds as grid indices, the estimate, and a factory that turns a
strategy's choice of load into a ``Plan``. ``None`` instead of a view means
the stage has nothing left to decide (its bounds lie within the goal width,
or at the ends of the load range).
"""

from __future__ import annotations

import dataclasses

from ndrpdr.search.mlr.names import Expect, Phase, Rule
from ndrpdr.search.mlr.plan import Plan
from ndrpdr.search.mlr.state import GROW_AFTER_MOVES, SHORT_GROW_AFTER_MOVES, MlrState
from ndrpdr.search.mlr.track import Track

SCOUT_WIDTHS = 2
"""The scout stage ends once its bounds are this many goal widths apart."""


@dataclasses.dataclass(frozen=True)
class BoundsView:
    """A short or final stage: one criterion's bounds and its estimate.

    ``low`` / ``high``: the relevant bounds' grid indices (-1 / top + 1 if
    none); ``hint``: the estimate's grid index, None when there is none or
    it is stale (below a load that passed, or above the max load); in the
    final stage without an estimate, the short stage's lower bound inside
    the bracket.
    """

    state: MlrState
    track: Track
    short: bool
    low: int
    high: int
    threshold: float | None
    hint: int | None

    @property
    def lower(self) -> float | None:
        """The relevant lower bound's load [fps], None if there is none."""
        return self.state.load_or_none(self.low)

    @property
    def upper(self) -> float | None:
        """The relevant upper bound's load [fps], None if there is none."""
        return self.state.load_or_none(self.high)

    @property
    def phase(self) -> Phase:
        """The phase of this stage's trials."""
        return Phase.SHORT if self.short else Phase.FINAL

    @property
    def duration(self) -> float:
        """This stage's trial duration [s]."""
        goal = self.track.goal
        return goal.initial_trial_duration if self.short else goal.final_trial_duration

    @property
    def criterion(self) -> int:
        """The database criterion this stage decides loads by."""
        return self.state.criterion(self.track, self.short)

    @property
    def span(self) -> int:
        """Grid steps between the bounds."""
        return self.high - self.low

    @property
    def bracketed(self) -> bool:
        """Both bounds are known."""
        return self.low >= 0 and self.high <= self.state.top

    @property
    def near_upper(self) -> bool:
        """The estimate lies within one goal width below a known upper bound."""
        hint = self.hint
        return (
            hint is not None
            and self.high <= self.state.top
            and self.low <= hint < self.high <= hint + self.track.width
        )

    @property
    def detail(self) -> str:
        """The trial reason's detail text."""
        return f"lower={self.lower!r}, upper={self.upper!r}, hint={self.threshold!r}"

    def exact(self, index: int, rule: Rule, expect: Expect | None) -> Plan:
        """A trial at ``index`` at this stage's duration, as chosen."""
        return Plan(
            index,
            self.duration,
            self.phase,
            rule,
            expect,
            self.detail,
            self.hint,
            self.span,
            self.low,
            self.high,
        )

    def plan(self, index: int, rule: Rule, expect: Expect | None) -> Plan:
        """A trial at ``index`` with the step grown (see ``MlrState.grown``), in the
        final stage short when one failing short trial settles it."""
        state, track = self.state, self.track
        after = SHORT_GROW_AFTER_MOVES if self.short else GROW_AFTER_MOVES
        grown = state.grown(track, index, self.low, self.high, after)
        if grown != index:
            index, rule = grown, rule.grown
        plan = self.exact(index, rule, expect)
        if not self.short and expect is Expect.FAIL and state.short_settles(track, index):
            return dataclasses.replace(plan, duration=track.goal.initial_trial_duration)
        return plan


def _settled(low: int, high: int, top: int, width: int) -> bool:
    """Nothing left to decide: the max load passed, the min load failed, or both
    bounds are known and at most ``width`` grid steps apart."""
    return low >= top or high <= 0 or (low >= 0 and high <= top and high - low <= width)


def bounds_view(state: MlrState, track: Track, short: bool) -> BoundsView | None:
    """The view of a goal's short stage (``short``) or final stage; None once settled."""
    top = state.top
    low, high = state.indices(state.criterion(track, short))
    if _settled(low, high, top, track.width):
        return None
    threshold = state.threshold(track, short)
    hint = None if threshold is None else state.grid.floor_index(threshold)
    if hint is not None and (hint < max(low, 0) or hint > top):
        hint = None  # below a load that passed: the estimate is stale
    if hint is None and not short:
        hint = state.short_lower(track, low, high)
    return BoundsView(state, track, short, low, high, threshold, hint)


@dataclasses.dataclass(frozen=True)
class ScoutView:
    """A scout stage: the goal's own bounds and the scout criterion's bounds between them.

    Grid indices, -1 / top + 1 where a bound is missing. ``threshold`` is
    the goal's estimate [fps].
    """

    state: MlrState
    track: Track
    low: int
    high: int
    scout_low: int
    scout_high: int
    threshold: float | None

    @property
    def hint(self) -> int | None:
        """The estimate's grid index (not checked against the bounds)."""
        threshold = self.threshold
        return None if threshold is None else self.state.grid.floor_index(threshold)

    @property
    def wide(self) -> bool:
        """The scout bracket is still open or wider than ``SCOUT_WIDTHS`` goal widths."""
        low, high = self.scout_low, self.scout_high
        too_wide = high - low > SCOUT_WIDTHS * self.track.width
        return too_wide or low < 0 or high > self.state.top

    @property
    def detail(self) -> str:
        """The trial reason's detail text."""
        load = self.state.load_or_none
        return (
            f"lower={load(self.low)!r}, upper={load(self.high)!r}, "
            f"scout lower={load(self.scout_low)!r}, "
            f"scout upper={load(self.scout_high)!r}"
        )

    def plan(self, index: int, phase: Phase, rule: Rule, expect: Expect | None = None) -> Plan:
        """A full-length trial near ``index``, clamped strictly inside the scout
        bracket (phase scout) or the goal's bracket (phase final)."""
        scouting = phase is Phase.SCOUT
        bottom, ceiling = (self.scout_low, self.scout_high) if scouting else (self.low, self.high)
        index = min(max(index, bottom + 1, 0), ceiling - 1, self.state.top)
        return Plan(
            index,
            self.track.goal.final_trial_duration,
            phase,
            rule,
            expect,
            self.detail,
            None,
            ceiling - bottom,
            bottom,
            ceiling,
        )


def scout_view(state: MlrState, track: Track) -> ScoutView | None:
    """The view of a goal's scout stage; None once the goal itself is settled."""
    low, high = state.indices(track.goal_index)
    if _settled(low, high, state.top, track.width):
        return None
    scout_low, scout_high = state.scout_bounds(track, low, high)
    threshold = state.threshold(track, short=False)
    return ScoutView(state, track, low, high, scout_low, scout_high, threshold)
