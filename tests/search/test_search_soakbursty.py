"""The soak fit's bursty model (``ndrpdr.search.soakbursty``) and the switch to it."""

from __future__ import annotations

import math

from ndrpdr.search import soakbursty
from ndrpdr.search.soakfit import Observation, Posterior
from ndrpdr.search.trial import TrialResult

TARGET = 1e-7


def _trial(duration: float, load: float, lost: float) -> TrialResult:
    frames = duration * load
    return TrialResult(duration, load, frames, frames - lost, lost)


def test_a_clean_trial_far_below_is_likely_and_a_lossy_one_is_not() -> None:
    row_clean = soakbursty.bursty_row(1e6, False, 2e6, 1e-3)
    row_lossy = soakbursty.bursty_row(1e6, True, 2e6, 1e-3)
    assert all(math.exp(v) > 0.99 for v in row_clean)
    assert all(v < math.log(1e-3) for v in row_lossy)
    assert len(row_clean) == soakbursty.columns() == len(soakbursty.WIDTHS)


def test_above_the_critical_load_a_lossy_trial_is_likely_on_a_cliff() -> None:
    cliff = soakbursty.bursty_row(2e6 * 1.01, True, 2e6, 1e-3)[0]  # the narrowest width
    assert math.exp(cliff) > 0.99


def test_the_burst_size_is_the_median_lossy_ratio() -> None:
    seen = [Observation(1e6, 1e6, lost, 1.0) for lost in (0.0, 10.0, 100.0, 1000.0)]
    assert soakbursty.burst_ratio(seen, TARGET) == 1e-4
    assert soakbursty.burst_ratio(seen[:1], TARGET) == 1.0


def test_contradicted_pairs_a_lossy_trial_with_a_clean_one_no_lower() -> None:
    seen = [Observation(5e6, 5e7, 5000.0, 10.0), Observation(5e6, 1e8, 0.0, 20.0)]
    assert soakbursty.contradicted(seen, TARGET) == [(0, 1)]
    assert soakbursty.contradicted(seen[::-1], TARGET) == [(1, 0)]
    assert soakbursty.contradicted([seen[0], Observation(4e6, 1e8, 0.0, 25.0)], TARGET) == []


def test_the_posterior_switches_to_the_bursty_model_on_bursts_only() -> None:
    smooth = Posterior(TARGET, 1e5, 3e7)
    for load in (2e7, 1e7, 5e6):
        smooth.add(_trial(10.0, load, max(0.0, (load - 8e6) * 10.0)))
    assert not smooth.bursty
    bursty = Posterior(TARGET, 1e5, 3e7)
    for _ in range(3):
        bursty.add(_trial(10.0, 5e6, 5000.0))
        bursty.add(_trial(20.0, 5e6, 0.0))
    assert bursty.bursty and bursty.coarse is not None and bursty.coarse.bursty
    assert 0.0 < bursty.chance <= 0.5
    estimate = bursty.estimate()
    assert estimate.low < 5e6  # lossy trials at 5 Mpps: the critical load lies below
