"""The soak fit's model for bursty loss: how often trials lose, around the average loss ratio.

What a soak estimates is the load where the *long-run average* loss ratio
meets the target (CSIT's PLRsearch's definition). On a DUT whose loss comes
in bursts (rare interrupts, a noisy knee, spells of contention, a level
that moves from trial to trial) most trials near that load lose nothing and
a few lose a share of their frames: the counts are overdispersed, and a
Poisson likelihood reads every clean trial as proof that the average is
tiny there, so its interval claims a precision the trials do not have (on
the simulator: the truth in 0-35 % of the intervals, the estimate losing
1e3-1e5 times the target).

This model (used once a soak's trials show bursts: ``contradicted``) reads
each trial as lossy (it lost more than the target allows) or clean. The
average loss ratio is the chance of a lossy trial times the loss ratio of a
lossy trial, and the latter is taken from the trials (``burst_size``: a
power of the load fitted to the bursts, so that bursts that shrink as the
load falls, as in spells of a slower capacity, count as such); so the
critical load ``c`` is where the chance of a lossy trial is
``chance = target / size(c)`` (``chance_at``), and the chance is a power
of the load through it, ``chance (L / c)^(1 / w)`` (at most 1), its
steepness ``w`` over ``WIDTHS`` (a cliff to a chance that grows tenfold
over a quarter of the load) with a flat prior in ``log w``. The trials
choose how far below the lossy ones the chance becomes small enough. Bursts that
shrink steeply as the load falls are read as spells of a slower capacity too
(``soakspells``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple, Protocol

#: Relative widths ``w`` (log-load per e-fold of the chance of a lossy trial): 1e-9 (a cliff)
#: .. 1 (rare long interrupts: the chance falls slowly over a wide range of loads).
WIDTHS: tuple[float, ...] = tuple(10.0 ** (-9.0 + i / 3.0) for i in range(28))
#: A trial losing more than this many times the target's allowance is far beyond it.
BURST_TARGETS = 10.0
#: ... and more than this many frames (a short trial's allowance is a fraction of a frame).
MIN_FRAMES = 10.0
#: This many contradicted trials make a soak's loss bursty: the fit reads how often trials
#: lose from then on, and the record and the warning say so. One is enough: no smooth loss
#: curve and no deep buffer gives one, and a soak that switches places its trials where few
#: more contradictions arise.
MIN_CONTRADICTED = 1

_INVERSE_WIDTHS = tuple(1.0 / w for w in WIDTHS)
#: The least chance of a lossy trial at the critical load (a float's).
_LOG_TINY = math.log(1e-300)
#: Widths above this are less likely a priori, as ``(WIDE / w) ** WIDE_POWER``,
WIDE = 0.03
WIDE_POWER = 4.0
#: ... or ``** EVENTS_POWER`` once the bursts are events (``events``): a stall's chance
#: falls slowly as the load falls (past a buffer: ``exp(-B / (L m))``), and the trials
#: cannot tell that from a steep fall (docs: "Bursts in time"). With 4, transient
#: lost 43x the target at the median estimate on seeds 40000 and 22x on 60000; with 3 its
#: estimate is above the truth on half the seeds (51.5 % of 240); with 3 for every burst,
#: noisyknee's coverage fell to 85 % on 40000 (its bursts grow with the trial).
EVENTS_POWER = 3.0
#: The log prior of each width (flat in log w up to WIDE), and of each when bursts are events.
LOG_PRIOR = tuple(WIDE_POWER * min(0.0, math.log(WIDE / w)) for w in WIDTHS)
LOG_PRIOR_EVENTS = tuple(EVENTS_POWER * min(0.0, math.log(WIDE / w)) for w in WIDTHS)


class Counted(Protocol):
    """What the model reads of a trial: load [pps], frames meant to be sent, frames lost."""

    @property
    def load(self) -> float: ...
    @property
    def frames(self) -> float: ...
    @property
    def lost(self) -> float: ...


def far_beyond(trial: Counted, loss_ratio: float) -> bool:
    """The trial lost over ``BURST_TARGETS`` x its allowance and over ``MIN_FRAMES``."""
    return lost_far_beyond(trial.lost, trial.frames, loss_ratio)


def lost_far_beyond(lost: float, frames: float, loss_ratio: float) -> bool:
    """``lost`` frames are over ``BURST_TARGETS`` x the allowance of ``frames`` and over
    ``MIN_FRAMES`` (``far_beyond`` of a count that is no trial's)."""
    return lost > max(BURST_TARGETS * loss_ratio * frames, MIN_FRAMES)


def contradicted(seen: Sequence[Counted], loss_ratio: float) -> list[tuple[int, int]]:
    """Pairs (a trial that lost over ``BURST_TARGETS`` x its allowance and ``MIN_FRAMES``,
    a trial of as many frames or more at a load no lower, less ``steepest_share`` of it
    (the target at least), that lost at most its allowance, an allowance below the first
    one's loss): no smooth loss curve gives such a pair, and no deep buffer does (as many
    excess frames or more over any capacity). Where the second allows as many frames as
    the first lost, a few frames lost per trial whatever its length explain both
    (``per_trial_frames``).

    The ``steepest_share`` below: a soak whose trials at its median keep losing moves the
    median down by a few targets per trial, so each later (longer) clean trial sat just
    below the lossy ones, and interrupts read as a cliff to the end (sim ``transient``:
    an estimate at the capacity, 10 times the truth).

    A clean trial of fewer frames counts too when only a buffer deeper than
    ``DEEPEST_BUFFER_S`` explains the pair (``buffer_seconds``): a soak held on spells of
    a slower capacity ran its longer trials lossy (0.3-1.1 %) a hair above shorter clean
    ones, read a cliff there and never switched (sim ``spells`` seed 50011: the estimate
    4.6 % above the truth, losing 4.7e4 times the target)."""
    found: list[tuple[int, int]] = []
    for index, trial in enumerate(seen):
        if not far_beyond(trial, loss_ratio):
            continue
        floor = trial.load * (1.0 - max(loss_ratio, steepest_share(trial, loss_ratio)))
        for other_index, other in enumerate(seen):
            if other_index == index or other.load < floor:
                continue
            if other.frames < trial.frames and buffer_seconds(trial, other) <= DEEPEST_BUFFER_S:
                continue
            allowance = loss_ratio * other.frames
            if other.lost <= allowance < trial.lost:
                found.append((index, other_index))
                break
    return found


#: No DUT's buffer hides more than this many seconds of excess frames (the sim's
#: ``duration`` holds 0.1-0.3 s at its capacity; rings and queues hold milliseconds).
DEEPEST_BUFFER_S = 1.0


def buffer_seconds(lossy_trial: Counted, clean: Counted) -> float:
    """The shallowest buffer [s of the lossy trial's load] with which a DUT of any capacity
    ``C`` loses the lossy trial's frames (``(L D - C D) - B``) and at most the shorter clean
    trial's (inf when none does, or the clean trial is no shorter): ``B`` falls as ``C``
    rises, and ``C`` is at most ``(F2 - F1 - lost2 + lost1) / (D2 - D1)`` (F meant frames,
    D seconds)."""
    longer, shorter = lossy_trial.frames / lossy_trial.load, clean.frames / clean.load
    if longer <= shorter:
        return math.inf
    extra = lossy_trial.frames - clean.frames - lossy_trial.lost + clean.lost
    if extra <= 0.0:
        return math.inf
    capacity = extra / (longer - shorter)
    return (lossy_trial.frames - capacity * longer - lossy_trial.lost) / lossy_trial.load


#: No DUT's loss ratio grows more than this many times as fast with the load as a capacity
#: cliff's (a forwarding rate that falls as the load rises: receive livelock; the sim's
#: ``overload`` falls up to 3 times as fast as the load rises, a 4 times steeper loss).
STEEPEST = 8.0
#: ... and ``contradicted`` looks no further below a lossy trial than this many targets (a
#: share of its load): a noisy knee whose bursts lose a few percent otherwise switched to
#: bursts while its trials were short (seeds 7000: 98 -> 82 % covered).
NEAREST_TARGETS = 100.0


def steepest_share(trial: Counted, loss_ratio: float) -> float:
    """How far below a trial's load (a share of it) a trial that kept within ``loss_ratio``
    cannot be on a DUT whose loss is no steeper than ``STEEPEST`` cliffs: a cliff that
    loses the trial's ratio ``p`` starts ``p`` below its load, one ``STEEPEST`` times as
    steep ``p / STEEPEST`` below it (at most ``NEAREST_TARGETS`` x ``loss_ratio``)."""
    if trial.frames <= 0:
        return 0.0
    share = max(0.0, trial.lost / trial.frames - loss_ratio) / STEEPEST
    return min(share, NEAREST_TARGETS * loss_ratio)


def per_trial_frames(seen: Sequence[Counted], loss_ratio: float) -> float:
    """Frames a trial may lose whatever its length (0 when the trials show none): the most
    lost by a trial when a trial of as many frames or more, at a load no lower, allowed that
    many, lost within its allowance, and lost far less than the first trial's loss ratio
    gives on its frames: the first lost far beyond its own allowance (as ``contradicted``
    reads it), or a smooth loss curve would have the second lose at least
    ``lost x its frames / the first's frames``, of which it lost so few that a Poisson count
    does it less than once in ``1 / IMPLAUSIBLE`` times (``implausibly_few``), and less
    than a ``SPREAD``-th of it (a loss ratio that moves from trial to trial moves so far).

    Loss that does not grow with a trial's length (a task preempting a worker now and then,
    a stray frame at a trial's start) vanishes from the long-run average a soak estimates;
    the fit takes this many frames off every trial's loss. No smooth loss curve gives such
    a pair: the longer trial, at a load no lower, kept a far lower loss ratio. Trials at
    about one load can show such loss too (``at_one_load``): the larger reading counts.
    """
    most = 0.0
    for trial in seen:
        if trial.lost <= most or trial.frames <= 0:
            continue
        beyond = far_beyond(trial, loss_ratio)
        for other in seen:
            if other.load < trial.load or other.frames < trial.frames:
                continue
            allowance = loss_ratio * other.frames
            if other.lost > allowance or trial.lost > allowance:
                continue
            expected = trial.lost * other.frames / trial.frames
            if other.lost * SPREAD > expected and not beyond:
                continue  # within the spread of loss ratios from trial to trial
            if beyond or implausibly_few(other.lost, expected):
                most = trial.lost
                break
    return max(most, at_one_load(seen, loss_ratio))


#: ``at_one_load``: trials within this share of a lossy trial's load count as at its load
#: (a soak held at one load by a few frames lost per trial walks a hair at a time, up to
#: 1.3 % apart on the simulator's ``sporadic``),
ONE_LOAD = 0.03
#: ... their durations span this factor or more,
DURATION_SPAN = 10.0
#: ... a chance per trial tells which of them lost better than a rate per second by this
#: many nats (each has one parameter; with 2-5 lossy trials among 15-30 the gain is -1.5 to
#: 3.9 nats: with 5, sporadic missed 92, 92, 88, 92 and 82 % of 40 on seeds 11000, 7000,
#: 30000, 40000 and 50000; with 3, 95, 95, 90, 95 and 90 %),
PER_TRIAL_BY = 3.0
#: ... the frames the lossy ones lost grow more slowly than this power of their duration
#: (loss per second grows as its first power),
GROWTH_POWER = 0.5
#: ... and none of them lost more than this many frames: a few frames per trial, not a
#: share of the trial (a loss ratio that moves from trial to trial, sim ``plateau``, lost
#: hundreds of frames in trials whose count did not grow with their duration).
MOST_PER_TRIAL = 100.0


def at_one_load(seen: Sequence[Counted], loss_ratio: float) -> float:
    """Frames a trial may lose whatever its length, read from trials at about one load (0
    when they show none): the most lost by a lossy trial among the trials within
    ``ONE_LOAD`` of a trial that lost far beyond its allowance (``far_beyond``), when those
    trials' durations span ``DURATION_SPAN`` or more, at least two of them kept within
    their allowance, none lost over ``MOST_PER_TRIAL`` frames, whether a trial lost is
    told better by a chance per trial than by a rate per second by ``PER_TRIAL_BY`` nats
    or more (``per_trial_gain``), and the lossy ones' lost frames do not grow with their
    duration (``GROWTH_POWER``).

    ``per_trial_frames`` needs a longer trial at a load no lower whose allowance covers
    the first one's loss; a soak held low by such loss walks down a hair at a time and
    never runs one (sim ``sporadic``: 4 of 40 seeds from 11000 ended 84-94 % below the
    truth). Here a longer trial need not allow the loss: a per-second loss (interrupts, spells)
    makes long trials lossy more often than short ones, and a loss ratio (a noisy knee)
    grows their lost frames with their length.
    """
    most = 0.0
    for anchor in seen:
        if anchor.frames <= 0 or anchor.lost > MOST_PER_TRIAL:
            continue
        if not far_beyond(anchor, loss_ratio):
            continue
        near = [o for o in seen if o.frames > 0 and abs(o.load / anchor.load - 1.0) <= ONE_LOAD]
        lossy_ones = [o for o in near if lossy(o.lost, o.frames, loss_ratio)]
        clean = [o for o in near if not lossy(o.lost, o.frames, loss_ratio)]
        durations = [o.frames / o.load for o in near]
        if (
            len(clean) < 2
            or max(o.lost for o in lossy_ones) > MOST_PER_TRIAL
            or max(durations) < DURATION_SPAN * min(durations)
            or per_trial_gain(lossy_ones, clean) < PER_TRIAL_BY
        ):
            continue
        if lost_grows_slowly(lossy_ones, CLEARLY):
            most = max(most, *(o.lost for o in lossy_ones))
    return most


def lost_grows_slowly(trials: Sequence[Counted], errors: float = 0.0) -> bool:
    """The trials' lost frames (each over 0) grow more slowly than ``GROWTH_POWER`` of
    their duration: the least-squares slope of their logs, less ``errors`` standard errors
    of it (from three trials on)."""
    xs = [math.log(o.frames / o.load) for o in trials]
    return least_squares_slope(xs, [math.log(o.lost) for o in trials], errors) <= GROWTH_POWER


#: ``at_one_load``: per-trial frames drawn at random (1-50 on the sim's ``sporadic``) scatter
#: the slope; only one this many standard errors above ``GROWTH_POWER`` says they grow.
CLEARLY = 2.0


def per_trial_gain(lossy_ones: Sequence[Counted], clean: Sequence[Counted]) -> float:
    """How much better [nats] a chance per trial (the share that lost) tells which trials
    lost than a rate per second (a trial of ``D`` s lost with chance ``1 - exp(-r D)``, at
    the likeliest ``r``), each at its likeliest; both lists non-empty."""
    count, total = len(lossy_ones), len(lossy_ones) + len(clean)
    share = count / total
    per_trial = count * math.log(share) + (total - count) * math.log(1.0 - share)
    lossy_seconds = [o.frames / o.load for o in lossy_ones]
    clean_seconds = sum(o.frames / o.load for o in clean)
    rate = likeliest_rate(lossy_seconds, clean_seconds)
    per_second = sum(math.log(-math.expm1(-rate * d)) for d in lossy_seconds)
    return per_trial - (per_second - rate * clean_seconds)


def likeliest_rate(lossy_seconds: Sequence[float], clean_seconds: float) -> float:
    """The rate ``r`` [1/s] under which trials of ``lossy_seconds`` [s] lost (each with
    chance ``1 - exp(-r D)``) and trials of ``clean_seconds`` [s] in all did not are
    likeliest (``lossy_seconds`` not empty; at most ``exp(10)``)."""

    def rising(log_rate: float) -> bool:  # the log-likelihood still grows with the rate
        rate = math.exp(log_rate)
        gain = sum(d / math.expm1(rate * d) for d in lossy_seconds if rate * d < _MOST_EXPONENT)
        return gain > clean_seconds

    low, high = _LOG_RATES
    for _ in range(_RATE_STEPS):
        middle = (low + high) / 2.0
        low, high = (middle, high) if rising(middle) else (low, middle)
    return math.exp(low)


#: ``likeliest_rate`` seeks the rate [1/s] from exp(-30) to exp(10) by bisection in
#: log-rate (the log-likelihood is concave in the rate).
_LOG_RATES = (-30.0, 10.0)
_RATE_STEPS = 60
#: ... and takes ``d / (exp(r d) - 1)`` as 0 beyond this exponent (a float's range).
_MOST_EXPONENT = 700.0


#: ``per_trial_frames``: trials at one load lose loss ratios spread by up to this factor
#: (the kernel's 1 s trials lost 0.1-0.4 % on the lab in a box); a longer trial that lost a
#: ratio no further below is no proof of loss per trial, however many frames it counted.
SPREAD = 10.0


#: ``implausibly_few``: a Poisson count this unlikely (or less) is no chance.
IMPLAUSIBLE = 1e-3
_LOG_IMPLAUSIBLE = math.log(IMPLAUSIBLE)


def implausibly_few(count: float, mean: float) -> bool:
    """A Poisson count of ``mean`` is at most ``count`` less often than ``IMPLAUSIBLE`` (by
    the Chernoff bound ``exp(count - mean + count log(mean / count))``, which is above the
    chance: so it says so only when the chance is lower still)."""
    if count >= mean:
        return False
    log_bound = count - mean + (count * math.log(mean / count) if count > 0 else 0.0)
    return log_bound < _LOG_IMPLAUSIBLE


def lossy(lost: float, frames: float, target: float) -> bool:
    """A trial lost more than the target allows."""
    return lost > target * frames


#: ``burst_size`` reads as bursts the trials that lost over this many times their allowance.
BURST_MIN_TARGETS = 2.0
#: ``events``: the bursts' durations span this factor or more.
EVENTS_SPAN = 2.0


class BurstSize(NamedTuple):
    """A lossy trial's loss ratio at load ``L``, ``exp(log_size + slope * max(log L, lowest))``
    (``burst_size``), and whether the bursts are events (``events``)."""

    log_size: float
    slope: float
    lowest: float  # the lowest burst's log load
    events: bool = False


NO_BURSTS = BurstSize(0.0, 0.0, 0.0)


def burst_size(seen: Sequence[Counted], target: float) -> BurstSize:
    """The size of a burst as a power of the load: a lossy trial at load ``L`` loses a share
    ``exp(log_size + slope * max(log L, lowest))`` of its frames.

    Bursts are the trials that lost over ``BURST_MIN_TARGETS`` x their allowance (one that
    lost barely more sits on a capacity cliff: counted, a soak held there by interrupts
    read bursts as small as the target, so a trial at the critical load as lossy half the
    time) at loads where a trial also stayed clean (at most the
    highest clean trial's load; all lossy trials when none is that low): above every clean
    trial the DUT is overloaded, and what it loses there is no burst. The slope is the
    least-squares one of the bursts' log loss ratios over their log loads (never below 0;
    0 with bursts at one load only); the level puts their median ratio at their mean log
    load. Below the lowest burst (``lowest``, a log load) the size is taken as there: no
    trial tells how much smaller bursts get further down. On a DUT whose loss comes in
    spells of a slower capacity, bursts shrink towards it as the load falls while their
    chance stays; where bursts keep their size (a noisy knee), the slope is near 0.
    """
    lossy_trials = [
        o for o in seen if o.frames > 0 and lossy(o.lost, o.frames, BURST_MIN_TARGETS * target)
    ]
    if not lossy_trials:
        return NO_BURSTS
    clean_loads = [o.load for o in seen if o.frames > 0 and not lossy(o.lost, o.frames, target)]
    top = max(clean_loads, default=0.0)
    bursts = [o for o in lossy_trials if o.load <= top] or lossy_trials
    xs = [math.log(o.load) for o in bursts]
    ys = [math.log(o.lost / o.frames) for o in bursts]
    slope = max(0.0, least_squares_slope(xs, ys))
    median = sorted(ys)[len(ys) // 2]
    return BurstSize(median - slope * (sum(xs) / len(xs)), slope, min(xs), events(bursts))


def events(bursts: Sequence[Counted]) -> bool:
    """The bursts' lost frames grow slowly with their duration (``lost_grows_slowly``),
    over durations ``EVENTS_SPAN`` or more apart: loss in events a trial meets now and then
    (stalls, spells), each losing what it loses whatever the trial's length, not a share of
    the trial that moves from trial to trial (a noisy knee, a jittery capacity: their lost
    frames grow with the trial)."""
    seconds = [o.frames / o.load for o in bursts]
    if len(bursts) < 2 or max(seconds) < EVENTS_SPAN * min(seconds):
        return False
    return lost_grows_slowly(bursts)


def width_prior(size: BurstSize) -> tuple[float, ...]:
    """The log prior of each of ``WIDTHS`` (``LOG_PRIOR_EVENTS`` when the bursts are events)."""
    return LOG_PRIOR_EVENTS if size.events else LOG_PRIOR


def least_squares_slope(xs: Sequence[float], ys: Sequence[float], errors: float = 0.0) -> float:
    """The slope of the least-squares line through the points (0 with the ``xs`` all
    alike, within float rounding), less ``errors`` standard errors of it (from 3 points on)."""
    mean_x = sum(xs) / len(xs)
    mean_y = sum(ys) / len(ys)
    spread = sum((x - mean_x) ** 2 for x in xs)
    if spread <= 1e-12:
        return 0.0
    slope = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True)) / spread
    if errors > 0.0 and len(xs) > 2:
        misfit = sum((y - mean_y - slope * (x - mean_x)) ** 2 for x, y in zip(xs, ys, strict=True))
        slope -= errors * math.sqrt(misfit / (len(xs) - 2) / spread)
    return slope


def chance_at(size: BurstSize, critical: float, target: float) -> float:
    """The chance of a lossy trial at ``critical`` that makes the average loss ratio
    (chance times the burst size there, ``burst_size``) the target; at most 0.5."""
    log_s, slope, lowest, _ = size
    log_chance = math.log(target) - log_s - slope * max(lowest, math.log(critical))
    return math.exp(min(math.log(0.5), max(_LOG_TINY, log_chance)))


def size_moved(size: BurstSize, old: BurstSize, load: float, target: float) -> bool:
    """The chance of a lossy trial at ``load`` (``chance_at``) moved by over 2x from
    ``old``'s, or the bursts' reading as events did: the fit's grids are rebuilt."""
    moved = chance_at(size, load, target) / chance_at(old, load, target)
    return size.events != old.events or abs(math.log(moved)) > math.log(2.0)


def bursty_row(load: float, is_lossy: bool, critical: float, chance: float) -> list[float]:
    """log P(the trial was lossy or not | c=critical, w) for every width ``w``, where the
    chance of a lossy trial is ``chance (L / c)^(1 / w)`` (at most 1)."""
    log_chance = math.log(chance)
    log_excess = math.log(load / critical)
    row = []
    for inverse in _INVERSE_WIDTHS:
        log_p = log_chance + log_excess * inverse
        log_p = min(-1e-12, log_p)
        row.append(log_p if is_lossy else math.log(-math.expm1(log_p)))
    return row
