"""A plateau of small loss far below the capacity: the short stage, not full-length
trials, walks down to where the loss stops.

The Linux kernel on the lab in a box lost 0.1-0.4 % in 1 s trials at every
load from a third of its forwarding rate up (``benchmarks.real_dut``); the
``plateau`` sim model has that shape. A failing short trial there forwards
nearly what it was offered, so it looks like a capacity cliff just below it;
before these rules the short stage handed over on that estimate and the
final stage walked the whole way down in full-length trials (3.6x
MLRsearch 1.2.1's time with 10 s goals).
"""

from __future__ import annotations

import pytest
from search_duts import strict_goals

from ndrpdr.search import Goal, TrialResult, search
from ndrpdr.search.mlr.names import Phase
from ndrpdr.trafficgen.sim import LossPlateau, SimulatedMeasurer

MIN_LOAD, MAX_LOAD = 1e4, 29.76e6
CAPACITY = 10e6


def plateau(level: float = 0.002) -> LossPlateau:
    """NDR at 4 Mpps, 0.2 % lost from 5 Mpps up to the cliff at 10 Mpps; no noise."""
    return LossPlateau(
        capacity_pps=CAPACITY,
        onset_fraction=0.4,
        ramp_fraction=0.1,
        level=level,
        burst_share=0.8,
        spread=0.0,
    )


def full_length(trials: list[TrialResult], goal: int, final: float) -> list[TrialResult]:
    return [t for t in trials if t.duration >= final and t.reason.goal == goal]


@pytest.mark.parametrize("max_load", [MAX_LOAD, 0.9 * CAPACITY])
def test_ndr_on_a_plateau_needs_one_full_length_trial(max_load: float) -> None:
    """Above the cliff (the max load loses most) the failures near it look like a
    cliff; below it (the lab in a box's max load) every load loses a little. Either
    way the short stage goes down to a short pass and one 10 s trial confirms it."""
    model = plateau()
    measurer = SimulatedMeasurer(model, overhead_s=0.5, seed=1)
    result = search(measurer, strict_goals(10.0), MIN_LOAD, max_load)
    ndr = result.goal_results[0]
    truth = model.true_ndr(10.0)
    assert ndr.lower_bound is not None and ndr.upper_bound is not None
    assert truth * (1 - 0.005) <= ndr.lower_bound <= truth < ndr.upper_bound, result.describe()
    assert len(full_length(result.trials, 0, 10.0)) <= 2, result.describe()
    # The walk down from the max load grows its steps: a few dozen short trials in all.
    short = [t for t in result.trials if t.reason.phase is Phase.SHORT]
    assert len(short) <= 30, result.describe()


class ShortCliffDut:
    """1 s trials see a cliff at ``capacity`` and nothing below it; longer trials
    also lose 0.1 % from half the capacity on: the short stage hands over on
    the cliff's estimate, which a full-length trial then refutes."""

    def __init__(self, capacity: float) -> None:
        self.capacity = capacity

    def measure(self, duration: float, load: float) -> TrialResult:
        offered = load * duration
        forwarded = min(load, self.capacity) * duration
        if duration > 1.0 and load > self.capacity / 2:
            forwarded *= 0.999
        return TrialResult(duration, load, offered_count=offered, forwarded_count=forwarded)


def test_a_full_length_failure_below_a_cliffs_estimate_reopens_the_short_stage() -> None:
    result = search(ShortCliffDut(CAPACITY), strict_goals(10.0)[:1], MIN_LOAD, MAX_LOAD)
    phases = [t.reason.phase for t in result.trials]
    first_final = phases.index(Phase.FINAL)
    # The hand-over came on the cliff's estimate, after two short trials.
    assert phases[:first_final] == [Phase.PROBE, Phase.SHORT], result.describe()
    assert result.trials[first_final].loss_ratio > 0.0
    # Back to short trials, once.
    assert phases[first_final + 1] is Phase.SHORT, result.describe()
    lower = result.goal_results[0].lower_bound
    assert lower is not None and CAPACITY / 2 * (1 - 0.005) <= lower <= CAPACITY / 2
    assert result.goal_results[0].upper_bound is not None


def test_csit_goals_scout_only_near_the_ndr() -> None:
    """CSIT's goals (1 s trials, 21 s sums): the scout stage decides loads with 3 trials
    each; it starts near the NDR, not at the cliff's estimate 60 % above it."""
    model = plateau()
    measurer = SimulatedMeasurer(model, overhead_s=0.5, seed=1)
    result = search(measurer, [Goal(loss_ratio=0.0), Goal(loss_ratio=0.005)], MIN_LOAD, MAX_LOAD)
    truth = model.true_ndr(1.0)
    scouted = [
        t.load for t in result.trials if t.reason.phase is Phase.SCOUT and t.reason.goal == 0
    ]
    assert scouted and max(scouted) <= truth * 1.05, result.describe()
    lower = result.goal_results[0].lower_bound
    assert lower is not None and truth * (1 - 0.005) <= lower <= truth, result.describe()
