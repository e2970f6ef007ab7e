"""Shared machinery of the DUT models: argument checks, the capacity cliff, counting.

Every model forwards at most its capacity and, for deterministic models, a
trial's lost frames are ``floor(loss_ratio * offered)``: only whole frames
are lost, so a trial at the true throughput never shows more loss than the
goal allows, and any load measurably above it does.
"""

from __future__ import annotations

import abc
import math
import random
from collections.abc import Callable
from typing import ClassVar

from ndrpdr.search.errors import SearchInputError


def check_positive(name: str, value: float) -> float:
    """Return ``value`` as a float if it is a finite number > 0, else raise SearchInputError."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SearchInputError(f"{name}={value!r} is not a number")
    if not math.isfinite(value) or value <= 0:
        raise SearchInputError(f"{name}={value!r} must be finite and > 0")
    return float(value)


def check_non_negative(name: str, value: float) -> float:
    """Return ``value`` as a float if it is a finite number >= 0, else raise SearchInputError."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SearchInputError(f"{name}={value!r} is not a number")
    if not math.isfinite(value) or value < 0:
        raise SearchInputError(f"{name}={value!r} must be finite and >= 0")
    return float(value)


def check_fraction(name: str, value: float, *, upper: float = 1.0) -> float:
    """Return ``value`` as a float if ``0 <= value < upper``, else raise SearchInputError."""
    value = check_non_negative(name, value)
    if value >= upper:
        raise SearchInputError(f"{name}={value!r} must be < {upper!r}")
    return value


def offered_frames(duration_s: float, load_pps: float) -> int:
    """Frames a tester sends in ``duration_s`` [s] at ``load_pps`` [pps], rounded."""
    return round(load_pps * duration_s)


def whole_frames_lost(offered_count: int, loss_ratio: float) -> int:
    """Whole frames lost [frames] when ``loss_ratio`` of ``offered_count`` frames is lost.

    Rounds down, except that a product within float noise of a whole number
    is taken as that number (so ``(1 - 8e6 / 10e6) * 2e7`` is 4e6, not 4e6 - 1).
    """
    exact = loss_ratio * offered_count
    nearest = round(exact)
    lost = nearest if abs(exact - nearest) <= 1e-6 + 1e-15 * offered_count else math.floor(exact)
    return min(offered_count, max(0, lost))


def cliff_loss_ratio(capacity_pps: float, load_pps: float) -> float:
    """Loss ratio of a DUT that forwards ``min(load, capacity)`` [pps]."""
    if load_pps <= capacity_pps:
        return 0.0
    return 1.0 - capacity_pps / load_pps


def cliff_counts(duration_s: float, load_pps: float, capacity_pps: float) -> tuple[int, int]:
    """``(offered_count, forwarded_count)`` [frames] of a trial at a ``capacity_pps`` cliff."""
    offered = offered_frames(duration_s, load_pps)
    if offered == 0:
        return 0, 0
    return offered, offered - whole_frames_lost(offered, cliff_loss_ratio(capacity_pps, load_pps))


def highest_passing(low: float, high: float, passes: Callable[[float], bool], steps: int) -> float:
    """The highest load [pps] in ``low..high`` that ``passes``, by bisection.

    ``passes(low)`` must hold and ``passes(high)`` must not; ``passes`` must be
    monotone (true below some load, false above it). At most ``steps``
    halvings, fewer when the interval can no longer be split in floats.
    """
    for _ in range(steps):
        middle = (low + high) / 2.0
        if middle in (low, high):
            break
        if passes(middle):
            low = middle
        else:
            high = middle
    return low


def cliff_throughput(capacity_pps: float, loss_ratio: float) -> float:
    """Highest load [pps] a ``capacity_pps`` cliff forwards with at most ``loss_ratio`` loss."""
    return capacity_pps / (1.0 - loss_ratio)


class ModelBase(abc.ABC):
    """Common members of every DUT model (see ``DutModel`` for the contract).

    Subclasses set ``NAME`` and ``DETERMINISTIC`` and implement
    ``true_throughput``, ``parameters`` and ``trial``.
    """

    NAME: ClassVar[str]
    DETERMINISTIC: ClassVar[bool]

    @property
    def name(self) -> str:
        """The model's kind, one of ``MODEL_NAMES``."""
        return self.NAME

    @property
    def deterministic(self) -> bool:
        """True when a trial's counts depend only on its duration and load."""
        return self.DETERMINISTIC

    @abc.abstractmethod
    def true_throughput(self, duration_s: float, loss_ratio: float) -> float:
        """The true threshold load [pps] for trials of ``duration_s`` [s] and that goal."""

    @abc.abstractmethod
    def parameters(self) -> dict[str, float]:
        """The model's parameters by name (units in the names)."""

    @abc.abstractmethod
    def trial(self, duration_s: float, load_pps: float, rng: random.Random) -> tuple[int, int]:
        """Run one trial: ``(offered_count, forwarded_count)`` [frames]."""

    def true_ndr(self, duration_s: float) -> float:
        """True Non-Drop Rate [pps] for trials of ``duration_s`` [s] (zero loss)."""
        return self.true_throughput(duration_s, 0.0)

    def true_pdr(self, duration_s: float, loss_ratio: float = 0.005) -> float:
        """True Partial Drop Rate [pps] for trials of ``duration_s`` [s] (default 0.5 % loss)."""
        return self.true_throughput(duration_s, loss_ratio)

    def __repr__(self) -> str:
        args = ", ".join(f"{key}={value!r}" for key, value in self.parameters().items())
        return f"{type(self).__name__}({args})"

    @staticmethod
    def _check_goal(duration_s: float, loss_ratio: float) -> tuple[float, float]:
        """Validate the arguments of ``true_throughput``; return them as floats."""
        return (
            check_positive("duration_s", duration_s),
            check_fraction("loss_ratio", loss_ratio),
        )

    @staticmethod
    def _check_trial(duration_s: float, load_pps: float) -> tuple[float, float]:
        """Validate the arguments of ``trial``; return them as floats."""
        return (
            check_positive("duration_s", duration_s),
            check_non_negative("load_pps", load_pps),
        )


class DeterministicModel(ModelBase):
    """A model whose loss ratio is a function of (duration, load) alone.

    Subclasses implement ``loss_ratio``; a trial loses
    ``floor(loss_ratio * offered)`` frames and draws nothing from the rng.
    """

    DETERMINISTIC: ClassVar[bool] = True

    @abc.abstractmethod
    def loss_ratio(self, duration_s: float, load_pps: float) -> float:
        """The model's exact (real-valued) loss ratio for that trial, in [0, 1]."""

    def trial(self, duration_s: float, load_pps: float, rng: random.Random) -> tuple[int, int]:
        """Run one trial: ``(offered_count, forwarded_count)`` [frames]; ``rng`` is unused."""
        duration_s, load_pps = self._check_trial(duration_s, load_pps)
        offered = offered_frames(duration_s, load_pps)
        if offered == 0:
            return 0, 0
        lost = whole_frames_lost(offered, self.loss_ratio(duration_s, load_pps))
        return offered, offered - lost
