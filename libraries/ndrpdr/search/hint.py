"""Where the next goal threshold probably is, from the trials so far.

The estimate is a load at which a goal's loss ratio is predicted to be
crossed. It only steers the controller (which load to try next); bounds
always come from classification. The model is the excess-loss rate
g(L) = L * (loss_ratio(L) - goal_loss_ratio), zero at the threshold:

* a low-loss trial with some loss and the lowest high-loss trial bracket
  the root: regula falsi between them;
* otherwise, the line through the two lowest high-loss trials (secant),
  and the capacity model through the lowest one (forwarding rate stays at
  the capacity above it: threshold = forwarding rate / (1 - goal loss
  ratio)); the lower of the two, since both overshoot on convex loss
  curves.

Exact for a capacity cliff and for loss growing linearly with load; a few
steps for smoother curves.
"""

from __future__ import annotations

import dataclasses
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


def pool(trials: Iterable[TrialResult], min_duration: float = 0.0) -> list[LossPoint]:
    """Pool trials at least ``min_duration`` long per load, ascending by load."""
    lost: dict[float, float] = {}
    expected: dict[float, float] = {}
    for trial in trials:
        if trial.duration < min_duration:
            continue
        want = max(trial.offered_count, trial.intended_count or 0.0)
        lost[trial.load] = lost.get(trial.load, 0.0) + trial.loss_ratio * want
        expected[trial.load] = expected.get(trial.load, 0.0) + want
    points = []
    for load in sorted(lost):
        total = expected[load]
        ratio = lost[load] / total if total > 0 else (1.0 if load > 0 else 0.0)
        points.append(LossPoint(load, ratio))
    return points


def estimate_threshold(points: list[LossPoint], goal_loss_ratio: float) -> float | None:
    """The predicted threshold load, or None without any high-loss point."""
    bad = [p for p in points if p.loss_ratio > goal_loss_ratio]
    if not bad:
        return None
    first_bad = bad[0]
    good = [p for p in points if p.loss_ratio <= goal_loss_ratio and p.load < first_bad.load]
    floor = good[-1].load if good else 0.0
    high_excess = first_bad.excess(goal_loss_ratio)
    if good and good[-1].loss_ratio > 0.0 and good[-1].excess(goal_loss_ratio) < 0.0:
        low = good[-1]
        low_excess = low.excess(goal_loss_ratio)
        root = low.load + (first_bad.load - low.load) * (-low_excess) / (high_excess - low_excess)
        return _clip(root, floor, first_bad.load)
    capacity = first_bad.load * (1.0 - first_bad.loss_ratio) / (1.0 - goal_loss_ratio)
    candidates = [capacity]
    if len(bad) > 1:
        second = bad[1]
        slope = (second.excess(goal_loss_ratio) - high_excess) / (second.load - first_bad.load)
        if slope > 0.0:
            candidates.append(first_bad.load - high_excess / slope)
    inside = [c for c in candidates if floor < c < first_bad.load]
    root = min(inside) if inside else capacity
    return _clip(root, floor, first_bad.load)


def _clip(value: float, low: float, high: float) -> float:
    return min(max(value, low), high)
