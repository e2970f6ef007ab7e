"""Tiny deterministic measurers (DUT models) and helpers for the search tests.

Every DUT here is a pure function of (duration, load) unless it says
otherwise, so a fresh trial reproduces what the search saw.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable

from ndrpdr.search import Classification, Goal, TrialResult


class CapacityDut:
    """A capacity cliff: forwards at most ``capacity`` frames/s, drops the rest."""

    def __init__(self, capacity: float) -> None:
        self.capacity = capacity

    def __repr__(self) -> str:
        return f"CapacityDut({self.capacity!r})"

    def measure(self, duration: float, load: float) -> TrialResult:
        offered = load * duration
        lost = max(0.0, load - self.capacity) * duration
        return TrialResult(duration, load, offered_count=offered, loss_count=lost)


class StepDut:
    """Loses nothing up to ``capacity`` and a fixed share of frames above it."""

    def __init__(self, capacity: float, step_loss: float = 0.5) -> None:
        self.capacity = capacity
        self.step_loss = step_loss

    def __repr__(self) -> str:
        return f"StepDut({self.capacity!r}, {self.step_loss!r})"

    def measure(self, duration: float, load: float) -> TrialResult:
        offered = load * duration
        lost = offered * self.step_loss if load > self.capacity else 0.0
        return TrialResult(duration, load, offered_count=offered, loss_count=lost)


class LossCurveDut:
    """Loss ratio ``min(1, scale * ((load - capacity) / capacity) ** power)`` above capacity."""

    def __init__(self, capacity: float, scale: float, power: float) -> None:
        self.capacity = capacity
        self.scale = scale
        self.power = power

    def __repr__(self) -> str:
        return f"LossCurveDut({self.capacity!r}, {self.scale!r}, {self.power!r})"

    def ratio(self, load: float) -> float:
        if load <= self.capacity:
            return 0.0
        excess: float = ((load - self.capacity) / self.capacity) ** self.power
        return min(1.0, self.scale * excess)

    def measure(self, duration: float, load: float) -> TrialResult:
        offered = load * duration
        return TrialResult(
            duration, load, offered_count=offered, loss_count=offered * self.ratio(load)
        )


class BufferDut:
    """Capacity ``capacity`` behind a buffer of ``buffer`` frames.

    lost = max(0, (load - capacity) * duration - buffer): short trials hide
    the overload in the buffer, so they overstate the capacity.
    """

    def __init__(self, capacity: float, buffer: float) -> None:
        self.capacity = capacity
        self.buffer = buffer

    def measure(self, duration: float, load: float) -> TrialResult:
        offered = load * duration
        lost = max(0.0, (load - self.capacity) * duration - self.buffer)
        return TrialResult(duration, load, offered_count=offered, loss_count=lost)


class NeverLosesDut:
    """Forwards everything at any load."""

    def measure(self, duration: float, load: float) -> TrialResult:
        return TrialResult(
            duration, load, offered_count=load * duration, forwarded_count=load * duration
        )


class AlwaysLosesDut:
    """Loses 10 % of the frames at any load."""

    def measure(self, duration: float, load: float) -> TrialResult:
        offered = load * duration
        return TrialResult(duration, load, offered_count=offered, loss_count=offered * 0.1)


class TransientDut:
    """Honest capacity cliff, except that the first trial at every load loses 1 %."""

    def __init__(self, capacity: float) -> None:
        self.inner = StepDut(capacity)
        self.seen: set[float] = set()

    def measure(self, duration: float, load: float) -> TrialResult:
        if load not in self.seen:
            self.seen.add(load)
            offered = load * duration
            return TrialResult(duration, load, offered_count=offered, loss_count=offered * 0.01)
        return self.inner.measure(duration, load)


class OverheadDut:
    """A capacity cliff whose trials each cost ``overhead`` extra effective seconds."""

    def __init__(self, capacity: float, overhead: float) -> None:
        self.inner = CapacityDut(capacity)
        self.overhead = overhead

    def measure(self, duration: float, load: float) -> TrialResult:
        raw = self.inner.measure(duration, load)
        return dataclasses.replace(raw, effective_duration=duration + self.overhead)


class RecordingMeasurer:
    """Wraps a measurer and records every call as (duration, load)."""

    def __init__(self, inner: CapacityDut | StepDut | LossCurveDut | BufferDut) -> None:
        self.inner = inner
        self.calls: list[tuple[float, float]] = []

    def measure(self, duration: float, load: float) -> TrialResult:
        self.calls.append((duration, load))
        return self.inner.measure(duration, load)


class ReturnsMeasurer:
    """Returns whatever it was given, whatever it is asked."""

    def __init__(self, value: object) -> None:
        self.value = value

    def measure(self, duration: float, load: float) -> object:
        return self.value


class OverForwardingMeasurer:
    """Claims to forward more frames than it offered."""

    def measure(self, duration: float, load: float) -> TrialResult:
        return TrialResult(duration, load, offered_count=100.0, forwarded_count=123.0)


class ClockedDut:
    """A capacity cliff that advances a fake clock by each trial's duration."""

    def __init__(self, capacity: float) -> None:
        self.inner = CapacityDut(capacity)
        self.now = 0.0

    def clock(self) -> float:
        return self.now

    def measure(self, duration: float, load: float) -> TrialResult:
        self.now += duration
        return self.inner.measure(duration, load)


Measure = Callable[[float, float], TrialResult]


def threshold(
    measure: Measure, duration: float, loss_ratio: float, low: float, high: float
) -> float:
    """The highest load in [low, high] passing ``loss_ratio`` at ``duration``.

    Assumes a monotone DUT. Returns ``high`` if it passes and 0.0 if even
    ``low`` fails; otherwise a passing load within a few ulps of the edge.
    """
    if measure(duration, high).loss_ratio <= loss_ratio:
        return high
    if measure(duration, low).loss_ratio > loss_ratio:
        return 0.0
    for _ in range(200):
        middle = (low + high) / 2.0
        if middle in (low, high):
            break
        if measure(duration, middle).loss_ratio <= loss_ratio:
            low = middle
        else:
            high = middle
    return low


def rfc_classify(
    full_low_s: float,
    full_high_s: float,
    short_low_s: float,
    short_high_s: float,
    goal_loss_ratio: float,
    goal_exceed_ratio: float,
    goal_duration_s: float,
) -> Classification:
    """RFC 9971 load classification, transcribed literally from the pseudocode."""
    del goal_loss_ratio  # only decides high/low loss, already done by the caller
    full_length_low_loss_s = full_low_s
    full_length_high_loss_s = full_high_s
    short_low_loss_s = short_low_s
    short_high_loss_s = short_high_s
    exceed_coefficient = goal_exceed_ratio / (1.0 - goal_exceed_ratio)
    balancing_s = short_low_loss_s * exceed_coefficient
    positive_excess_s = max(0.0, short_high_loss_s - balancing_s)
    effect_high_loss_s = full_length_high_loss_s + positive_excess_s
    effect_full_length_s = full_length_low_loss_s + effect_high_loss_s
    effect_whole_s = max(effect_full_length_s, goal_duration_s)
    quantile_duration_s = effect_whole_s * goal_exceed_ratio
    pessimistic_high_loss_s = effect_whole_s - full_length_low_loss_s
    pessimistic_is_lower = pessimistic_high_loss_s <= quantile_duration_s
    optimistic_is_lower = effect_high_loss_s <= quantile_duration_s
    if pessimistic_is_lower and optimistic_is_lower:
        return Classification.LOWER
    if not pessimistic_is_lower and not optimistic_is_lower:
        return Classification.UPPER
    return Classification.UNDECIDED


def rfc_bounds(trials: Iterable[TrialResult], goal: Goal) -> tuple[float | None, float | None]:
    """RFC 9971 relevant (lower, upper) bounds of ``goal`` from all ``trials``."""
    totals: dict[float, list[float]] = {}
    for trial in trials:
        bucket = totals.setdefault(trial.load, [0.0, 0.0, 0.0, 0.0])
        high = trial.loss_ratio > goal.loss_ratio
        full = trial.duration >= goal.final_trial_duration
        bucket[(0 if full else 2) + (1 if high else 0)] += trial.effective_seconds
    lower: float | None = None
    for load in sorted(totals):
        full_low, full_high, short_low, short_high = totals[load]
        verdict = rfc_classify(
            full_low,
            full_high,
            short_low,
            short_high,
            goal.loss_ratio,
            goal.exceed_ratio,
            goal.duration_sum,
        )
        if verdict is Classification.UPPER:
            return lower, load
        if verdict is Classification.LOWER:
            lower = load
    return lower, None


def strict_goals(final: float) -> list[Goal]:
    """NDR and PDR with exceed ratio 0, 1 s trials first, one final trial of ``final`` s decides."""
    return [
        Goal(
            loss_ratio=loss,
            exceed_ratio=0.0,
            relative_width=0.005,
            initial_trial_duration=1.0,
            final_trial_duration=final,
            duration_sum=final,
        )
        for loss in (0.0, 0.005)
    ]
