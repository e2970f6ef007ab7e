"""The soak search's loss model and its posterior over a grid of critical loads.

Two models: this module's (Poisson counts around a smooth loss-ratio curve), and
once the trials show bursts (``soakbursty.contradicted``: a trial lost far beyond the
target while one of as many frames, or too many for a buffer, at a load no lower did
not), ``soakbursty``'s model of how often trials lose (per trial, or in spells of a
slower capacity: ``soakspells.spell_row``). Both know the frames a trial may lose
whatever its length (``soakbursty.per_trial_frames``: a longer trial at a load no
lower allowed that many, kept within its allowance and lost far fewer than a smooth
curve gives it; or trials at about one load lost them whatever their length:
``soakbursty.at_one_load``): they vanish from the long-run average, and read as loss
they pulled the estimate down, or read as bursts. The bursty model takes them off
every trial's loss before it asks whether the trial lost; this one reads up to that
many frames of each trial as maybe lost, at the cost of the chance of that count
(``log_likelihood_row``'s slack: taken off every trial, a trial spared them would
read as losing less than it did, and the estimate went above the truth). A change of
either (more such frames, or bursts seen or explained away) rebuilds the grids from
every trial (``Posterior.add``, ``Posterior.reach``).

Once the trials show a buffer that hides the first excess frames of every
trial (``soakbuffer.estimate``: the lossy trials forwarded the capacity
times their duration plus one buffer), this model reads them as a cliff
past which the loss grows linearly with the load, less that buffer, alone:
no trial of a soak's length sees the long-run capacity, and an exponential
curve fitted to what they see extrapolates it too far down.

Model (ours): a trial that was meant to send ``n`` frames at load ``L``
[pps] loses a Poisson number of frames of mean ``n * f(L)``, where the
loss-ratio curve is ``f(L) = min(1, r * exp((L - c) / (w * c)))``: it
passes the target loss ratio ``r`` exactly at the critical load ``c``
[pps] and grows by a factor ``e`` every ``w * c`` pps above it (``w`` is the
curve's relative width); or the capacity cliff itself, ``f(L) = 1 - C / L``
above ``C = c (1 - r)``, 0 below (``_cliff_log_mean``): a real DUT's loss
grows linearly past its capacity, not exponentially, and no width of the
exponential curve fits both a trial at ``c`` that lost its allowance and
one a few targets above it that lost that much again (on a cliff with a
few frames lost per trial, sim ``sporadic``, every interval ended 1e-8 to
4e-8 above the truth). Prior: ``c`` log-uniform over [min load, max load],
the curve one of ``WIDTHS`` (a cliff to a slope of 10 %, log-uniform) or
the capacity cliff, each alike.
The posterior is summed exactly over a grid (no sampling, so the same
trials always give the same answer).

Honesty against a wrong model: counts saturate at ``cap`` frames
(``max(CAP_MIN_FRAMES, CAP_TARGETS * r * n)``), the observed ones and the
expected ones alike (the likelihood of ``min(lost, cap)`` under a Poisson
mean of ``min(n * f, cap)``). A trial that lost more says only "at least
cap": one far above the critical load, or a burst of loss, tells that
``f`` is large there without forcing the curve's shape through a million
lost frames. And a trial that lost little where the curve expects far more
costs at most ``cap`` nats, not millions: a load that misled once (a
buffer hid a short trial's overload) can be outvoted by later trials
instead of ruling the posterior forever.

Trials count in proportion to their duration, relative to the longest
trial so far (the log-likelihood is tempered by that weight): a soak asks
about long-run behaviour, and short early trials can mislead about it (a
buffer hides a load above the capacity for a second, a rare burst of loss
weighs more in a short trial), so as trials grow the short ones fade.
This also widens the posterior, never narrows it.

Counts that vary more than Poisson's widen the result's interval by their
``soakspread.overdispersion`` (``soakspread.estimate``); a bursty
posterior's result is read on a grid wide enough for it (``soakwide``).

The grid of ``c`` is geometric; when the posterior has gathered in a small
part of it, the grid is rebuilt around that part from every trial (finer
steps, same prior density), and widened again if mass reaches a rebuilt
grid's edge. A coarse grid over the whole range is kept as well: when its
best point explains the trials clearly better than any of the fine grid's
(later trials contradict earlier ones, which a fine grid alone cannot
see), the fine grid starts over from the coarse posterior's central part.
"""

from __future__ import annotations

import copy
import dataclasses
import math
from collections.abc import Sequence

from ndrpdr.search.soak import soakbuffer, soakbursty, soakestimate, soakspells
from ndrpdr.search.soak.soakestimate import Estimate
from ndrpdr.search.trial import TrialResult

#: Relative widths ``w`` of the loss-ratio curve the prior spans: 1e-9 (a cliff) .. 1e-1.
WIDTHS: tuple[float, ...] = tuple(10.0 ** (-9.0 + 2.0 * i / 3.0) for i in range(13))
_INVERSE_WIDTHS = tuple(1.0 / w for w in WIDTHS)
#: Critical loads in the grid.
GRID_POINTS = 64
#: A trial's loss counts in full up to max(this, CAP_TARGETS x the frames the target allows).
CAP_MIN_FRAMES = 10.0
CAP_TARGETS = 4.0
#: The grid is rebuilt when the posterior's central (1 - 2 TAIL) mass spans less than
#: ZOOM_SHARE of the grid's log-width, to that span widened by itself on both sides.
TAIL = 1e-4
ZOOM_SHARE = 0.25
#: A rebuilt grid widens when more than this posterior mass sits in its end point.
EDGE_MASS = 1e-3
#: The fine grid starts over when the coarse grid's best point explains the trials better
#: than the fine grid's best by more than this [log-likelihood, nats].
COARSE_BETTER_BY = 3.0
#: The mean [frames] a curve gives where it expects none (a frame lost there costs 30 nats).
_LOG_FLOOR = -30.0
_FLOOR = math.exp(_LOG_FLOOR)
#: No grid narrower than this relative width (float steps of loads).
MIN_RELATIVE_SPAN = 1e-9
#: Zooms at once after the frames lost per trial moved (``Posterior.add``).
REREAD_ZOOMS = 8


@dataclasses.dataclass(frozen=True)
class Observation:
    """What the fit reads of a trial: load [pps], frames meant to be sent, frames lost.

    Unsent frames count as lost (RFC 9971), as in ``TrialResult.loss_ratio``.
    """

    load: float
    frames: float
    lost: float
    duration: float

    @classmethod
    def of(cls, trial: TrialResult) -> Observation:
        """The observation of a trial."""
        frames = max(trial.offered_count, trial.intended_count or 0.0)
        return cls(trial.load, frames, trial.loss_ratio * frames, trial.duration)


def less_per_trial(seen: Sequence[Observation], per_trial: float) -> list[Observation]:
    """The observations with ``per_trial`` frames (``soakbursty.per_trial_frames``) taken
    off each loss: loss that does not grow with a trial's length is no long-run loss."""
    if per_trial <= 0.0:
        return list(seen)
    return [dataclasses.replace(o, lost=max(0.0, o.lost - per_trial)) for o in seen]


def as_read(seen: Sequence[Observation], target: float) -> tuple[float, list[Observation]]:
    """How the fit reads the trials: the frames a trial may lose whatever its length
    (``soakbursty.per_trial_frames``) and the observations with those taken off."""
    per_trial = soakbursty.per_trial_frames(seen, target)
    return per_trial, less_per_trial(seen, per_trial)


def log_likelihood_row(
    obs: Observation,
    critical: float,
    target: float,
    slack: float = 0.0,
    buffer: soakbuffer.Buffer | None = None,
) -> list[float]:
    """log P(obs | c=critical, w) for every ``w`` of ``WIDTHS`` and the capacity cliff (or,
    given a ``buffer``, of the one cliff less that buffer), up to a constant of the
    observation alone (one row of the grid: the observation's terms are worked out once).

    slack: up to this many of the frames lost may be lost whatever the trial's length
    (``soakbursty.per_trial_frames``): the curve's loss is then any count from
    ``lost - slack`` to ``lost``, and each ``w`` is given the likeliest of them, less the
    chance of the count spared (one in ``slack + 1``) unless that is ``lost`` itself.
    Taking the slack off every trial would read a trial that was spared those frames as
    losing less than it did, and put the estimate above the truth.
    """
    if obs.frames <= 0 or obs.load <= 0:
        return [0.0] * (1 if buffer is not None else len(WIDTHS) + 1)
    cap = max(CAP_MIN_FRAMES, CAP_TARGETS * target * obs.frames)
    log_cap, log_frames, lost = math.log(cap), math.log(obs.frames), min(obs.lost, cap)
    log_target, excess = math.log(target), (obs.load - critical) / critical
    # min(log_frames + min(0.0, shift), log_cap) spelt out: the soak's hottest loop
    # (13 widths x 64 loads x every trial at every regrid), the same values.
    if buffer is not None:
        log_means = [_cliff_log_mean(obs, critical, target, lost, log_cap, buffer)]
    else:
        log_means = []
        for inverse in _INVERSE_WIDTHS:
            shift = log_target + excess * inverse
            log_mean = log_frames + shift if shift < 0.0 else log_frames + 0.0
            log_means.append(log_cap if log_cap < log_mean else log_mean)
        log_means.append(_cliff_log_mean(obs, critical, target, lost, log_cap))
    exp = math.exp
    if slack <= 0.0:
        return [lost * log_mean - exp(log_mean) for log_mean in log_means]
    fewest = min(max(0.0, obs.lost - slack), cap)
    lgamma = math.lgamma
    # Taking a count below ``lost`` costs the chance of that many frames lost per trial
    # (one in slack + 1): a trial that was spared them reads best as it is.
    log_lost_factorial = lgamma(lost + 1.0) - math.log(slack + 1.0)
    row = []
    for log_mean in log_means:
        mean = exp(log_mean)
        as_is = lost * log_mean - mean
        if mean >= lost:
            row.append(as_is)
            continue
        count = max(mean, fewest)
        spared = count * log_mean - mean - lgamma(count + 1.0) + log_lost_factorial
        row.append(max(as_is, spared))
    return row


#: A cliff that hides nothing (``_cliff_log_mean`` of the plain capacity cliff).
_NO_BUFFER = soakbuffer.Buffer(0.0, 0.0)


def _cliff_log_mean(
    obs: Observation,
    critical: float,
    target: float,
    lost: float,
    log_cap: float,
    buffer: soakbuffer.Buffer = _NO_BUFFER,
) -> float:
    """The log mean [frames] of a cliff at ``critical`` past which the loss grows linearly
    with the load (a trial loses what it sends beyond the capacity ``critical x (1 -
    target)``, below it nothing), less ``buffer`` (the one in its range nearest the count
    ``lost``)."""
    beyond = (obs.load - critical * (1.0 - target)) * obs.frames / obs.load
    mean = min(max(lost, beyond - buffer.high), beyond - buffer.low)
    return min(math.log(mean) if mean > _FLOOR else _LOG_FLOOR, log_cap)


class Posterior:
    """The posterior over (critical load, width) given the trials so far.

    ``coarse``: keep a whole-range grid that can move the fine one (see the module).
    """

    def __init__(
        self, target: float, min_load: float, max_load: float, *, coarse: bool = True
    ) -> None:
        self.target = target
        self.min_load = min_load
        self.max_load = max_load
        self.observations: list[Observation] = []
        self.bursty = False  # the trials showed bursts: the model of lossy trials (soakbursty)
        self.buffer: soakbuffer.Buffer | None = None  # the trials showed one (soakbuffer)
        self.size = soakbursty.NO_BURSTS  # bursty: the burst size as a power of the load
        self.rates = tuple(1.0 for _ in soakspells.SPELL_LEADS)  # bursty: spells' (spell_rates)
        self.per_trial = 0.0  # frames any trial may lose whatever its length (maybe lost)
        self.longest = 0.0  # the longest trial so far [s]: weights are durations over it
        self.rebuilds = 0
        self.tempering = 1.0  # the log-likelihood is divided by this (``soakspread.estimate``)
        self.coarse = Posterior(target, min_load, max_load, coarse=False) if coarse else None
        self._build(min_load, max_load)

    def _build(self, low: float, high: float, points: int = GRID_POINTS) -> None:
        self.loads = soakestimate.geometric(low, high, points)
        self.step = math.log(self.loads[1] / self.loads[0])  # the grid's log-load step
        self._log = [[0.0] * self.columns() for _ in self.loads]
        for obs in self.observations:
            self._fold(obs, 1.0, obs.duration / self.longest)

    def columns(self) -> int:
        """Columns of a grid row: widths and the capacity cliff, the bursty model's widths,
        or the one cliff less a buffer."""
        if self.bursty:
            return soakspells.columns()
        return 1 if self.buffer is not None else len(WIDTHS) + 1

    def add(self, trial: TrialResult) -> None:
        """Fold one trial in (and rebuild the grid when the posterior has moved or narrowed).

        Once the trials show bursts (``soakbursty.contradicted``), the grids are rebuilt
        under the bursty model from every trial.
        """
        obs = Observation.of(trial)
        self.add_fixed(obs)
        spared = False
        if self.coarse is not None:
            self.coarse.add_fixed(obs)
            per_trial, seen = as_read(self.observations, self.target)
            bursty = len(soakbursty.contradicted(seen, self.target)) >= soakbursty.MIN_CONTRADICTED
            size = soakbursty.burst_size(seen, self.target) if bursty else self.size
            rates = soakspells.spell_rates(seen, self.target) if bursty else self.rates
            buffer = None if bursty else soakbuffer.estimate(seen, self.target)
            if (
                (per_trial, bursty) != (self.per_trial, self.bursty)
                or (bursty and (self._size_moved(size) or self._spells_moved(size, rates)))
                or ((buffer is None) != (self.buffer is None))
                or (buffer is not None and not buffer.near(self.buffer))
            ):
                # Each grid is rebuilt on its range; once the frames lost per trial moved
                # (``spared``), the fine one on the coarse one's central part too (``reach``,
                # the coarse grid read anew first): it zoomed in where those frames, read as
                # loss, held the critical load, and widening twofold a trial sim ``sporadic``
                # seed 70002 ended 85 % below the truth.
                spared = per_trial != self.per_trial
                for posterior in (self.coarse, self):
                    posterior.per_trial, posterior.bursty = per_trial, bursty
                    posterior.buffer = buffer
                    posterior.size, posterior.rates = size, rates
                    own = posterior.loads[0], posterior.loads[-1]
                    posterior._build(*(posterior.reach() if spared else own))
            for _ in range(REREAD_ZOOMS if spared else 1):
                rebuilds = self.rebuilds
                self._regrid()
                if self.rebuilds == rebuilds:
                    break

    def reach(self) -> tuple[float, float]:
        """The range [pps] of the fine grid and the coarse posterior's central part (a coarse
        grid's own range)."""
        low, high = self.loads[0], self.loads[-1]
        if self.coarse is None:
            return low, high
        return min(low, self.coarse.quantile(TAIL)), max(high, self.coarse.quantile(1.0 - TAIL))

    def _size_moved(self, size: soakbursty.BurstSize) -> bool:
        """The burst size moved at the posterior's median (``soakbursty.size_moved``)."""
        return soakbursty.size_moved(size, self.size, self.quantile(0.5), self.target)

    def _spells_moved(self, size: soakbursty.BurstSize, rates: Sequence[float]) -> bool:
        """The bursts came to be read as spells or no longer, or are and a spells' rate
        moved (``soakspells.rates_moved``; unread, the rates change nothing)."""
        on = soakspells.spells_on(size)
        return on != soakspells.spells_on(self.size) or (
            on and soakspells.rates_moved(rates, self.rates)
        )

    def add_fixed(self, obs: Observation) -> None:
        """Fold one observation into this grid, never rebuilding it."""
        self.observations.append(obs)
        fade = 1.0
        if obs.duration > self.longest:
            fade = self.longest / obs.duration  # every earlier trial's weight shrinks
            self.longest = obs.duration
        self._fold(obs, fade, obs.duration / self.longest)

    def _fold(self, obs: Observation, fade: float, weight: float) -> None:
        """Every grid value becomes ``fade`` x itself + ``weight`` x the observation's term."""
        target = self.target
        read = less_per_trial([obs], self.per_trial)[0]
        is_lossy = soakbursty.lossy(read.lost, obs.frames, target)
        spells = self.bursty and soakspells.spells_on(self.size)  # else unread: left at 0
        unread = [0.0] * len(soakspells.SPELL_LEADS)  # (a change of spells_on rebuilds)
        for load, row in zip(self.loads, self._log, strict=True):
            if self.bursty:
                chance = soakbursty.chance_at(self.size, load, target)
                terms = soakbursty.bursty_row(obs.load, is_lossy, load, chance)
                terms += (
                    soakspells.spell_row(read, obs.duration, is_lossy, load, self.rates)
                    if spells
                    else unread
                )
            else:
                terms = log_likelihood_row(obs, load, target, self.per_trial, self.buffer)
            if fade == 1.0:  # fade x old is old: the same sum, one multiplication less
                row[:] = [old + weight * term for old, term in zip(row, terms, strict=True)]
            else:
                row[:] = [fade * old + weight * term for old, term in zip(row, terms, strict=True)]

    def best(self) -> float:
        """The highest (tempered) log-likelihood of any grid point (of the columns read: the
        spells' only once ``soakspells.spells_on``)."""
        unread = self.bursty and not soakspells.spells_on(self.size)
        return max(max(row[: len(soakbursty.WIDTHS) if unread else None]) for row in self._log)

    def log_densities(self) -> list[float]:
        """The log posterior density at each grid load (summed over widths, the prior in;
        up to a constant), the log-likelihood divided by ``tempering``."""
        if self.tempering != 1.0:
            share = 1.0 / self.tempering
            return [soakestimate.log_sum_exp([share * v for v in row]) for row in self._log]
        if self.bursty:
            prior = soakspells.log_prior(self.size)
            return [
                soakestimate.log_sum_exp([v + p for v, p in zip(row, prior, strict=True)])
                for row in self._log
            ]
        return [soakestimate.log_sum_exp(row) for row in self._log]

    def weights(self) -> list[float]:
        """Posterior mass of each grid load, normalised (``log_densities``)."""
        return soakestimate.shares(self.log_densities())

    def quantile(self, share: float, weights: Sequence[float] | None = None) -> float:
        """The load below which ``share`` of the posterior lies (interpolated in log-load).

        Each grid load's mass is spread evenly over its cell (half a step either side).
        """
        weights = self.weights() if weights is None else weights
        steps = [self.step] * len(self.loads)
        return soakestimate.quantile(self.loads, weights, steps, share, self.ends())

    def trial_load(self, duration: float, critical: float) -> float:
        """The load [pps] at which a trial of ``duration`` [s] tells most about a critical
        load ``critical`` [pps]: there, or once the trials show a buffer, above it by what
        the buffer hides from such a trial (below that load the trial would lose nothing
        whatever the critical load nearby)."""
        if self.buffer is None:
            return critical
        hidden = (self.buffer.low + self.buffer.high) / 2.0 / duration
        return min(self.max_load, critical + hidden / (1.0 - self.target))

    def estimate(self) -> Estimate:
        """Mean, stdev, median and the 95 % central interval of the critical load [pps]."""
        steps = [self.step] * len(self.loads)
        return soakestimate.summarize(self.loads, self.weights(), steps, self.ends())

    def ends(self) -> tuple[float, float]:
        """The load range [pps] the critical load is sought in."""
        return self.min_load, self.max_load

    def regridded(
        self, low: float, high: float, points: int = GRID_POINTS, tempering: float = 1.0
    ) -> Posterior:
        """A copy on a grid of ``points`` loads from ``low`` to ``high`` [pps], its
        log-likelihood divided by ``tempering``, with no coarse grid (it follows no trial)."""
        copied = copy.copy(self)
        copied.coarse, copied.tempering = None, tempering
        copied._build(low, high, points)
        return copied

    def _regrid(self) -> None:
        assert self.coarse is not None
        low, high = self.loads[0], self.loads[-1]
        if self.coarse.best() > self.best() + COARSE_BETTER_BY:
            self.rebuilds += 1
            self._build(self.coarse.quantile(TAIL), self.coarse.quantile(1.0 - TAIL))
            return
        weights = self.weights()
        span = math.log(high / low)
        q_low, q_high = self.quantile(TAIL, weights), self.quantile(1.0 - TAIL, weights)
        new_low, new_high = low, high
        if weights[0] > EDGE_MASS and low > self.min_load:
            new_low = low * math.exp(-span)
        if weights[-1] > EDGE_MASS and high < self.max_load:
            new_high = high * math.exp(span)
        central = math.log(q_high / q_low)
        if (new_low, new_high) == (low, high) and central < ZOOM_SHARE * span:
            margin = max(central, MIN_RELATIVE_SPAN)
            new_low, new_high = q_low * math.exp(-margin), q_high * math.exp(margin)
        new_low, new_high = max(self.min_load, new_low), min(self.max_load, new_high)
        if (new_low, new_high) == (low, high) or math.log(new_high / new_low) < MIN_RELATIVE_SPAN:
            return
        self.rebuilds += 1
        self._build(new_low, new_high)
