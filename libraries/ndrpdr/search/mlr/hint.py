"""Where the next goal threshold probably is, from the trials so far.

The estimate is a load at which a goal's loss ratio is predicted to be
crossed. It only steers the controller (which load to try next); bounds
always come from classification. The model is the excess-loss rate
g(L) = L * (loss_ratio(L) - goal_loss_ratio), zero at the threshold:

* a low-loss trial with some loss and the lowest high-loss trial bracket
  the root: regula falsi between them;
* two high-loss trials forwarding the same rate: a capacity cliff, the
  threshold is that rate / (1 - goal loss ratio);
* otherwise, unless the loss ratio falls somewhere as the load grows
  over the high-loss loads (noise), a secant through the two lowest ones,
  on the square root of g first for the zero-loss goal (smooth loss
  onset), then on g itself (loss growing linearly, e.g. forwarding
  collapse under overload);
* last, the capacity model through the lowest high-loss trial.

Exact for a capacity cliff, a linear collapse and a quadratic loss onset;
a few steps for other curves.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterable

from ndrpdr.search.trial import TrialResult


@dataclasses.dataclass(frozen=True)
class LossPoint:
    """Trials at one load pooled: load [fps] and aggregate loss ratio."""

    load: float
    loss_ratio: float

    def excess(self, goal_loss_ratio: float) -> float:
        """Frames per second lost beyond what the goal allows."""
        return self.load * (self.loss_ratio - goal_loss_ratio)

    def cliff_threshold(self, goal_loss_ratio: float) -> float:
        """The threshold if this point's forwarding rate were a capacity cliff:
        that rate / (1 - goal loss ratio)."""
        return self.load * (1.0 - self.loss_ratio) / (1.0 - goal_loss_ratio)


def pool(
    trials: Iterable[TrialResult],
    exceed_ratio: float,
    min_duration: float = 0.0,
    max_duration: float = float("inf"),
) -> list[LossPoint]:
    """One point per load from trials of duration in [min_duration, max_duration].

    The point's loss ratio is the quantile a goal with ``exceed_ratio``
    cares about: walking the load's trials from the lowest loss ratio up,
    the one reached after (1 - exceed_ratio) of their seconds (the worst
    trial for exceed ratio 0, the median second for 0.5), as in the RFC's
    conditional throughput.
    """
    by_load: dict[float, list[TrialResult]] = {}
    for trial in trials:
        if min_duration <= trial.duration <= max_duration:
            by_load.setdefault(trial.load, []).append(trial)
    points = []
    for load in sorted(by_load):
        ranked = sorted(by_load[load], key=lambda t: t.loss_ratio)
        remaining = sum(t.effective_seconds for t in ranked) * (1.0 - exceed_ratio)
        ratio = ranked[0].loss_ratio
        for trial in ranked:
            if remaining <= 0.0:
                break
            ratio = trial.loss_ratio
            remaining -= trial.effective_seconds
        points.append(LossPoint(load, ratio))
    return points


def estimate_threshold(points: list[LossPoint], goal_loss_ratio: float) -> float | None:
    """The predicted threshold load, or None when the data cannot tell.

    Candidates are tried in order and the first one that lies between the
    highest low-loss load and the lowest high-loss load above it wins; None
    without a high-loss point or when no candidate fits. 0 when nothing
    passed and the lowest high-loss trial forwarded nothing: a dead DUT,
    which only the min load can confirm (the controller goes there next).
    """
    bad = [p for p in points if p.loss_ratio > goal_loss_ratio]
    if not bad:
        return None
    first_bad = bad[0]
    good = [p for p in points if p.loss_ratio <= goal_loss_ratio and p.load < first_bad.load]
    floor = good[-1].load if good else 0.0
    if first_bad.loss_ratio >= 1.0 and not good:
        return 0.0
    for root in _candidates(good[-1] if good else None, bad, goal_loss_ratio):
        if floor <= root <= first_bad.load and root > 0.0:
            return root
    return None


def _candidates(
    good: LossPoint | None, bad: list[LossPoint], goal_loss_ratio: float
) -> list[float]:
    first = bad[0]
    high_excess = first.excess(goal_loss_ratio)
    roots = []
    if good is not None and good.loss_ratio > 0.0 and good.excess(goal_loss_ratio) < 0.0:
        # Loss on both sides of the threshold: regula falsi.
        low_excess = good.excess(goal_loss_ratio)
        share = -low_excess / (high_excess - low_excess)
        roots.append(good.load + (first.load - good.load) * share)
    capacity = first.cliff_threshold(goal_loss_ratio)
    if not _grows(bad):
        # Loss that falls as the load grows is noise (a few percent lost
        # at random): a secant through it can aim anywhere (once at a third
        # of the true load), the forwarding rate at most a few percent low.
        return [*roots, capacity]
    second = bad[1] if len(bad) > 1 else None
    if second is None or max(first.loss_ratio, second.loss_ratio) >= 1.0:
        return [*roots, capacity]
    forwarded_first = first.load * (1.0 - first.loss_ratio)
    forwarded_second = second.load * (1.0 - second.loss_ratio)
    if abs(forwarded_second - forwarded_first) <= 1e-3 * forwarded_first:
        return [*roots, capacity]  # the same forwarding rate twice: a capacity cliff
    # Loss that starts smoothly grows like (load - onset)**2 near the onset,
    # so for the zero-loss goal a secant on the square root of the excess
    # finds it; a plain secant suits loss growing linearly (overload).
    powers = (0.5, 1.0) if goal_loss_ratio == 0.0 else (1.0,)
    for power in powers:
        low_value = high_excess**power
        high_value = second.excess(goal_loss_ratio) ** power
        slope = (high_value - low_value) / (second.load - first.load)
        if slope > 0.0:
            roots.append(first.load - low_value / slope)
    return [*roots, capacity]


def _grows(bad: list[LossPoint]) -> bool:
    """Does the loss ratio never fall as the load grows over the high-loss loads?"""
    return all(low.loss_ratio <= high.loss_ratio for low, high in itertools.pairwise(bad))
