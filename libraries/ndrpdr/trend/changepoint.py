"""Change points of one metric over runs: the shortest description of the series as level steps.

A series (one test's NDR lower bound, say, one value per run [pps]) is
described as segments, each a constant level plus noise. Among all ways to
cut it into segments of at least ``MIN_SEGMENT`` runs, ``segments`` picks
the one with the shortest description length (minimum description length,
as FD.io CSIT groups its trend samples; this is our own formulation):

- the values, coded as Gaussian deviations from their segment's mean with
  the series' noise sigma: ``SS / (2 sigma^2)`` nats beyond what every
  cutting pays alike (``SS``: the squared deviations summed over segments);
- each cut: its position (``ln n`` nats, one of n places) and the new
  segment's mean to the precision the data give it (``ln n / 2`` nats, the
  usual cost of one real parameter), so ``PENALTY_PER_LN_N x ln n`` with
  ``PENALTY_PER_LN_N`` = 1.5. A series shorter than ``HORIZON_RUNS`` (a
  year of nightly runs) pays as if it had that many: a nightly job looks
  at the series anew every night, so over its first year it has looked at
  a year's worth of places a change could hide, and a short history must
  not make a cut cheap (with ``ln n`` alone, half of the tests of a
  noise-only year showed a change on some night's page, most in its first
  three weeks; with the horizon 21 and 22 of 24, ``benchmarks/trendestimators.py``).

A cut is therefore kept only when it lowers ``SS / sigma^2`` by more than
``3 ln n`` (17.7 for a year of nightly runs). On pure noise the largest
drop a single cut can make is about the maximum of n chi-square(1)
variables over a random walk's positions, which stays below that value in
well over 95 % of series (``benchmarks/trend.py`` measures it on real
simulated searches); a 5 % step of a series with a run-to-run spread of
1 % drops ``SS / sigma^2`` by about 2 x 25 = 50 after two runs at the new
level, so it is found as soon as ``MIN_SEGMENT`` runs confirm it.

Sigma is the run-to-run noise of the series itself, estimated from its
successive differences (mean absolute difference x sqrt(pi) / 2, which a
few steps or outliers barely move, unlike the plain standard deviation),
and never below half of the median of the runs' own noise (an NDRPDR
search's ``upper - lower``, an MRR result's spread: see
``ndrpdr.trend.compare``): what a search cannot resolve is not a change.
Segments shorter than ``MIN_SEGMENT`` runs are not allowed, and a run
more than ``OUTLIER_SIGMAS`` sigma away from both its neighbours, on the
same side, is an outlier left out of the segments (a step moves a run away
from one neighbour only), so one odd run is never a level of its own.

The optimum is exact (dynamic programming over cut positions, pruned as in
PELT: a position that cannot start the last segment of any longer series is
dropped). Pure: floats in, segments out, no I/O.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import statistics
from collections.abc import Sequence

#: The least number of runs in a segment: a change is reported once two runs confirm it.
MIN_SEGMENT = 2
#: Nats per cut, in units of ln(number of runs): ln n for its position, ln n / 2 for its mean.
PENALTY_PER_LN_N = 1.5
#: A shorter series pays the penalty of this many runs (a year of nightly runs).
HORIZON_RUNS = 365
#: A run this many sigma above (below) both its neighbours is an outlier.
OUTLIER_SIGMAS = 5.0
#: sqrt(pi) / 2: mean |x_i - x_i+1| of Gaussian noise is 2 sigma / sqrt(pi).
_MEAN_DIFF_TO_SIGMA = math.sqrt(math.pi) / 2.0
#: Sigma is at least this share of the series' median value (all values equal: still a scale).
_SIGMA_FLOOR_SHARE = 1e-6


@dataclasses.dataclass(frozen=True)
class Segment:
    """Runs ``start`` .. ``stop - 1`` (indices into the series) at level ``mean`` [pps]."""

    start: int
    stop: int
    mean: float

    @property
    def count(self) -> int:
        """How many runs the segment holds."""
        return self.stop - self.start


@dataclasses.dataclass(frozen=True)
class Change:
    """A change point: the level moves from ``before`` to ``after`` at run ``index``."""

    #: The first run (index into the series) at the new level.
    index: int
    before: Segment
    after: Segment
    #: The series' noise sigma [pps], which the change is measured against.
    sigma: float

    @property
    def relative(self) -> float:
        """(after - before) / before: -0.05 is 5 % down."""
        return self.after.mean / self.before.mean - 1.0 if self.before.mean else math.inf

    @property
    def z(self) -> float:
        """The step in standard errors of the difference of the two segments' means."""
        spread = self.sigma * math.sqrt(1.0 / self.before.count + 1.0 / self.after.count)
        return (self.after.mean - self.before.mean) / spread


@dataclasses.dataclass(frozen=True)
class Detection:
    """A series cut into segments, and the change points between them."""

    segments: tuple[Segment, ...]
    #: The run-to-run noise sigma used [pps].
    sigma: float
    #: Runs (indices) left out as outliers; they lie within a segment but not in its mean.
    outliers: tuple[int, ...] = ()

    @property
    def changes(self) -> tuple[Change, ...]:
        """One change per boundary between segments, oldest first."""
        return tuple(
            Change(after.start, before, after, self.sigma)
            for before, after in zip(self.segments, self.segments[1:], strict=False)
        )


def noise_sigma(values: Sequence[float], noises: Sequence[float] = ()) -> float:
    """The run-to-run noise sigma [pps] of ``values`` (see the module's docstring).

    ``noises`` are the runs' own noise [pps] (e.g. ``compare.Value.noise_pps``);
    sigma is at least half their median. Never zero for a non-zero series.
    """
    diffs = [abs(b - a) for a, b in itertools.pairwise(values)]
    sigma = statistics.fmean(diffs) * _MEAN_DIFF_TO_SIGMA if diffs else 0.0
    if noises:
        sigma = max(sigma, statistics.median(noises) / 2.0)
    scale = statistics.median([abs(v) for v in values]) if values else 0.0
    return max(sigma, scale * _SIGMA_FLOOR_SHARE, 1e-12)


def outliers(values: Sequence[float], sigma: float) -> tuple[int, ...]:
    """Runs more than OUTLIER_SIGMAS x ``sigma`` above, or below, both neighbours (not the ends)."""
    limit = OUTLIER_SIGMAS * sigma
    found = []
    for i in range(1, len(values) - 1):
        before, here, after = values[i - 1], values[i], values[i + 1]
        if min(here - before, here - after) > limit or max(here - before, here - after) < -limit:
            found.append(i)
    return tuple(found)


def penalty(count: int) -> float:
    """The cost of one more cut in a series of ``count`` runs, in units of ``SS / sigma^2``.

    Twice ``PENALTY_PER_LN_N x ln(max(count, HORIZON_RUNS))`` nats (the values' cost is
    ``SS / (2 sigma^2)``): 17.7 up to a year of runs.
    """
    return 2.0 * PENALTY_PER_LN_N * math.log(max(count, HORIZON_RUNS, 2))


def segments(
    values: Sequence[float], noises: Sequence[float] = (), *, sigma: float | None = None
) -> Detection:
    """The shortest description of ``values`` (oldest first) as segments of constant level.

    Args:
        values: One value per run, oldest first [pps]; finite.
        noises: Each run's own noise [pps] (optional, same length or empty).
        sigma: The run-to-run noise [pps]; estimated by ``noise_sigma`` when None.

    Returns:
        The segments (one for fewer than 2 x MIN_SEGMENT runs) and sigma.

    Raises:
        ValueError: a value is not finite, or ``noises`` has another length.
    """
    count = len(values)
    if any(not math.isfinite(v) for v in values):
        raise ValueError("changepoint.segments: every value must be finite")
    if noises and len(noises) != count:
        raise ValueError(
            f"changepoint.segments: {len(noises)} noises for {count} values (give one per run)"
        )
    if count == 0:
        return Detection((), sigma or 0.0)
    scale = noise_sigma(values, noises) if sigma is None else sigma
    odd = outliers(values, scale)
    left_out = set(odd)
    kept = [i for i in range(count) if i not in left_out]
    starts = optimal_starts([values[i] for i in kept], scale)
    bounds = [0, *(kept[k] for k in starts[1:]), count]
    found = tuple(
        Segment(start, stop, statistics.fmean(values[i] for i in kept if start <= i < stop))
        for start, stop in itertools.pairwise(bounds)
    )
    return Detection(found, scale, odd)


def optimal_starts(values: Sequence[float], scale: float) -> list[int]:
    """The start of each segment (the first is 0) of the least-cost cutting of ``values``.

    ``scale`` is the noise sigma [pps]; segments hold at least MIN_SEGMENT
    values; no outlier is left out here (``segments`` does that first).
    """
    count = len(values)
    if count < 2 * MIN_SEGMENT:
        return [0]
    # Centre and scale, so sums of squares stay well conditioned.
    middle = statistics.median(values)
    unit = [(v - middle) / scale for v in values]
    sums, squares = [0.0], [0.0]
    for u in unit:
        sums.append(sums[-1] + u)
        squares.append(squares[-1] + u * u)
    beta = penalty(count)
    best = [0.0] * (count + 1)  # best[t]: least cost of values[:t]
    last = [0] * (count + 1)  # last[t]: where the last segment of that optimum starts
    best[0] = -beta
    # The starts a last segment may take, in parallel lists: position, best[start] -
    # squares[start], sums[start]; a start waits in ``waiting`` until MIN_SEGMENT values follow.
    positions: list[int] = [0]
    offsets: list[float] = [best[0]]
    totals: list[float] = [0.0]
    waiting: list[int] = []
    dropped: dict[int, set[int]] = {}  # stop -> starts no longer needed from that stop on
    for stop in range(MIN_SEGMENT, count + 1):
        gone = dropped.pop(stop, None)
        if gone:
            keep = [i for i, start in enumerate(positions) if start not in gone]
            positions = [positions[i] for i in keep]
            offsets = [offsets[i] for i in keep]
            totals = [totals[i] for i in keep]
        while waiting and waiting[0] <= stop - MIN_SEGMENT:
            start = waiting.pop(0)
            positions.append(start)
            offsets.append(best[start] - squares[start])
            totals.append(sums[start])
        s_stop = sums[stop]
        # The cost of values[start:stop] is squares[stop] - squares[start] - total^2 / length;
        # squares[stop] is the same for every start, so it is added once, after the min.
        fits = [
            offset - (s_stop - total) ** 2 / (stop - start)
            for offset, total, start in zip(offsets, totals, positions, strict=True)
        ]
        least = min(fits)
        best[stop] = least + squares[stop] + beta
        last[stop] = positions[fits.index(least)]
        # PELT: a start whose fit already costs more than the optimum up to ``stop``
        # loses to a cut at ``stop`` for every series at least MIN_SEGMENT longer.
        limit = least + beta
        if max(fits) > limit:
            dropped[stop + MIN_SEGMENT] = {
                start for fit, start in zip(fits, positions, strict=True) if fit > limit
            }
        waiting.append(stop)
    cuts: list[int] = []
    stop = count
    while stop > 0:
        stop = last[stop]
        cuts.append(stop)
    return cuts[::-1]
