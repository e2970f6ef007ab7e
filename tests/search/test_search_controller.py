"""How mlr chooses its next load on noisy knees: scouting, growing steps, a lossy min load.

The DUTs here are scripted stand-ins (no real DUT behaves this exactly):
each is a pure function of the load and how many trials that load already
had, so every search over them is reproducible trial by trial.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter

import pytest
from search_duts import LossCurveDut, StepDut

from ndrpdr.search import Goal, SearchResult, TrialResult, search

MIN_LOAD = 1e4
MAX_LOAD = 1e7
CAPACITY = 3e6
WIDTH = 0.005

CSIT_NDR = Goal(loss_ratio=0.0)
CSIT_PDR = Goal(loss_ratio=0.005)
LONG_NDR = Goal(loss_ratio=0.0, final_trial_duration=10.0, duration_sum=50.0)
STRICT_NDR = Goal(loss_ratio=0.0, exceed_ratio=0.0, final_trial_duration=30.0, duration_sum=30.0)


class LuckyFirstTrialsDut:
    """A 2 % loss step at ``capacity``, except that the first ``lucky`` trials
    at any load up to ``lucky_until`` lose nothing (a knee that looks higher
    the fewer trials a load gets)."""

    def __init__(self, capacity: float, lucky_until: float, lucky: int) -> None:
        self.capacity = capacity
        self.lucky_until = lucky_until
        self.lucky = lucky
        self.seen: Counter[float] = Counter()

    def measure(self, duration: float, load: float) -> TrialResult:
        self.seen[load] += 1
        offered = load * duration
        lucky = load <= self.lucky_until and self.seen[load] <= self.lucky
        lost = 0.0 if load <= self.capacity or lucky else 0.02 * offered
        return TrialResult(duration, load, offered_count=offered, loss_count=lost)


def _assert_knee_bracketed(result: SearchResult) -> None:
    """Every goal's bounds bracket CAPACITY within one goal width."""
    for goal_result in result.goal_results:
        lower, upper = goal_result.lower_bound, goal_result.upper_bound
        assert lower is not None and upper is not None, result.describe()
        assert CAPACITY * (1.0 - WIDTH) <= lower <= CAPACITY < upper, result.describe()
        assert lower >= upper * (1.0 - WIDTH) * (1.0 - 1e-9)


def _first_visits(result: SearchResult, phase: str, strategy: str) -> list[float]:
    """Loads in the order a trial of ``phase``/``strategy`` first went there."""
    loads: list[float] = []
    for trial in result.trials:
        reason = trial.reason
        assert reason is not None
        if reason.phase == phase and reason.strategy == strategy and trial.load not in loads:
            loads.append(trial.load)
    return loads


def _widths(high: float, low: float) -> float:
    """How many goal widths ``low`` lies below ``high``."""
    return math.log(high / low) / -math.log1p(-WIDTH)


@pytest.mark.parametrize(
    ("goals", "settling"),
    [
        # 11 high-loss seconds of 21 make the min load an upper bound; the
        # first (1 s, already full-length) trial there is one of them.
        ([CSIT_NDR, CSIT_PDR], 10),
        # 10 s trials, 50 s sum: 3 full-length high-loss trials (30 > 25 s).
        ([LONG_NDR], 3),
        # Exceed ratio 0: the failing short trial at the min load settles it.
        ([STRICT_NDR], 0),
    ],
    ids=["csit", "long", "strict"],
)
def test_a_lossy_min_load_is_measured_at_full_length_right_away(
    goals: list[Goal], settling: int
) -> None:
    dut = StepDut(MIN_LOAD / 2, step_loss=0.01)  # 1 % loss at every load
    result = search(dut, goals, MIN_LOAD, MAX_LOAD)
    first = next(i for i, t in enumerate(result.trials) if t.load == MIN_LOAD)
    assert first <= 2, result.describe()  # after the max load and one estimate
    for goal_result in result.goal_results:
        assert goal_result.lower_bound is None
        assert goal_result.upper_bound == MIN_LOAD
    # Every later trial is at the min load, at full length, and no more of
    # them than its classification needs.
    later = result.trials[first + 1 :]
    assert {t.load for t in later} <= {MIN_LOAD}
    assert all(t.duration == goals[0].final_trial_duration for t in later)
    assert len(later) == settling, result.describe()


def test_scouting_follows_the_fit_then_steps_down_geometrically_while_the_bound_keeps_moving() -> (
    None
):
    # Single trials pass up to 2 x capacity: the short stage ends far above
    # the knee, and every scouted load fails after its first trial. The
    # fitted knee (passes and failures overlap from the first scouted load
    # on) sets the first steps down; once the scout's upper bound has moved
    # down FIT_YIELDS_AFTER_MOVES times in a row, doubling steps outrun it.
    dut = LuckyFirstTrialsDut(CAPACITY, 2 * CAPACITY, lucky=1)
    result = search(dut, [CSIT_NDR, CSIT_PDR], MIN_LOAD, MAX_LOAD)
    _assert_knee_bracketed(result)
    starts = _first_visits(result, "scout", "scout-start")
    fitted = [load for load in _first_visits(result, "scout", "knee-fit") if load > CAPACITY]
    down = [load for load in _first_visits(result, "scout", "expand-down") if load > CAPACITY]
    assert len(starts) == 1 and len(down) >= 3, result.describe()
    first = [load for load in fitted if load > max(down)]  # before the doubling
    assert first, result.describe()
    assert _widths(starts[0], max(first)) == pytest.approx(1.0, rel=0.01)
    assert result.trials.index(next(t for t in result.trials if t.load == min(first))) < (
        result.trials.index(next(t for t in result.trials if t.load == max(down)))
    )
    steps = [_widths(high, low) for high, low in itertools.pairwise([min(first), *down])]
    for step, following in itertools.pairwise(steps):
        assert following == pytest.approx(2.0 * step, rel=0.01), steps
    # Walking one width at a time would need ~130 scouted loads of 4 trials each.
    assert len(result.trials) < 120, result.describe()


@pytest.mark.many_searches
def test_after_a_contradiction_the_scout_goes_to_the_fitted_knee_below() -> None:
    # Three trials pass up to 2 x capacity, the rest fail above capacity: the
    # scout (3 of 5 trials) is fooled where the goal (11 of 21) is not. The
    # contradicted load then holds passes and failures, and the scout's next
    # load is the fitted knee, clamped below the contradicted load.
    dut = LuckyFirstTrialsDut(CAPACITY, 2 * CAPACITY, lucky=3)
    result = search(dut, [CSIT_NDR], MIN_LOAD, MAX_LOAD)
    _assert_knee_bracketed(result)
    contradicted = [
        t.load
        for t in result.trials
        if t.reason is not None and t.reason.strategy == "scouted-lower"
    ]
    assert contradicted, result.describe()
    first_miss = contradicted[0]
    index = max(i for i, t in enumerate(result.trials) if t.load == first_miss)
    following = [t for t in result.trials[index + 1 :] if t.load < first_miss]
    assert following, result.describe()
    assert following[0].reason is not None
    assert following[0].reason.phase == "scout"
    assert following[0].reason.strategy == "knee-fit"
    assert _widths(first_miss, following[0].load) == pytest.approx(1.0, abs=0.02)


def test_a_deterministic_knee_costs_no_extra_scouting() -> None:
    # On a cliff the scout stage's trials all land on the two loads the goal
    # settles: two duration sums' worth plus the short stage.
    dut = StepDut(CAPACITY, 0.02)
    result = search(dut, [CSIT_NDR, CSIT_PDR], MIN_LOAD, MAX_LOAD)
    _assert_knee_bracketed(result)
    scouted = {t.load for t in result.trials if t.reason and t.reason.phase == "scout"}
    bounds = {r.lower_bound for r in result.goal_results} | {
        r.upper_bound for r in result.goal_results
    }
    assert scouted <= bounds, result.describe()
    per_load = Counter(t.load for t in result.trials)
    assert sorted(per_load[load] for load in bounds)[-2:] == [11, 11]


@pytest.mark.parametrize(("scale", "power"), [(0.5, 2.0), (0.2, 1.5)])
def test_scouting_a_smooth_loss_curve_goes_to_the_estimate(scale: float, power: float) -> None:
    # Loss grows smoothly above capacity: the PDR's threshold lies above the
    # NDR's, and the estimate from the lossy trials there is exact enough to
    # scout at it instead of stepping up one width, then two, from the NDR.
    dut = LossCurveDut(CAPACITY, scale, power)
    result = search(dut, [CSIT_NDR, CSIT_PDR], MIN_LOAD, MAX_LOAD)
    guided = [
        t
        for t in result.trials
        if t.reason is not None
        and t.reason.phase == "scout"
        and t.reason.strategy in ("expect-pass", "expect-fail")
    ]
    assert guided, result.describe()
    for goal, goal_result in zip([CSIT_NDR, CSIT_PDR], result.goal_results, strict=True):
        threshold = CAPACITY * (1.0 + (goal.loss_ratio / scale) ** (1.0 / power))
        lower, upper = goal_result.lower_bound, goal_result.upper_bound
        assert lower is not None and upper is not None, result.describe()
        assert lower <= threshold < upper, result.describe()
        assert lower >= upper * (1.0 - WIDTH) * (1.0 - 1e-9)
    # Stepping up from the NDR took 73-79 trials here.
    assert len(result.trials) <= 60, result.describe()


class SpellDut:
    """A 3 % loss step whose knee drops from ``normal`` to ``spell_knee`` for trials
    ``start`` to ``end - 1`` (counted from 1): loss that comes and goes in spells, as
    on the local testbed, where a DPDK DUT lost 12 % for 15 trials in a row, then
    nothing at the same load. Scout verdicts made during the spell are stale after it."""

    def __init__(self, normal: float, spell_knee: float, start: int, end: int) -> None:
        self.normal, self.spell_knee = normal, spell_knee
        self.start, self.end = start, end
        self.count = 0

    def measure(self, duration: float, load: float) -> TrialResult:
        self.count += 1
        in_spell = self.start <= self.count < self.end
        knee = self.spell_knee if in_spell else self.normal
        offered = load * duration
        lost = 0.0 if load <= knee else 0.03 * offered
        return TrialResult(duration, load, offered_count=offered, loss_count=lost)


def test_a_goal_bound_moving_through_stale_scout_bounds_grows_its_step() -> None:
    """After the spell the goal finds the scout's upper bounds passing one after
    another; from the fourth such move on it steps past them, two widths, then four."""
    result = search(SpellDut(3.1e6, 2.6e6, 15, 60), [CSIT_NDR, CSIT_PDR], MIN_LOAD, MAX_LOAD)
    goal = result.goal_results[0]
    assert goal.lower_bound is not None and goal.upper_bound is not None
    assert 3.1e6 * (1 - WIDTH) <= goal.lower_bound <= 3.1e6 < goal.upper_bound
    grown = [
        t for t in result.trials if t.reason is not None and t.reason.strategy.endswith("-grown")
    ]
    assert grown, Counter(t.reason.strategy for t in result.trials if t.reason is not None)
    assert all(t.reason is not None and t.reason.phase == "final" for t in grown)
    # the first grown nomination lies two widths or more from the goal's last final load
    first = result.trials.index(grown[0])
    last = [t for t in result.trials[:first] if t.reason is not None and t.reason.phase == "final"]
    low, high = sorted((last[-1].load, grown[0].load))
    assert _widths(high, low) >= 1.9


class FirstLongTrialInSpellDut:
    """A cliff at ``capacity``, except that the first trial of ``long_s`` or
    more meets a spell and loses ``spell_loss`` of its frames wherever it is."""

    def __init__(self, capacity: float, long_s: float, spell_loss: float) -> None:
        self.capacity = capacity
        self.long_s = long_s
        self.spell_loss = spell_loss
        self.long_trials = 0

    def measure(self, duration: float, load: float) -> TrialResult:
        offered = load * duration
        lost = max(0.0, load - self.capacity) * duration
        if duration >= self.long_s:
            self.long_trials += 1
            if self.long_trials == 1:
                lost = max(lost, self.spell_loss * offered)
        return TrialResult(duration, load, offered_count=offered, loss_count=lost)


def test_a_refuted_expected_failure_steps_down_from_the_upper_bound() -> None:
    # The first 30 s trial, at the short stage's estimate, meets a spell:
    # its forwarding rate sends the goal 5 % down, where it passes, and so
    # does the trial expected to fail one width above. Bisecting on from
    # there put three more full-length trials into the band (each one a
    # chance of a failure that caps the bound on a real noisy DUT); stepping
    # down from the spell's upper bound passes at once.
    dut = FirstLongTrialInSpellDut(CAPACITY, 30.0, spell_loss=0.05)
    result = search(dut, [STRICT_NDR], MIN_LOAD, MAX_LOAD)
    long = [t for t in result.trials if t.duration >= 30.0]
    reasons = [(t.reason.strategy if t.reason else None, t.loss_ratio > 0.0) for t in long]
    assert reasons == [
        ("expect-pass", True),
        ("expect-pass", False),
        ("expect-fail", False),
        ("below-upper", False),
    ], result.describe()
    assert _widths(long[0].load, long[3].load) == pytest.approx(1.0, abs=0.02)
    (goal_result,) = result.goal_results
    assert goal_result.lower_bound == long[3].load
    assert goal_result.upper_bound == long[0].load
    assert goal_result.lower_bound >= CAPACITY * (1.0 - 2 * WIDTH)
