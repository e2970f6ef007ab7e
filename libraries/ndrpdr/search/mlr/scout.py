"""The strategies of a goal's scout stage, in priority order.

Scouting brackets the threshold within ``SCOUT_WIDTHS`` goal widths with
full-length trials, a load decided by the scout criterion (about
sqrt(duration sum x final duration) of them: 3 of 5 where the goal needs
11 of 21). From a single bound the step grows geometrically while the
bound keeps moving the same way; within a bracket, bisection; once trials
show noise, the fitted knee (see ``knee``). Then the goal's own criterion
decides loads, starting at the scout's bounds, whose trials count again
(phase final). A goal bound that lands outside the scout bracket (noise
fooled the scout) scouts afresh from the goal's bounds.
"""

from __future__ import annotations

from ndrpdr.search.mlr.names import Direction, Expect, Phase, Rule
from ndrpdr.search.mlr.strategy import Nomination, Strategy, select
from ndrpdr.search.mlr.view import ScoutView

FIT_YIELDS_AFTER_MOVES = 4
"""From this many moves of a scout bound in a row on, a geometric step that
goes further than the fitted knee wins (a fit that lags a long walk)."""
SCOUTED_GROW_AFTER_MOVES = 4
"""The same as ``state.GROW_AFTER_MOVES`` for a goal's bound that keeps
moving through the scout's bounds (stale verdicts: loss that came and went
in spells); one move later, since on loss that comes at random the scout's
bounds are crossed often (noisyknee: growing after 3 moves cost 6 % more
search time, after 4 nothing)."""

ScoutStrategy = Strategy[ScoutView]


class ContinueFinal(ScoutStrategy):
    """The load the goal's own criterion tried last, while still undecided."""

    def nominate(self, view: ScoutView) -> Nomination:
        return view.state.unfinished(view.track, Phase.FINAL, view.low, view.high)


class ContinueScout(ScoutStrategy):
    """The load the scout criterion tried last, while still undecided."""

    def nominate(self, view: ScoutView) -> Nomination:
        return view.state.unfinished(view.track, Phase.SCOUT, view.scout_low, view.scout_high)


class MinLoadFinal(ScoutStrategy):
    """The min load at full length for the goal itself when it lost already or
    the estimate lies below it (see ``MlrState.min_load_lossy``)."""

    def nominate(self, view: ScoutView) -> Nomination:
        track = view.track
        if view.low >= 0 or not view.state.min_load_lossy(track, track.goal_index, view.threshold):
            return None
        return view.plan(0, Phase.FINAL, Rule.MIN_LOAD, Expect.FAIL)


class ScoutStart(ScoutStrategy):
    """With no scout bound yet: the estimate when the short stage brackets it,
    else the short stage's lower bound (or one width below its upper bound);
    the max load without either."""

    def nominate(self, view: ScoutView) -> Nomination:
        state, track, top = view.state, view.track, view.state.top
        if not view.wide or view.scout_low >= 0 or view.scout_high <= top:
            return None
        start = view.hint
        if track.short_criterion is not None and state.trust_short:
            short_low, short_high = state.indices(track.short_criterion)
            if start is None or not short_low <= start < short_high:
                start = short_low if short_low >= 0 else short_high - track.width
        return view.plan(top if start is None else start, Phase.SCOUT, Rule.SCOUT_START)


class ScoutAtEstimate(ScoutStrategy):
    """On a smooth loss curve (see ``MlrState.smooth``): the estimate, above
    the scout's lower bound and below its upper one."""

    def nominate(self, view: ScoutView) -> Nomination:
        hint = view.hint
        if not view.wide or hint is None or not view.scout_low < hint < view.scout_high:
            return None
        if not view.state.smooth(view.track):
            return None
        return view.plan(hint, Phase.SCOUT, Rule.EXPECT_PASS)


class ScoutAboveEstimate(ScoutStrategy):
    """On a smooth loss curve: one goal width above the estimate when the
    estimate is the scout's lower bound already."""

    def nominate(self, view: ScoutView) -> Nomination:
        hint, width = view.hint, view.track.width
        if not view.wide or hint is None or hint != view.scout_low:
            return None
        if hint + width >= view.scout_high or not view.state.smooth(view.track):
            return None
        return view.plan(hint + width, Phase.SCOUT, Rule.EXPECT_FAIL)


def _step(view: ScoutView, direction: Direction) -> int:
    """Grid steps to move: one goal width, doubling per move while the bound
    keeps moving in ``direction``."""
    track = view.track
    if track.direction is not direction:
        return track.width
    return track.width << (max(track.run, 1) - 1)


class ScoutExpandUp(ScoutStrategy):
    """Up from the scout's lower bound with no upper bound known."""

    def nominate(self, view: ScoutView) -> Nomination:
        if not view.wide or view.scout_high <= view.state.top:
            return None
        index = view.scout_low + _step(view, Direction.UP)
        return view.plan(index, Phase.SCOUT, Rule.EXPAND_UP)


class ScoutExpandDown(ScoutStrategy):
    """Down from the scout's upper bound with no lower bound known."""

    def nominate(self, view: ScoutView) -> Nomination:
        if not view.wide or view.scout_low >= 0:
            return None
        index = view.scout_high - _step(view, Direction.DOWN)
        return view.plan(index, Phase.SCOUT, Rule.EXPAND_DOWN)


class ScoutBisect(ScoutStrategy):
    """The middle of a scout bracket still wider than ``SCOUT_WIDTHS`` goal widths."""

    def nominate(self, view: ScoutView) -> Nomination:
        if not view.wide:
            return None
        return view.plan((view.scout_low + view.scout_high) // 2, Phase.SCOUT, Rule.BISECT)


SCOUT_STEPS: tuple[ScoutStrategy, ...] = (
    ScoutStart(),
    ScoutAtEstimate(),
    ScoutAboveEstimate(),
    ScoutExpandUp(),
    ScoutExpandDown(),
    ScoutBisect(),
)
"""Scouting without the knee fit, in priority order."""


class KneeFit(ScoutStrategy):
    """Once the goal's full-length trials show noise: the fitted knee (see
    ``MlrState.knee_index``), clamped into the scout bracket (at worst a
    one-width step towards it); after ``FIT_YIELDS_AFTER_MOVES`` moves the
    same way, an expansion step that goes further wins."""

    def nominate(self, view: ScoutView) -> Nomination:
        if not view.wide:
            return None
        fitted = view.state.knee_index(view.track)
        if fitted is None:
            return None
        fit = view.plan(fitted, Phase.SCOUT, Rule.KNEE_FIT)
        if view.track.run < FIT_YIELDS_AFTER_MOVES:
            return fit
        stepped = select(SCOUT_STEPS, view)
        assert stepped is not None  # ScoutBisect takes any wide bracket
        if stepped.strategy is Rule.EXPAND_UP and stepped.index > fit.index:
            return None
        if stepped.strategy is Rule.EXPAND_DOWN and stepped.index < fit.index:
            return None
        return fit


class ScoutedMiddle(ScoutStrategy):
    """The goal itself at the middle of a scout bracket wider than one goal
    width: whichever way it goes, the scout bound on the other side (with
    its trials) closes the goal's bracket."""

    def nominate(self, view: ScoutView) -> Nomination:
        low, high = view.scout_low, view.scout_high
        if view.wide or high - low <= view.track.width:
            return None
        return view.plan((low + high) // 2, Phase.FINAL, Rule.SCOUTED_MIDDLE)


class ScoutedLower(ScoutStrategy):
    """The goal itself at the scout's lower bound, above the goal's own; moved
    further up with a growing step while the goal's lower bound keeps moving
    through the scout's bounds (the scout's verdicts were stale: on real DUTs
    loss comes and goes in spells)."""

    def nominate(self, view: ScoutView) -> Nomination:
        if view.wide or view.scout_low <= view.low:
            return None
        index = view.state.grown(
            view.track, view.scout_low, view.low, view.high, SCOUTED_GROW_AFTER_MOVES
        )
        rule = Rule.SCOUTED_LOWER if index == view.scout_low else Rule.SCOUTED_LOWER_GROWN
        return view.plan(index, Phase.FINAL, rule, Expect.PASS)


class ScoutedUpper(ScoutStrategy):
    """The goal itself at the scout's upper bound; moved further down with a
    growing step while the goal's upper bound keeps moving through the
    scout's bounds."""

    def nominate(self, view: ScoutView) -> Nomination:
        if view.wide:
            return None
        index = view.state.grown(
            view.track, view.scout_high, view.low, view.high, SCOUTED_GROW_AFTER_MOVES
        )
        rule = Rule.SCOUTED_UPPER if index == view.scout_high else Rule.SCOUTED_UPPER_GROWN
        return view.plan(index, Phase.FINAL, rule, Expect.FAIL)


SCOUT_STAGE: tuple[ScoutStrategy, ...] = (
    ContinueFinal(),
    ContinueScout(),
    MinLoadFinal(),
    KneeFit(),
    *SCOUT_STEPS,
    ScoutedMiddle(),
    ScoutedLower(),
    ScoutedUpper(),
)
"""The scout stage's strategies in priority order."""
