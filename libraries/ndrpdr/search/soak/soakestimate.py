"""The soak's estimate of the critical load, read off a posterior held on grid cells.

A soak's posterior (``soakfit.Posterior``) is mass on cells of log-load: one
geometric grid (one step for every cell), or a fine grid merged into a wide
one (``soakwide``: steps that differ). Either way each cell's mass is spread
evenly over it in log-load, and the estimate is read the same way.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence


@dataclasses.dataclass(frozen=True)
class Estimate:
    """The posterior of the critical load: mean and stdev [pps], and quantiles [pps]."""

    mean: float
    stdev: float
    median: float
    low: float  # 2.5 % quantile
    high: float  # 97.5 % quantile

    @property
    def lower(self) -> float:
        """``mean - stdev`` [pps]: CSIT's soak lower bound."""
        return self.mean - self.stdev

    @property
    def upper(self) -> float:
        """``mean + stdev`` [pps]: CSIT's soak upper bound."""
        return self.mean + self.stdev


def geometric(low: float, high: float, points: int) -> list[float]:
    """``points`` loads from ``low`` to ``high`` with a constant ratio: a grid's cells."""
    ratio = math.log(high / low) / (points - 1)
    return [low * math.exp(ratio * i) for i in range(points)]


def log_sum_exp(values: Sequence[float]) -> float:
    """The log of the sum of the exps of ``values`` (a mass given as logs, summed)."""
    top = max(values)
    if top == -math.inf:
        return top
    return top + math.log(sum(math.exp(v - top) for v in values))


def shares(log_masses: Sequence[float]) -> list[float]:
    """Masses given as logs (up to a constant), normalised to sum to 1."""
    top = max(log_masses)
    masses = [math.exp(mass - top) for mass in log_masses]
    total = sum(masses)
    return [mass / total for mass in masses]


def quantile(
    loads: Sequence[float],
    masses: Sequence[float],
    steps: Sequence[float],
    share: float,
    ends: tuple[float, float],
) -> float:
    """The load [pps] below which ``share`` of the mass lies, interpolated in log-load
    within its cell (cell ``i``: ``loads[i]``, normalised mass ``masses[i]``, log-width
    ``steps[i]``, half of it either side), within the load range ``ends``."""
    below = 0.0
    for load, mass, step in zip(loads, masses, steps, strict=True):
        if below + mass >= share and mass > 0:
            inside = (share - below) / mass  # 0..1 through the cell
            return min(ends[1], max(ends[0], load * math.exp(step * (inside - 0.5))))
        below += mass
    return loads[-1]


def summarize(
    loads: Sequence[float],
    masses: Sequence[float],
    steps: Sequence[float],
    ends: tuple[float, float],
) -> Estimate:
    """Mean, stdev, median and the 95 % central interval [pps] of cells (``quantile``'s)."""
    mean = sum(w * load for w, load in zip(masses, loads, strict=True))
    # The within-cell spread (a cell of log-width s is s * load / sqrt(12) wide) keeps a
    # posterior gathered in one cell from claiming a spread of zero.
    variance = sum(
        w * ((load - mean) ** 2 + (step * load) ** 2 / 12.0)
        for w, load, step in zip(masses, loads, steps, strict=True)
    )
    return Estimate(
        mean=mean,
        stdev=math.sqrt(variance),
        median=quantile(loads, masses, steps, 0.5, ends),
        low=quantile(loads, masses, steps, 0.025, ends),
        high=quantile(loads, masses, steps, 0.975, ends),
    )
