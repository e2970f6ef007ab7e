"""The DutModel protocol: what a simulated device under test must provide."""

from __future__ import annotations

import random
from typing import Protocol, runtime_checkable


@runtime_checkable
class DutModel(Protocol):
    """A simulated DUT: forwards frames of a trial, and knows its true throughput.

    Loads are in frames per second [pps], aggregate over the directions
    (``ndrpdr.units``), durations in seconds [s], counts in frames. Loss
    ratios are fractions in [0, 1).
    """

    @property
    def name(self) -> str:
        """The model's kind, one of ``MODEL_NAMES`` (e.g. ``"sharp"``)."""
        ...

    @property
    def deterministic(self) -> bool:
        """True when a trial's counts depend only on its duration and load."""
        ...

    def true_throughput(self, duration_s: float, loss_ratio: float) -> float:
        """The true threshold load [pps] for trials of ``duration_s`` [s] and that goal.

        Deterministic models: the highest load whose trial loss ratio is at
        most ``loss_ratio``. Noisy models: the highest load whose median
        trial meets the goal (it passes with probability 0.5).
        """
        ...

    def true_ndr(self, duration_s: float) -> float:
        """``true_throughput(duration_s, 0.0)`` [pps]."""
        ...

    def true_pdr(self, duration_s: float, loss_ratio: float = 0.005) -> float:
        """``true_throughput(duration_s, loss_ratio)`` [pps], 0.5 % loss by default."""
        ...

    def parameters(self) -> dict[str, float]:
        """The model's parameters by name (units in the names), for printing."""
        ...

    def trial(self, duration_s: float, load_pps: float, rng: random.Random) -> tuple[int, int]:
        """Run one trial: ``(offered_count, forwarded_count)`` in frames.

        ``load_pps`` is the load the tester actually sends; offered frames
        are ``round(load_pps * duration_s)``; forwarded exceeds offered only
        for a DUT that duplicates frames.
        Only noisy models draw from ``rng``.
        """
        ...
