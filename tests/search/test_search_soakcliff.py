"""The soak fit's capacity cliff (``soakfit``'s column beside the exponential curves)."""

from __future__ import annotations

from ndrpdr.search.soak.soakfit import WIDTHS, Observation, log_likelihood_row
from ndrpdr.search.trial import TrialResult

TARGET = 1e-7
CAPACITY = 1e7
#: Where a cliff at CAPACITY loses the target ratio (its long-run critical load).
TRUTH = CAPACITY / (1 - TARGET)


def _on_the_cliff(duration: float, relative: float) -> TrialResult:
    """A trial of a cliff at CAPACITY, at TRUTH x (1 + relative): it loses what it sends
    beyond the capacity, rounded down."""
    load = TRUTH * (1 + relative)
    frames = load * duration
    lost = float(int(max(0.0, load - CAPACITY) * duration))
    return TrialResult(duration, load, frames, frames - lost, lost)


def test_the_cliff_column_fits_a_cliffs_trial_best_at_its_critical_load() -> None:
    """A trial 2e-8 above the truth lost 1.2 times its allowance: the cliff explains it at
    the truth, and its column there beats every exponential width."""
    trial = Observation.of(_on_the_cliff(100.0, 2e-8))
    criticals = [TRUTH * (1 + k * 1e-9) for k in range(-40, 41)]
    cliff = [log_likelihood_row(trial, c, TARGET)[len(WIDTHS)] for c in criticals]
    best = criticals[cliff.index(max(cliff))]
    assert abs(best / TRUTH - 1) <= 2e-9
    at_truth = log_likelihood_row(trial, TRUTH, TARGET)
    assert len(at_truth) == len(WIDTHS) + 1
    assert at_truth[-1] >= max(at_truth[:-1])
