"""Load classification and conditional throughput (RFC 9971, normative).

For one load and one goal, trials are summed into four effective-duration
totals (full-length / short x low-loss / high-loss). ``classify`` follows the
RFC's pseudocode line by line; ``conditional_throughput`` its quantile walk
over full-length trials.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Iterable

from ndrpdr.search.trial import TrialResult


class Classification(enum.Enum):
    """A load's standing for one goal."""

    LOWER = "lower bound"
    UPPER = "upper bound"
    UNDECIDED = "undecided"


@dataclasses.dataclass(frozen=True)
class Criterion:
    """What classification needs to know about a goal (or a coarser target).

    ``final_duration`` decides which trials are full-length; the rest are
    short. All durations in seconds.
    """

    loss_ratio: float
    exceed_ratio: float
    final_duration: float
    duration_sum: float


@dataclasses.dataclass
class LoadStats:
    """Effective seconds at one load, split as the RFC's pseudocode needs."""

    full_low_s: float = 0.0
    full_high_s: float = 0.0
    short_low_s: float = 0.0
    short_high_s: float = 0.0

    def add(self, trial: TrialResult, criterion: Criterion) -> None:
        """Count one trial's effective duration in the right total."""
        seconds = trial.effective_seconds
        high = trial.loss_ratio > criterion.loss_ratio
        if trial.duration >= criterion.final_duration:
            if high:
                self.full_high_s += seconds
            else:
                self.full_low_s += seconds
        elif high:
            self.short_high_s += seconds
        else:
            self.short_low_s += seconds


def classify(stats: LoadStats, criterion: Criterion) -> Classification:
    """RFC 9971 load classification of one load for one goal."""
    exceed = criterion.exceed_ratio
    exceed_coefficient = exceed / (1.0 - exceed)
    balancing_s = stats.short_low_s * exceed_coefficient
    positive_excess_s = max(0.0, stats.short_high_s - balancing_s)
    effect_high_loss_s = stats.full_high_s + positive_excess_s
    effect_full_length_s = stats.full_low_s + effect_high_loss_s
    effect_whole_s = max(effect_full_length_s, criterion.duration_sum)
    quantile_duration_s = effect_whole_s * exceed
    pessimistic_high_loss_s = effect_whole_s - stats.full_low_s
    pessimistic_is_lower = pessimistic_high_loss_s <= quantile_duration_s
    optimistic_is_lower = effect_high_loss_s <= quantile_duration_s
    # Both tests, as the RFC has them: in real numbers the pessimistic test
    # implies the optimistic one, but in floats a tiny high-loss time can
    # vanish from effect_whole_s - full_low_s and pass the first test alone.
    if pessimistic_is_lower and optimistic_is_lower:
        return Classification.LOWER
    if not pessimistic_is_lower and not optimistic_is_lower:
        return Classification.UPPER
    return Classification.UNDECIDED


def conditional_throughput(
    trials: Iterable[TrialResult], load: float, criterion: Criterion
) -> float | None:
    """RFC 9971 conditional throughput at ``load`` from its full-length trials.

    Walks full-length trials from the lowest loss ratio up until
    (1 - exceed ratio) of max(duration sum, full-length seconds) is used;
    missing seconds count as 100 % loss. Returns load x (1 - that loss
    ratio), or None if no full-length trial was measured at the load.
    Durations are effective durations, as for every time sum in the RFC.
    """
    full = sorted(
        (t for t in trials if t.duration >= criterion.final_duration),
        key=lambda t: t.loss_ratio,
    )
    if not full:
        return None
    measured_s = sum(t.effective_seconds for t in full)
    remaining_s = max(criterion.duration_sum, measured_s) * (1.0 - criterion.exceed_ratio)
    quantile_loss_ratio: float | None = None
    for trial in full:
        if quantile_loss_ratio is None or remaining_s > 0.0:
            quantile_loss_ratio = trial.loss_ratio
            remaining_s -= trial.effective_seconds
        else:
            break
    else:
        # Seconds are floats: a remainder at rounding level is not a missing second.
        if remaining_s > 1e-9 * max(criterion.duration_sum, measured_s):
            quantile_loss_ratio = 1.0
    assert quantile_loss_ratio is not None
    return load * (1.0 - quantile_loss_ratio)
