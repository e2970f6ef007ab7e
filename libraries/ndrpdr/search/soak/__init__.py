"""Soak search: the critical load for a tiny loss ratio, estimated within a time budget.

CSIT's third search kind (its PLRsearch, soak tests): how much load can the
DUT take for a long time while losing at most a tiny share of frames
(default 1e-7)? Such a loss ratio is out of reach of pass/fail trials
(a 1 s trial at 10 Mpps sends 1e7 frames: one lost frame is already the
whole allowance), so the search treats loss as random and estimates.

The critical load is where the *long-run average* loss ratio (lost over
sent frames over a long time) meets the target: CSIT's PLRsearch's
definition. Our design (``soakfit``): every trial's lost frames update a
posterior of the critical load ``c`` (where the average loss-ratio curve
crosses the target) over a grid; loss that comes in bursts switches the
model to one of how often trials lose (``soakbursty``); the next trial
runs at the posterior median (or, once the trials show a buffer that hides
the first excess frames of every trial, ``soakbuffer``, above it by what
the buffer hides from a trial of its length), so the first trials bisect
and later ones gather around ``c``; trial durations grow
with the time spent (each trial lasts ``growth`` times the trial seconds
so far, at least ``initial_duration``), so late trials, at loads already
close to ``c``, send enough frames to see losses of the target's size.
The search uses the whole budget (trial seconds, as ``max_search_time``
counts them, so it means the same on the simulator and in a lab) and
reports the posterior median of ``c`` (its mean and stdev too), and its 95 % interval.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable

from ndrpdr.search.errors import SearchInputError, SearchTimeLimitError
from ndrpdr.search.session import Limits, Session, check_load
from ndrpdr.search.soak import soakspread, soakwide
from ndrpdr.search.soak.soakestimate import Estimate
from ndrpdr.search.soak.soakfit import Posterior
from ndrpdr.search.trial import Measurer, TrialReason, TrialResult

#: CSIT's soak loss ratio target.
SOAK_LOSS_RATIO = 1e-7
#: CSIT's soak time [s] (30 minutes).
SOAK_TIME_S = 1800.0
#: The first trial's duration [s]; no trial is shorter.
INITIAL_DURATION_S = 1.0
#: Each trial lasts this share of the trial seconds spent so far (when longer than the initial).
GROWTH = 0.1
#: The soak search's name in trial reasons and records.
ALGORITHM = "soak"


def range_end_reached(low: float, high: float, min_load: float, max_load: float) -> str | None:
    """ "min_load" / "max_load" when the interval ``low`` .. ``high`` [pps] reaches that end
    of the load range (within float rounding), else None."""
    if low <= min_load * (1.0 + 1e-9):
        return "min_load"
    if high >= max_load * (1.0 - 1e-9):
        return "max_load"
    return None


@dataclasses.dataclass(frozen=True)
class SoakResult:
    """A soak search's estimate of the critical load [pps, aggregate: ``ndrpdr.units``].

    critical_load: the estimate, the posterior median of the load at which the
        long-run loss ratio is ``loss_ratio``; mean, stdev: the posterior's mean
        (CSIT's PLRsearch's "avg") and standard deviation. On a DUT whose loss
        comes in bursts the posterior is skewed far upward: there the mean lies
        above the median (sim ``transient``: the mean up to 4.5x the truth; over
        40 seeds the DUT loses a median 23 times the target at the mean, 5 times
        at the median).
    lower, upper: ``mean`` minus / plus one stdev (CSIT's soak bounds);
        low, high: the posterior's 2.5 % and 97.5 % quantiles.
    trials: every trial, in the order measured, each with its reason.
    search_time: sum of effective trial durations [s]; time_budget: the budget [s].
    stopped: why the search ended before the budget was used (a wall-time cap,
        a measurer's time limit), None when it used the budget.
    """

    loss_ratio: float
    critical_load: float
    mean: float
    stdev: float
    low: float
    high: float
    min_load: float
    max_load: float
    trials: tuple[TrialResult, ...]
    search_time: float
    time_budget: float
    wall_time: float
    stopped: str | None = None

    @property
    def lower(self) -> float:
        """``mean - stdev`` [pps] (``Estimate.lower``)."""
        return self.estimate.lower

    @property
    def upper(self) -> float:
        """``mean + stdev`` [pps] (``Estimate.upper``)."""
        return self.estimate.upper

    @property
    def estimate(self) -> Estimate:
        """The posterior's summary the result reports (the trials' spread read in)."""
        return Estimate(self.mean, self.stdev, self.critical_load, self.low, self.high)

    @property
    def limited_by(self) -> str | None:
        """ "min_load" / "max_load" when the 95 % interval reaches that end of the range.

        The critical load may then lie beyond it: the estimate is the range's end.
        """
        return range_end_reached(self.low, self.high, self.min_load, self.max_load)

    def describe(self) -> str:
        """One line: the estimate, its spread and what it cost."""
        text = (
            f"soak: critical load {self.critical_load:.6g} (mean {self.mean:.6g}, "
            f"stdev {self.stdev:.3g}, "
            f"95 % in {self.low:.6g}..{self.high:.6g}) for loss ratio {self.loss_ratio:g}, "
            f"{len(self.trials)} trials, {self.search_time:.1f} s of {self.time_budget:g} s"
        )
        if self.limited_by:
            text += f" [at {self.limited_by}]"
        return text + (f" [stopped: {self.stopped}]" if self.stopped else "")


@dataclasses.dataclass(frozen=True)
class SoakProgress:
    """A snapshot after one trial (number from 1), with the estimate so far."""

    trial_number: int
    trial: TrialResult
    estimate: Estimate
    search_time: float
    time_budget: float


def soak_search(
    measurer: Measurer,
    min_load: float,
    max_load: float,
    *,
    time_budget: float = SOAK_TIME_S,
    loss_ratio: float = SOAK_LOSS_RATIO,
    initial_duration: float = INITIAL_DURATION_S,
    growth: float = GROWTH,
    max_wall_time: float | None = None,
    clock: Callable[[], float] = time.monotonic,
    progress: Callable[[SoakProgress], None] | None = None,
) -> SoakResult:
    """Estimate the critical load for ``loss_ratio`` with ``time_budget`` seconds of trials.

    measurer: a ``Measurer``; loads stay in [min_load, max_load] [pps], 0 < min < max.
    time_budget: trial seconds to spend [s] (effective durations, overheads the
        measurer reports included); loss_ratio: the target, in (0, 1).
    initial_duration: the first trial's duration [s], the shortest; growth:
        each later trial lasts ``growth`` x the trial seconds so far, in (0, 1].
    max_wall_time: stop after this many wall seconds of ``clock`` (the
        estimate so far is returned, ``stopped`` says why).
    progress: called after every trial with a SoakProgress.

    Raises SearchInputError naming a bad argument (and for bad measurer answers).
    """
    low = check_load("min_load", min_load)
    high = check_load("max_load", max_load)
    if low >= high:
        raise SearchInputError(f"min_load={low!r} must be below max_load={high!r}")
    budget = check_load("time_budget", time_budget)
    target = check_load("loss_ratio", loss_ratio)
    if target >= 1.0:
        raise SearchInputError(f"loss_ratio={loss_ratio!r} must be below 1 (e.g. 1e-7)")
    first = check_load("initial_duration", initial_duration)
    if first > budget:
        raise SearchInputError(
            f"initial_duration={first:g} s is longer than time_budget={budget:g} s"
        )
    step = check_load("growth", growth)
    if step > 1.0:
        raise SearchInputError(f"growth={growth!r} must be in (0, 1]")
    if max_wall_time is not None:
        check_load("max_wall_time", max_wall_time)
    if not callable(getattr(measurer, "measure", None)):
        raise SearchInputError(f"measurer {measurer!r} has no measure(duration, load) method")
    session = Session(
        measurer=measurer,
        goals=(),
        min_load=low,
        max_load=high,
        algorithm=ALGORITHM,
        limits=Limits(max_search_time=budget, max_wall_time=max_wall_time),
        clock=clock,
    )
    posterior = Posterior(target, low, high)
    stopped = None
    estimate = posterior.estimate()
    while (duration := _next_duration(session, budget, first, step)) is not None:
        load = posterior.trial_load(duration, estimate.median)
        strategy = "posterior-median" if load == estimate.median else "median-past-buffer"
        reason = TrialReason(ALGORITHM, "soak", strategy, detail=f"estimate {estimate.median:.6g}")
        try:
            trial = session.measure(duration, load, reason)
        except SearchTimeLimitError as exc:
            stopped = str(exc)
            break
        posterior.add(trial)
        estimate = posterior.estimate()
        if progress is not None:
            progress(
                SoakProgress(len(session.trials), trial, estimate, session.search_time, budget)
            )
    # The result reads the trials' spread from trial to trial; the trials were placed at the
    # Poisson posterior's median, which the spread does not move (``soakspread.estimate``).
    # A bursty posterior is read on a grid that holds both its scales (``soakwide``).
    estimate = soakwide.estimate(posterior) if posterior.bursty else soakspread.estimate(posterior)
    return SoakResult(
        loss_ratio=target,
        critical_load=estimate.median,
        mean=estimate.mean,
        stdev=estimate.stdev,
        low=estimate.low,
        high=estimate.high,
        min_load=low,
        max_load=high,
        trials=tuple(session.trials),
        search_time=session.search_time,
        time_budget=budget,
        wall_time=session.clock() - session.started,
        stopped=stopped,
    )


def _next_duration(session: Session, budget: float, first: float, growth: float) -> float | None:
    """The next trial's duration [s], None when the budget has no room for one more."""
    left = budget - session.search_time - session.overhead
    if left < first * (1.0 - 1e-9):
        return None
    duration = min(left, max(first, growth * session.search_time))
    if left - duration < first:  # no room for another after it: use the rest now
        duration = left
    return duration
