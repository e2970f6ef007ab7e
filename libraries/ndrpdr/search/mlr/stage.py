"""The strategies of a goal's short stage and final stage, in priority order.

Both stages decide loads by one criterion (the short one: the goal's loss
ratio at the initial trial duration; the final one: the goal itself) from
the view in ``view.BoundsView``. The estimate (``hint``) steers; without
one the bracket is bisected or extended by one goal width. In both stages
a step grows while a bound keeps moving one way (``BoundsView.plan``).
"""

from __future__ import annotations

from ndrpdr.search.mlr.names import Expect, Phase, Rule
from ndrpdr.search.mlr.plan import Plan
from ndrpdr.search.mlr.strategy import Handover, Nomination, Strategy
from ndrpdr.search.mlr.view import BoundsView

BoundsStrategy = Strategy[BoundsView]


class MaxLoadFirst(BoundsStrategy):
    """Before any trial: the max load, for all goals at once."""

    def nominate(self, view: BoundsView) -> Nomination:
        if view.state.session.trials:
            return None
        top = view.state.top
        return Plan(
            top, view.duration, Phase.PROBE, Rule.PROBE, None, "max load first", None, top + 2
        )


class ContinueLoad(BoundsStrategy):
    """The load this stage tried last, while it is still undecided (see
    ``MlrState.unfinished``)."""

    def nominate(self, view: BoundsView) -> Nomination:
        return view.state.unfinished(view.track, view.phase, view.low, view.high)


class MinLoad(BoundsStrategy):
    """Straight to the min load when it lost already or the estimate lies below
    it (see ``MlrState.min_load_lossy``)."""

    def nominate(self, view: BoundsView) -> Nomination:
        if view.low >= 0:
            return None
        if not view.state.min_load_lossy(view.track, view.criterion, view.threshold):
            return None
        return view.exact(0, Rule.MIN_LOAD, Expect.FAIL)


class HintVerified(BoundsStrategy):
    """Short stage: hand over once a failure just above the estimate left the
    estimate where it was and forwarded what the failure above it did (a
    capacity cliff, see ``MlrState.short_cliff``); the final stage verifies
    the estimate at full length. Elsewhere (a plateau of small loss), and
    once a full-length trial refuted such a hand-over (see
    ``Track.reopen_short``), the short stage goes on down to a short trial
    that passes."""

    def nominate(self, view: BoundsView) -> Nomination:
        last = view.track.last_plan
        if not view.near_upper or last is None:
            return None
        if last.phase != view.phase or last.hint != view.hint:
            return None
        if view.track.short_reopened or not view.state.short_cliff(view.track):
            return None
        return Handover.NEXT_STAGE


class StalledBisect(BoundsStrategy):
    """Short stage: bisect a bracket wider than two goal widths when the last
    estimate-guided trial of this stage did not halve it, or once a short
    trial at the estimate failed where it was expected to pass (the
    estimate, a cliff's, only creeps down a plateau of small loss)."""

    def nominate(self, view: BoundsView) -> Nomination:
        if not view.bracketed or view.span <= 2 * view.track.width:
            return None
        if view.track.short_misses == 0:
            last = view.track.last_plan
            if last is None or last.phase != view.phase or not last.strategy.guided:
                return None
            if 2 * view.span <= last.span:
                return None
        return view.plan((view.low + view.high) // 2, Rule.BISECT, None)


class ConfirmBelowUpper(BoundsStrategy):
    """Short stage: the estimate, when it lies within one goal width below the
    upper bound (its pass closes the bracket)."""

    def nominate(self, view: BoundsView) -> Nomination:
        if view.hint is None or not view.near_upper:
            return None
        return view.plan(view.hint, Rule.EXPECT_PASS, Expect.PASS)


class OneWidthAbove(BoundsStrategy):
    """Short stage: one goal width above the estimate, below the upper bound
    (its failure brackets the estimate)."""

    def nominate(self, view: BoundsView) -> Nomination:
        hint, width = view.hint, view.track.width
        if hint is None or not view.low <= hint < view.high or hint + width >= view.high:
            return None
        return view.plan(hint + width, Rule.EXPECT_FAIL, Expect.FAIL)


class StepDownPastMisses(BoundsStrategy):
    """Final stage: after two or more full-length failures where a pass was
    expected, step down geometrically from the upper bound (bisect with a
    lower bound known) instead of one width at a time; never above the
    estimate, never to the lower bound."""

    def nominate(self, view: BoundsView) -> Nomination:
        hint, low, high = view.hint, view.low, view.high
        misses = view.track.pass_misses
        if hint is None or not low < hint < high or misses < 2:
            return None
        stepped = high - view.track.width * 2 ** (misses - 1)
        if low >= 0:
            stepped = (low + high) // 2
        return view.plan(max(min(hint, stepped), low + 1), Rule.EXPAND_DOWN, Expect.PASS)


class BelowUpperOnceRefuted(BoundsStrategy):
    """Final stage: one goal width below the upper bound once a full-length
    trial expected to fail passed (see ``MlrState.refuted_fail``).

    The estimate put a goal's threshold below that load, so the pass refutes
    it: on a deterministic DUT that never happens (the estimate comes from
    the full-length trials' forwarding rate), on a noisy one (loss at random
    in a band, in spells) it is the sign that the median trial fails near
    the upper bound rather than the lower one. Climbing on from the lower
    bound (or bisecting) puts full-length trials into the band, where with
    exceed ratio 0 every trial is one more chance of a failure that caps
    the bound; stepping down from the upper bound stops at the first pass
    below it. The sign is the DUT's, so it holds for every goal: a goal
    whose own estimate was not yet refuted would otherwise climb into the
    band and cap the other goals too.
    """

    def nominate(self, view: BoundsView) -> Nomination:
        if not view.state.refuted_fail or not view.bracketed:
            return None
        width = view.track.width
        if view.span <= 2 * width:
            return None
        return view.exact(view.high - width, Rule.BELOW_UPPER, Expect.PASS)


class AtEstimate(BoundsStrategy):
    """The estimate, above the lower bound and below the upper one."""

    def nominate(self, view: BoundsView) -> Nomination:
        hint = view.hint
        if hint is None or not view.low < hint < view.high:
            return None
        return view.plan(hint, Rule.EXPECT_PASS, Expect.PASS)


class AboveLowerBound(BoundsStrategy):
    """One goal width above the lower bound, when the estimate sits on it."""

    def nominate(self, view: BoundsView) -> Nomination:
        if view.hint is None or view.hint != view.low:
            return None
        index = min(view.low + view.track.width, view.state.top)
        return view.plan(index, Rule.EXPECT_FAIL, Expect.FAIL)


class Bisect(BoundsStrategy):
    """The middle of the bracket (from the min load down when there is no lower
    bound) with an upper bound known and no estimate below it.

    An estimate below the upper bound has been taken by the strategies
    before this one; one at or above it is stale.
    """

    def nominate(self, view: BoundsView) -> Nomination:
        if view.high > view.state.top or (view.hint is not None and view.hint >= view.high):
            return None
        return view.plan((view.low + view.high) // 2, Rule.BISECT, None)


class ProbeMaxLoad(BoundsStrategy):
    """The max load, with neither bound known for this stage's criterion."""

    def nominate(self, view: BoundsView) -> Nomination:
        top = view.state.top
        if view.low >= 0 or view.high <= top:
            return None
        return view.plan(top, Rule.PROBE, None)


class ExpandDown(BoundsStrategy):
    """One goal width below the upper bound, with no lower bound known."""

    def nominate(self, view: BoundsView) -> Nomination:
        if view.low >= 0:
            return None
        return view.plan(max(view.high - view.track.width, 0), Rule.EXPAND_DOWN, Expect.PASS)


class ExpandUp(BoundsStrategy):
    """One goal width above the lower bound: the last resort (no upper bound
    known, or one below a stale estimate)."""

    def nominate(self, view: BoundsView) -> Nomination:
        index = min(view.low + view.track.width, view.state.top)
        return view.plan(index, Rule.EXPAND_UP, Expect.FAIL)


_AFTER_ESTIMATE: tuple[BoundsStrategy, ...] = (
    AtEstimate(),
    AboveLowerBound(),
    Bisect(),
    ProbeMaxLoad(),
    ExpandDown(),
    ExpandUp(),
)
SHORT_STAGE: tuple[BoundsStrategy, ...] = (
    MaxLoadFirst(),
    ContinueLoad(),
    MinLoad(),
    HintVerified(),
    StalledBisect(),
    ConfirmBelowUpper(),
    OneWidthAbove(),
    *_AFTER_ESTIMATE,
)
"""The short stage's strategies in priority order."""
FINAL_STAGE: tuple[BoundsStrategy, ...] = (
    MaxLoadFirst(),
    ContinueLoad(),
    MinLoad(),
    StepDownPastMisses(),
    BelowUpperOnceRefuted(),
    *_AFTER_ESTIMATE,
)
"""The final stage's strategies in priority order."""
