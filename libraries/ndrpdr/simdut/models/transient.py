"""The ``transient`` model: a capacity cliff plus rare forwarding interruptions."""

from __future__ import annotations

import math
import random
from typing import ClassVar

from ndrpdr.simdut.models.base import (
    ModelBase,
    check_non_negative,
    check_positive,
    cliff_loss_ratio,
    cliff_throughput,
    highest_passing,
    offered_frames,
    whole_frames_lost,
)

_MEDIAN = 0.5
"""Pass probability that defines the truth: the median trial meets the goal."""

_BISECTION_STEPS = 100
"""Bisection steps for the truth; each halves the bracket, so the result is exact in floats."""

_POISSON_TAIL_SIGMAS = 12.0
"""Poisson terms beyond mean + this many standard deviations are neglected (< 1e-30)."""


def _poisson_log_pmf(count: int, mean: float) -> float:
    """``log P(N == count)`` for ``N ~ Poisson(mean)``, ``mean > 0``."""
    return count * math.log(mean) - mean - math.lgamma(count + 1)


def _prob_poisson_not_above(mean_n: float, mean_m: float) -> float:
    """``P(N <= M)`` for independent ``N ~ Poisson(mean_n)``, ``M ~ Poisson(mean_m)``.

    Sums ``P(N == n) * P(M >= n)`` over ``n``, dropping the far tail of N.
    """
    if mean_n <= 0.0:
        return 1.0
    if mean_m <= 0.0:
        return math.exp(-mean_n)
    top = int(mean_n + _POISSON_TAIL_SIGMAS * math.sqrt(mean_n) + 30.0)
    total = 0.0
    cdf_m_below = 0.0  # P(M < n)
    for count in range(top + 1):
        p_n = math.exp(_poisson_log_pmf(count, mean_n))
        total += p_n * max(0.0, 1.0 - cdf_m_below)
        cdf_m_below += math.exp(_poisson_log_pmf(count, mean_m))
    return min(1.0, total)


class TransientInterrupts(ModelBase):
    """A capacity cliff whose forwarding stops now and then for a few milliseconds.

    Models the transient interruptions of ETSI GS NFV-TST 009 Annex B: a
    worker thread descheduled by the kernel, a page fault, an SMI, a
    control-plane update holding a lock. Interruptions start as a Poisson
    process of rate ``interrupts_per_s`` [1/s]; their lengths are
    independent and exponential with mean ``interrupt_s`` [s] (so long
    stalls are rare but possible). During a stall of ``t`` seconds at load
    ``L`` [pps] the ``buffer_frames`` (``B``) receive buffer absorbs the
    first frames and the rest is lost: ``ceil(L * t - B)`` frames if
    ``L * t > B`` (a frame partly arrived counts as lost), else none. A stall
    starting inside a trial counts whole. Above ``capacity_pps`` the
    cliff's loss comes on top. The number of random draws of a trial
    depends on its duration only, never on its load.

    Longer trials meet more stalls, so they lose more often: RFC 9971's
    "mild increase" of loss with trial duration.

    Truth: the highest load at which a trial of that duration meets the
    loss-ratio goal with probability 0.5 (the median trial), never above
    the cliff truth ``C / (1 - r)``. Lossy stalls form a Poisson process of
    mean ``N = rate * D * exp(-B / (L * mean))`` per trial, and by the
    exponential's memorylessness each loses an exponential number of
    frames of mean ``L * mean``. A trial then passes with probability
    ``P(N <= M)``, ``M`` Poisson of mean ``allowance / (L * mean)``, where
    the allowance is ``r * L * D`` frames less the cliff's loss. That
    probability falls with load, and the truth is found by bisection on it
    (deterministic; frame rounding neglected). For ``r == 0`` it is closed
    form: ``min(C, B / (mean * ln(rate * D / ln 2)))``, or ``C`` when
    ``rate * D <= ln 2``. Around the truth the pass probability is flat:
    the lossy-stall count grows like ``L ** ln(rate * D / ln 2)``.
    """

    NAME: ClassVar[str] = "transient"
    DETERMINISTIC: ClassVar[bool] = False

    def __init__(
        self,
        capacity_pps: float,
        interrupts_per_s: float,
        interrupt_s: float,
        buffer_frames: float,
    ) -> None:
        """Cliff ``capacity_pps`` [pps], stall rate [1/s], mean stall [s], buffer [frames]."""
        self.capacity_pps = check_positive("capacity_pps", capacity_pps)
        self.interrupts_per_s = check_non_negative("interrupts_per_s", interrupts_per_s)
        self.interrupt_s = check_positive("interrupt_s", interrupt_s)
        self.buffer_frames = check_non_negative("buffer_frames", buffer_frames)
        self._truths: dict[tuple[float, float], float] = {}

    def pass_probability(self, duration_s: float, load_pps: float, loss_ratio: float) -> float:
        """Probability that a ``duration_s`` [s] trial at ``load_pps`` [pps] meets ``loss_ratio``.

        Frames are treated as continuous (rounding to whole frames is neglected).
        """
        duration_s, loss_ratio = self._check_goal(duration_s, loss_ratio)
        if load_pps <= 0:
            return 1.0
        excess_pps = max(0.0, load_pps - self.capacity_pps)
        allowance = (loss_ratio * load_pps - excess_pps) * duration_s
        if allowance < 0:
            return 0.0
        frames_per_stall = load_pps * self.interrupt_s
        lossy_share = math.exp(-self.buffer_frames / frames_per_stall)
        lossy_mean = self.interrupts_per_s * duration_s * lossy_share
        return _prob_poisson_not_above(lossy_mean, allowance / frames_per_stall)

    def true_throughput(self, duration_s: float, loss_ratio: float) -> float:
        """Load [pps] whose median ``duration_s`` [s] trial just meets ``loss_ratio``."""
        duration_s, loss_ratio = self._check_goal(duration_s, loss_ratio)
        key = (duration_s, loss_ratio)
        if key not in self._truths:
            if loss_ratio == 0.0:
                self._truths[key] = self._ndr_closed_form(duration_s)
            else:
                self._truths[key] = self._bisect(duration_s, loss_ratio)
        return self._truths[key]

    def _ndr_closed_form(self, duration_s: float) -> float:
        """Zero-loss truth [pps]: the load where ``P(no lossy stall) == 0.5``."""
        stalls = self.interrupts_per_s * duration_s
        if stalls <= math.log(2.0):
            return self.capacity_pps
        limit = self.buffer_frames / (self.interrupt_s * math.log(stalls / math.log(2.0)))
        return min(self.capacity_pps, limit)

    def _bisect(self, duration_s: float, loss_ratio: float) -> float:
        """Highest load [pps] with pass probability >= 0.5, by bisection."""
        high = cliff_throughput(self.capacity_pps, loss_ratio)
        if self.pass_probability(duration_s, high, loss_ratio) >= _MEDIAN:
            return high
        low = high
        while self.pass_probability(duration_s, low, loss_ratio) < _MEDIAN:
            high, low = low, low / 2.0
            if low < 1e-12 * self.capacity_pps:
                return 0.0
        return highest_passing(
            low,
            high,
            lambda load: self.pass_probability(duration_s, load, loss_ratio) >= _MEDIAN,
            _BISECTION_STEPS,
        )

    def trial(self, duration_s: float, load_pps: float, rng: random.Random) -> tuple[int, int]:
        """Run one trial: ``(offered_count, forwarded_count)`` [frames]."""
        duration_s, load_pps = self._check_trial(duration_s, load_pps)
        stalls_s = self._draw_stalls(duration_s, rng)
        offered = offered_frames(duration_s, load_pps)
        if offered == 0:
            return 0, 0
        lost = whole_frames_lost(offered, cliff_loss_ratio(self.capacity_pps, load_pps))
        for stall_s in stalls_s:
            over = load_pps * stall_s - self.buffer_frames
            if over > 0:
                lost += math.ceil(over)
        lost = min(offered, lost)
        return offered, offered - lost

    def _draw_stalls(self, duration_s: float, rng: random.Random) -> list[float]:
        """Lengths [s] of the stalls starting within ``duration_s`` [s]."""
        stalls: list[float] = []
        if self.interrupts_per_s <= 0:
            return stalls
        start_s = rng.expovariate(self.interrupts_per_s)
        while start_s < duration_s:
            stalls.append(rng.expovariate(1.0 / self.interrupt_s))
            start_s += rng.expovariate(self.interrupts_per_s)
        return stalls

    def parameters(self) -> dict[str, float]:
        """Capacity [pps], stall rate [1/s], mean stall length [s], buffer [frames]."""
        return {
            "capacity_pps": self.capacity_pps,
            "interrupts_per_s": self.interrupts_per_s,
            "interrupt_s": self.interrupt_s,
            "buffer_frames": self.buffer_frames,
        }
