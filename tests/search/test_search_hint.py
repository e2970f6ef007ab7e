"""The estimate (``hint``): a dead DUT, noise that must not steer, a smooth curve that may."""

from __future__ import annotations

from ndrpdr.search import Goal, TrialResult, search
from ndrpdr.search.mlr.hint import LossPoint, estimate_threshold

MIN_LOAD = 1e4
MAX_LOAD = 1e7
CSIT_GOALS = [Goal(loss_ratio=0.0), Goal(loss_ratio=0.005)]
STRICT_GOALS = [
    Goal(loss_ratio=r, exceed_ratio=0.0, final_trial_duration=30.0, duration_sum=30.0)
    for r in (0.0, 0.005)
]


class DeadDut:
    """Forwards nothing at any load."""

    def __init__(self) -> None:
        self.loads: list[float] = []

    def measure(self, duration: float, load: float) -> TrialResult:
        self.loads.append(load)
        return TrialResult(duration, load, offered_count=load * duration, forwarded_count=0.0)


def test_a_dead_dut_goes_from_the_max_load_straight_to_the_min_load() -> None:
    # With exceed ratio 0 one failing short trial settles the min load; with
    # CSIT's goals 11 of its 21 s must be high-loss (1 s trials, no overhead).
    for goals, at_min_load in ((STRICT_GOALS, 1), (CSIT_GOALS, 11)):
        dut = DeadDut()
        result = search(dut, goals, MIN_LOAD, MAX_LOAD)
        assert dut.loads == [MAX_LOAD] + [MIN_LOAD] * at_min_load
        assert all(g.lower_bound is None for g in result.goal_results)
        assert all(g.upper_bound == MIN_LOAD for g in result.goal_results)


def test_the_estimate_of_a_dead_dut_is_zero_only_while_nothing_passed() -> None:
    dead = [LossPoint(1e6, 1.0)]
    assert estimate_threshold(dead, 0.0) == 0.0
    # A load that passed below: the DUT forwards something; a trial that
    # forwarded nothing above it does not say where (no estimate).
    assert estimate_threshold([LossPoint(1e5, 0.0), *dead], 0.0) is None


def test_loss_that_falls_as_the_load_grows_is_noise_not_a_slope() -> None:
    # 2.1 % at 3.30 M, 2.4 % at 3.38 M, 1.6 % at 3.45 M: random few-percent
    # loss. A secant through the two lowest points aimed at 2.3 M (30 %
    # down); the forwarding rate of the lowest says 3.23 M.
    points = [LossPoint(3.2974e6, 0.0212), LossPoint(3.381e6, 0.0243), LossPoint(3.4495e6, 0.0155)]
    estimate = estimate_threshold(points, 0.0)
    assert estimate is not None
    assert estimate == 3.2974e6 * (1.0 - 0.0212)
    # The same two lowest points alone (loss growing with the load) are a
    # smooth onset: the secant on sqrt(excess) goes far below.
    secant = estimate_threshold(points[:2], 0.0)
    assert secant is not None and secant < 0.75 * 3.2974e6


class FewPercentAtFullLengthDut:
    """Short (1 s) trials lose nothing up to 1.2 x ``knee``; full-length ones
    lose 2 % and a little more with the load above 0.9 x ``knee``: a shallow
    loss curve a secant extrapolates far below the load it starts at."""

    def __init__(self, knee: float) -> None:
        self.knee = knee

    def measure(self, duration: float, load: float) -> TrialResult:
        offered = load * duration
        if duration < 30.0:
            ratio = 0.0 if load <= 1.2 * self.knee else 1.0 - 1.2 * self.knee / load
        elif load <= 0.9 * self.knee:
            ratio = 0.0
        else:
            ratio = 0.02 + 0.01 * (load / self.knee - 0.9)
        return TrialResult(duration, load, offered_count=offered, loss_count=ratio * offered)


def test_full_length_trials_never_jump_far_below_the_forwarding_rate() -> None:
    knee = 3e6
    result = search(FewPercentAtFullLengthDut(knee), STRICT_GOALS[:1], MIN_LOAD, MAX_LOAD)
    full = [t.load for t in result.trials if t.duration >= 30.0]
    # The truth at full length is 0.9 x knee; the first full-length failure
    # forwards ~98 % of 1.2 x knee. Guarded, the goal walks down from there
    # with growing steps and overshoots the truth by at most one step
    # (unguarded, the secant sent it to 0.45 x the truth).
    assert min(full) >= 0.85 * 0.9 * knee, [f"{load:.4g}" for load in full]
    lower = result.goal_results[0].lower_bound
    assert lower is not None and 0.9 * knee * 0.995 <= lower <= 0.9 * knee, result.describe()


class ShallowLossDut:
    """Nothing lost up to ``knee``, then 2 % and a little more with the load,
    at any duration: the short stage's secant through two such trials aims
    far below the knee."""

    def __init__(self, knee: float) -> None:
        self.knee = knee

    def measure(self, duration: float, load: float) -> TrialResult:
        offered = load * duration
        ratio = 0.0 if load <= self.knee else 0.02 + 0.01 * (load / self.knee - 1.0)
        return TrialResult(duration, load, offered_count=offered, loss_count=ratio * offered)


def test_short_trials_never_jump_far_below_the_forwarding_rate() -> None:
    knee = 3e6
    result = search(ShallowLossDut(knee), STRICT_GOALS[:1], MIN_LOAD, MAX_LOAD)
    # Unguarded, the short stage's secant went to a small fraction of the
    # knee first. Guarded, the estimate creeps down a few widths a trial and
    # the step grows while the upper bound keeps moving down, so the walk
    # from the max load takes a handful of trials and passes the knee by at
    # most its last step (one width at a time took 30 trials).
    assert min(t.load for t in result.trials) >= 0.5 * knee, result.describe()
    assert len(result.trials) <= 22, result.describe()
    lower = result.goal_results[0].lower_bound
    assert lower is not None and knee * 0.995 <= lower <= knee, result.describe()
