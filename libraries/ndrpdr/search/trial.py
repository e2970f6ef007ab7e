"""Trial results as the measurer reports them, and the Measurer protocol.

Terms follow RFC 9971: the trial load is the intended load [frames per
second, aggregate over the directions: ``ndrpdr.units``]; the loss ratio
counts frames the tester meant to send but did not ("unsent") as lost, so a
tester that cannot keep up pushes the search down instead of inflating
results.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from typing import Protocol, runtime_checkable

from ndrpdr.search.errors import SearchInputError
from ndrpdr.search.numbers import finite_number
from ndrpdr.search.trialnotes import (
    is_sent_nothing_note,
    is_surplus_note,
    sent_nothing_note,
    surplus_note,
    with_note,
)


@dataclasses.dataclass(frozen=True)
class TrialReason:
    """Why the controller chose a trial (for traces, plots and debugging).

    ``goal`` is the index of the goal that nominated the trial (None when a
    trial serves the whole search, e.g. the initial probe); ``phase`` is the
    stage of the search ("probe", "short", "scout", "final",
    "intermediate", "binary", "verify"); ``strategy`` names the rule that picked the load
    ("expect-pass", "expect-fail", "expand-up", "expand-down", "bisect",
    "min-load", "scouted-middle", "knee-fit", "repeat", ...; "-grown" when
    the step grew because a bound kept moving the same way).
    """

    algorithm: str
    phase: str
    strategy: str
    goal: int | None = None
    detail: str = ""

    def __str__(self) -> str:
        who = "all goals" if self.goal is None else f"goal {self.goal}"
        text = f"{self.algorithm}/{self.phase}/{self.strategy} for {who}"
        return f"{text}: {self.detail}" if self.detail else text


def _check_number(name: str, value: object, *, allow_none: bool = False) -> None:
    if value is None and allow_none:
        return
    if finite_number(f"TrialResult {name}", value) < 0:
        raise SearchInputError(f"TrialResult {name}={value!r} is negative")


@dataclasses.dataclass(frozen=True)
class TrialResult:
    """One trial: its input (duration, load) and what was counted.

    Give ``offered_count`` and one of ``forwarded_count`` / ``loss_count``
    (the other is derived). ``intended_count`` defaults to ``offered_count``
    (nothing unsent). A ``forwarded_count`` above ``offered_count`` (frames
    the DUT duplicated, foreign frames on the TG's ports) is no loss: the
    forwarded count becomes the offered one, the rest ``surplus_count``, and
    the trial gets a warning saying so (``ndrpdr.search.trialnotes``); a
    trial with a load that sent no frame gets one too.
    ``effective_duration`` [s] is what time sums count (may include
    per-trial overheads); it defaults to ``duration``.
    ``reason`` is filled in by the search engine, not by measurers.
    ``warnings`` are the measurer's remarks on the trial's validity (e.g. the
    tester fell short of the intended rate); the search does not read them.
    """

    duration: float
    load: float
    offered_count: float
    forwarded_count: float | None = None
    loss_count: float | None = None
    intended_count: float | None = None
    effective_duration: float | None = None
    surplus_count: float = 0.0
    reason: TrialReason | None = dataclasses.field(default=None, compare=False)
    warnings: tuple[str, ...] = dataclasses.field(default=(), compare=False)

    def __post_init__(self) -> None:
        _check_number("duration", self.duration)
        _check_number("load", self.load)
        if self.duration <= 0:
            raise SearchInputError(f"TrialResult duration={self.duration!r} must be > 0 s")
        _check_number("offered_count", self.offered_count)
        _check_number("forwarded_count", self.forwarded_count, allow_none=True)
        _check_number("loss_count", self.loss_count, allow_none=True)
        _check_number("intended_count", self.intended_count, allow_none=True)
        _check_number("effective_duration", self.effective_duration, allow_none=True)
        _check_number("surplus_count", self.surplus_count)
        self._take_surplus()
        forwarded, lost = self.forwarded_count, self.loss_count
        if forwarded is None and lost is None:
            raise SearchInputError(
                "TrialResult needs forwarded_count or loss_count "
                f"(load={self.load!r}, duration={self.duration!r})"
            )
        if forwarded is None:
            assert lost is not None
            if lost > self.offered_count:
                raise SearchInputError(
                    f"TrialResult loss_count={lost!r} > offered_count={self.offered_count!r}"
                )
            object.__setattr__(self, "forwarded_count", self.offered_count - lost)
        elif lost is None:
            object.__setattr__(self, "loss_count", self.offered_count - forwarded)
        elif not math.isclose(forwarded + lost, self.offered_count, abs_tol=0.5):
            raise SearchInputError(
                f"TrialResult forwarded_count={forwarded!r} + loss_count={lost!r} "
                f"!= offered_count={self.offered_count!r}"
            )
        if self.intended_count is None:
            object.__setattr__(self, "intended_count", self.offered_count)
        if self.effective_duration is None:
            object.__setattr__(self, "effective_duration", self.duration)
        self._note_counts()

    def _take_surplus(self) -> None:
        """Frames received beyond those offered: no loss, kept as ``surplus_count``."""
        forwarded, lost = self.forwarded_count, self.loss_count
        if forwarded is None or forwarded <= self.offered_count:
            return
        if lost is not None and lost > 0.5:
            raise SearchInputError(
                f"TrialResult forwarded_count={forwarded!r} > offered_count="
                f"{self.offered_count!r} with loss_count={lost!r} at load={self.load!r}: "
                "a trial that received more than it sent lost nothing"
            )
        object.__setattr__(
            self, "surplus_count", self.surplus_count + forwarded - self.offered_count
        )
        object.__setattr__(self, "forwarded_count", self.offered_count)
        object.__setattr__(self, "loss_count", None)

    def _note_counts(self) -> None:
        """The surplus and sent-nothing warnings, as the counts say now (never twice)."""
        assert self.intended_count is not None
        surplus = self.surplus_count
        notes = with_note(
            self.warnings,
            surplus_note(surplus, self.offered_count) if surplus > 0 else None,
            is_surplus_note,
        )
        nothing = self.offered_count <= 0 and self.load > 0
        notes = with_note(
            notes,
            sent_nothing_note(self.load, self.duration, self.intended_count) if nothing else None,
            is_sent_nothing_note,
        )
        object.__setattr__(self, "warnings", notes)

    @property
    def unsent_count(self) -> float:
        """Frames the tester meant to send but did not."""
        assert self.intended_count is not None
        return max(0.0, self.intended_count - self.offered_count)

    @functools.cached_property
    def loss_ratio(self) -> float:
        """(lost + unsent) / expected frames; 1.0 when nothing was expected at a load > 0
        (a trial that sent nothing measured nothing, so it cannot pass).

        Kept once computed: the controller reads it for every trial at every step.
        """
        assert self.loss_count is not None and self.intended_count is not None
        expected = max(self.offered_count, self.intended_count)
        if expected <= 0:
            return 1.0 if self.load > 0 else 0.0
        return min(1.0, (self.loss_count + self.unsent_count) / expected)

    @property
    def forwarding_rate(self) -> float:
        """Trial load x forwarding ratio [frames per second]."""
        return self.load * (1.0 - self.loss_ratio)

    @property
    def effective_seconds(self) -> float:
        """``effective_duration`` as a float (never None after construction)."""
        assert self.effective_duration is not None
        return float(self.effective_duration)


@runtime_checkable
class Measurer(Protocol):
    """Anything that can run one trial: a simulator, a TG driver, a replay."""

    def measure(self, duration: float, load: float) -> TrialResult:
        """Run one trial of ``duration`` [s] at ``load`` [pps, aggregate: ``ndrpdr.units``]."""
        ...
