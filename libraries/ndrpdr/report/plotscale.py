"""Scales of the trace plot: value-to-pixel maps, tick steps, the zoom window, label spreading.

Pure arithmetic, no SVG: ``ndrpdr.report.plotpanel`` draws with it.
Values are seconds [s] or loads [frames/s]; positions are pixels [px].
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

#: The zoom window spans at least this share of its highest bound (1 %).
MIN_ZOOM_SPAN = 0.01
#: Room above the highest and below the lowest bound, as a share of the bounds' span.
ZOOM_MARGIN = 0.25


def nice_step(span: float, target: int) -> float:
    """A 1-2-5 step giving about ``target`` intervals over ``span`` (> 0)."""
    raw = span / target
    magnitude = 10.0 ** math.floor(math.log10(raw))
    for multiple in (1, 2, 5):
        if multiple * magnitude >= raw * (1 - 1e-9):
            return multiple * magnitude
    return 10 * magnitude


@dataclasses.dataclass(frozen=True)
class Scale:
    """A linear map from values ``low..high`` to pixels ``start..end`` (end < start for y)."""

    low: float
    high: float
    start: float
    end: float

    def __call__(self, value: float) -> float:
        """The pixel position of ``value`` (outside low..high: outside start..end)."""
        span = self.high - self.low
        return self.start + (self.end - self.start) * (value - self.low) / span

    def clamp(self, value: float) -> float:
        """The pixel position of ``value`` held within start..end."""
        lo, hi = sorted((self.start, self.end))
        return min(max(self(value), lo), hi)

    def contains(self, value: float) -> bool:
        """Whether ``value`` lies within low..high (with a hair of tolerance)."""
        slack = (self.high - self.low) * 1e-9
        return self.low - slack <= value <= self.high + slack

    def ticks(self, target: int) -> list[float]:
        """Round values within low..high, about ``target`` intervals apart."""
        step = nice_step(self.high - self.low, target)
        first = math.ceil(self.low / step * (1 - 1e-12) - 1e-9)
        last = math.floor(self.high / step * (1 + 1e-12) + 1e-9)
        return [round(i * step, 12) for i in range(first, last + 1)]


@dataclasses.dataclass(frozen=True)
class ZoomWindow:
    """The loads [frames/s] the zoom panel shows: ``low..high`` around the bounds."""

    low: float
    high: float


def zoom_window(bounds: Sequence[float]) -> ZoomWindow | None:
    """The load range around the bounds: from a bit below the lowest to a bit above the highest.

    The bounds' span is widened to at least MIN_ZOOM_SPAN of the highest
    bound (around their middle), so one bound, or bounds all equal, still
    get a window; then ZOOM_MARGIN of that span is added on either side.
    The window never reaches below zero.

    Args:
        bounds: The goals' lower and upper bounds that exist [frames/s];
            non-positive and non-finite values are ignored.

    Returns:
        The window, or None when no bound is left to zoom on.
    """
    values = [b for b in bounds if math.isfinite(b) and b > 0]
    if not values:
        return None
    low, high = min(values), max(values)
    span = max(high - low, MIN_ZOOM_SPAN * high)
    middle = (low + high) / 2
    low, high = min(low, middle - span / 2), max(high, middle + span / 2)
    margin = ZOOM_MARGIN * span
    return ZoomWindow(max(0.0, low - margin), high + margin)


def spread(wanted: Sequence[float], low: float, high: float, gap: float) -> list[float]:
    """Label positions [px] near ``wanted`` (ascending), at least ``gap`` apart, within low..high.

    Labels that crowd are pushed apart (down first, then up where they run
    past ``high``); when even that cannot fit them, they are spaced evenly
    over low..high, which is the closest they can be without overlapping.

    Args:
        wanted: Where each label would sit, in ascending order [px].
        low: The highest position on screen (smallest y) a label may take [px].
        high: The lowest position on screen (largest y) a label may take [px].
        gap: The least distance between two labels [px].

    Returns:
        One position per label, ascending, in the same order as ``wanted``.
    """
    count = len(wanted)
    if count == 0:
        return []
    if (count - 1) * gap > high - low:
        step = (high - low) / (count - 1) if count > 1 else 0.0
        return [low + i * step for i in range(count)]
    placed = [min(max(y, low), high) for y in wanted]
    for i in range(1, count):
        placed[i] = max(placed[i], placed[i - 1] + gap)
    if placed[-1] > high:
        placed[-1] = high
        for i in range(count - 2, -1, -1):
            placed[i] = min(placed[i], placed[i + 1] - gap)
    return placed
