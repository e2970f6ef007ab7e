"""The soak trials' spread from trial to trial: how much less their counts tell than Poisson's.

A DUT whose loss ratio at a load moves by a factor from trial to trial (the
kernel's 1 s trials lost 0.1-0.4 % at one load on the lab in a box, the
sim's ``plateau``) loses counts spread far wider than a Poisson count's.
The soak fit (``soakfit``) reads counts as Poisson; its result (``estimate``)
divides the log-likelihood by ``overdispersion`` so that its interval claims
no more precision than the trials have.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ndrpdr.search.soak.soakbursty import Counted
from ndrpdr.search.soak.soakestimate import Estimate
from ndrpdr.search.soak.soakfit import MIN_RELATIVE_SPAN, TAIL, Posterior, less_per_trial


def estimate(posterior: Posterior) -> Estimate:
    """The Poisson posterior's ``estimate`` with the trials' spread read in: the
    log-likelihood divided by the trials' ``overdispersion``, on a grid widened by its
    square root (the posterior's width grows so); ``estimate`` itself where the trials show
    no more spread than Poisson's or read as bursts (that model is not Poisson's).

    Only the result reads it: trials are still placed at the Poisson posterior's median,
    whose accuracy the spread does not change.
    """
    factor = 1.0
    if not posterior.bursty:
        seen = less_per_trial(posterior.observations, posterior.per_trial)
        factor = overdispersion(seen, posterior.target)
    if factor <= 1.0:
        return posterior.estimate()
    low, high = posterior.quantile(TAIL), posterior.quantile(1.0 - TAIL)
    half = max(math.log(high / low), MIN_RELATIVE_SPAN) * math.sqrt(factor)
    wide_low = max(posterior.min_load, low * math.exp(-half))
    wide_high = min(posterior.max_load, high * math.exp(half))
    return posterior.regridded(wide_low, wide_high, tempering=factor).estimate()


def overdispersion(seen: Sequence[Counted], target: float) -> float:
    """How many times less the trials near the target tell about the mean loss than Poisson
    counts would (1: no more spread than Poisson's): ``sum x / sum x / (1 + d x)`` over
    their counts ``x``, ``d`` the variance of the factor by which a trial's mean loss moves
    from trial to trial (``spread``).

    A DUT whose loss ratio moves from trial to trial by a factor (the kernel's 1 s trials
    lost 0.1-0.4 % at one load on the lab in a box) loses counts spread far wider than
    Poisson's; read as Poisson its trials claim a precision they do not have (sim
    ``plateau``: the interval held the truth in 45-62 % of the runs).
    """
    near = _near_target(seen, target)
    counts = [lost for _, _, lost in near]
    variance = spread([value for _, value, _ in near], counts)
    if variance <= 0.0:
        return 1.0
    return sum(counts) / sum(x / (1.0 + variance * x) for x in counts)


#: ``overdispersion``: counts of at least this many frames tell the spread ...
SPREAD_MIN_FRAMES = 5.0
#: ... at loss ratios within this factor of the target (near the critical load) ...
SPREAD_NEAR = 4.0
#: ... from at least this many trials more than the rising fit's blocks (fewer: none).
SPREAD_MIN_TRIALS = 3


def _near_target(seen: Sequence[Counted], target: float) -> list[tuple[float, float, float]]:
    """(load, log loss ratio, frames lost) of the trials that lost at least
    ``SPREAD_MIN_FRAMES`` at a loss ratio within ``SPREAD_NEAR`` times the target (so below
    the fit's cap of ``soakfit.CAP_TARGETS`` times its allowance), by load."""
    return sorted(
        (obs.load, math.log(obs.lost / obs.frames), obs.lost)
        for obs in seen
        if obs.frames > 0
        and obs.lost >= SPREAD_MIN_FRAMES
        and target / SPREAD_NEAR <= obs.lost / obs.frames <= target * SPREAD_NEAR
    )


def spread(log_ratios: Sequence[float], counts: Sequence[float]) -> float:
    """The variance ``d`` of the factor that scales a trial's mean loss from trial to trial,
    from the log loss ratios of trials by load and their counts: they should rise with the
    load; each trial's square of what a rising fit of them (``_rising``) leaves (scaled up
    by the trials over the fit's free parameters), less a Poisson count's share ``1 /
    count``, averaged with the trials' counts as weights, is the log factor's variance
    ``s^2``, and ``d = exp(s^2) - 1``. No curve is assumed: a steep one (a cliff) rises as
    well as a flat one, and leaves no spread. 0 with fewer than ``SPREAD_MIN_TRIALS``
    trials more than the fit's blocks.

    Weighted by counts, a trial of a few frames, whose Poisson share is as large as the
    spread sought, tells little of it. Counted alike, such trials decided it: a DUT whose
    counts vary less than Poisson's (the simulator's are whole frames of a scaled mean)
    left their residuals below their share, and the spread read 0 where the factor was
    exp(0.46 Z) (sim ``plateau`` seed 30013: the interval missed the truth).
    """
    fitted, blocks = _rising(log_ratios)
    free = len(log_ratios) - blocks
    if free < SPREAD_MIN_TRIALS:
        return 0.0
    scale = len(log_ratios) / free
    residual = sum(
        count * (value - fit) ** 2
        for value, fit, count in zip(log_ratios, fitted, counts, strict=True)
    )
    return math.expm1(max(0.0, (residual * scale - len(counts)) / sum(counts)))


def _rising(values: Sequence[float]) -> tuple[list[float], int]:
    """The least-squares non-decreasing fit of ``values`` (pooling adjacent violators) and
    the number of its blocks."""
    blocks: list[list[float]] = []  # [sum, count]
    for value in values:
        blocks.append([value, 1.0])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] > blocks[-1][0] / blocks[-1][1]:
            total, count = blocks.pop()
            blocks[-1][0] += total
            blocks[-1][1] += count
    fitted = [total / count for total, count in blocks for _ in range(int(count))]
    return fitted, len(blocks)
