"""The loss curve above the knee of the ``randomized`` model: five shapes, one sharpness.

A ``LossShape`` maps the relative excess ``x = L / K - 1`` of a load ``L``
over the knee ``K`` to the lost rate in units of the knee, ``h(x)``; the
loss ratio is ``min(1, h(x) / (1 + x))`` and 0 at or below the knee.
Every shape's loss ratio rises with the load, so a goal's threshold is
where it crosses the goal's ratio. The shapes are those of the named
models, widened:

``cliff``
    ``h = x``: the DUT forwards ``K`` (``sharp``).
``linear``
    ``h = s x``, ``s`` in (0, 1): the DUT forwards ``K + (1 - s) (L - K)``,
    a partial drop that grows in proportion to the excess (some queues
    saturate, others not).
``power``
    ``h = s x**p``, ``p`` > 1: loss rising from 0 with zero slope
    (``gradual`` is ``p = 2``).
``exponential``
    ``h = s (exp(x / w) - 1)``: a soft onset that turns steep within a few
    ``w`` above the knee.
``overload``
    the forwarding rate falls with slope ``a`` above the knee to a floor
    ``f K``: ``h = 1 + x - max(f, 1 - a x)`` (``overload``).
"""

from __future__ import annotations

import dataclasses
import math

from ndrpdr.search.errors import SearchInputError

SHAPES = ("cliff", "linear", "power", "exponential", "overload")
"""Shape kinds, in the order of their ``index``."""

_EXP_LIMIT = 700.0
"""Exponents above this are clipped (the loss ratio is 1 long before)."""


@dataclasses.dataclass(frozen=True)
class LossShape:
    """One loss curve above the knee (see the module).

    ``sharpness``: ``s`` (linear, power, exponential) or ``a`` (overload's
    slope); 1 for the cliff. ``exponent``: ``p`` (power) or ``w``
    (exponential), else 0. ``floor_fraction``: ``f`` (overload), else 0.
    """

    kind: str
    sharpness: float = 1.0
    exponent: float = 0.0
    floor_fraction: float = 0.0

    def __post_init__(self) -> None:
        if self.kind not in SHAPES:
            raise SearchInputError(f"unknown loss shape {self.kind!r}; known: {', '.join(SHAPES)}")
        if not (math.isfinite(self.sharpness) and self.sharpness > 0):
            raise SearchInputError(f"shape sharpness={self.sharpness!r} must be finite and > 0")
        if self.kind in ("power", "exponential") and not self.exponent > 0:
            raise SearchInputError(f"{self.kind} shape exponent={self.exponent!r} must be > 0")
        if self.kind == "linear" and self.sharpness >= 1.0:
            raise SearchInputError(f"linear shape sharpness={self.sharpness!r} must be < 1")
        if not 0.0 <= self.floor_fraction < 1.0:
            raise SearchInputError(f"floor_fraction={self.floor_fraction!r} must be in [0, 1)")

    @property
    def index(self) -> int:
        """The kind's position in ``SHAPES`` (a number for ``parameters``)."""
        return SHAPES.index(self.kind)

    def lost(self, excess: float) -> float:
        """``h(x)``: the lost rate in units of the knee at relative excess ``x`` > 0."""
        s = self.sharpness
        if self.kind == "cliff":
            return excess
        if self.kind == "linear":
            return s * excess
        if self.kind == "power":
            return s * math.pow(excess, self.exponent)
        if self.kind == "exponential":
            return s * math.expm1(min(_EXP_LIMIT, excess / self.exponent))
        return 1.0 + excess - max(self.floor_fraction, 1.0 - s * excess)

    def loss_ratio(self, load_pps: float, knee_pps: float) -> float:
        """The loss ratio [0, 1] at ``load_pps`` for a knee at ``knee_pps`` (both [pps])."""
        if load_pps <= knee_pps:
            return 0.0
        excess = load_pps / knee_pps - 1.0
        return min(1.0, self.lost(excess) / (1.0 + excess))


def sharpness_for_offset(kind: str, offset: float, exponent: float, ratio: float) -> float:
    """The ``s`` that puts loss ratio ``ratio`` at relative excess ``offset`` above the knee.

    For the power and exponential shapes: their sharpness is drawn as where
    the usual PDR (0.5 % loss) lies above the knee, not as a coefficient.
    """
    if kind == "power":
        return ratio * (1.0 + offset) / math.pow(offset, exponent)
    if kind == "exponential":
        return ratio * (1.0 + offset) / math.expm1(offset / exponent)
    raise SearchInputError(f"shape {kind!r} has no offset-drawn sharpness")
