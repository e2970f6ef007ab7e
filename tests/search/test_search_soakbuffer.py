"""The soak fit's buffer: read from the lossy trials' forwarded frames, or not at all."""

from __future__ import annotations

import random

import pytest

from ndrpdr.search.soak import soakbuffer
from ndrpdr.search.soak.soakfit import Observation, Posterior, log_likelihood_row
from ndrpdr.search.trial import TrialResult
from ndrpdr.simdut.models import DurationDependent, DutModel, NoisyKnee, SharpCliff

TARGET = 1e-7
CAPACITY = 1e7
BUFFER = 2e6  # 0.2 s at the capacity
#: (duration [s], load over the capacity) of trials, lossy ones past the buffer among them.
PLAN = [(1.0, 1.5), (2.0, 1.3), (4.0, 1.1), (8.0, 1.05), (16.0, 0.99), (30.0, 1.02)]


def _seen(dut: DutModel, plan: list[tuple[float, float]]) -> list[Observation]:
    rng = random.Random(7)
    seen = []
    for duration, share in plan:
        offered, forwarded = dut.trial(duration, share * CAPACITY, rng)
        seen.append(Observation(share * CAPACITY, offered, offered - forwarded, duration))
    return seen


def test_the_line_of_forwarded_frames_tells_the_buffer() -> None:
    buffer = soakbuffer.estimate(_seen(DurationDependent(CAPACITY, BUFFER), PLAN), TARGET)
    assert buffer is not None
    assert buffer.low <= BUFFER <= buffer.high
    assert buffer.high - buffer.low < 1e-4 * BUFFER


@pytest.mark.parametrize(
    ("dut", "plan"),
    [
        (SharpCliff(CAPACITY), PLAN),  # a cliff forwards C x D: no buffer
        (DurationDependent(CAPACITY, BUFFER), PLAN[:2]),  # two durations: a line fits any
        (DurationDependent(CAPACITY, BUFFER), [(1.0, 1.5), (1.0, 1.3), (2.0, 1.2)]),  # also
        (DurationDependent(CAPACITY, BUFFER), [(1.0, 1.5), (1.0, 1.6), (1.0, 1.7)]),  # one D
        (DurationDependent(CAPACITY, 500.0), PLAN),  # too small a buffer to tell
        (NoisyKnee(CAPACITY, 0.2, 0.9, 0.01, 0.05), [(d, 0.95) for d in (1, 2, 4, 8, 16)]),
    ],
    ids=["cliff", "two-trials", "two-durations", "one-duration", "tiny", "bursts"],
)
def test_no_buffer_where_the_line_does_not_fit(
    dut: DutModel, plan: list[tuple[float, float]]
) -> None:
    assert soakbuffer.estimate(_seen(dut, plan), TARGET) is None


def test_a_clean_trial_the_line_has_lose_far_beyond_its_allowance_rules_it_out() -> None:
    seen = _seen(DurationDependent(CAPACITY, BUFFER), PLAN)
    assert soakbuffer.estimate(seen, TARGET) is not None
    # 60 s at 5 % over the capacity: the line says 28e6 frames lost; it lost none.
    seen.append(Observation(1.05 * CAPACITY, 60.0 * 1.05 * CAPACITY, 0.0, 60.0))
    assert soakbuffer.estimate(seen, TARGET) is None


def test_with_a_buffer_the_fit_reads_a_cliff_less_it_and_trials_run_past_what_it_hides() -> None:
    posterior = Posterior(TARGET, 1e5, 3e7)
    assert posterior.trial_load(10.0, 9e6) == 9e6  # no buffer: at the critical load
    dut = DurationDependent(CAPACITY, BUFFER)
    rng = random.Random(1)
    for duration, share in PLAN:
        offered, forwarded = dut.trial(duration, share * CAPACITY, rng)
        load = share * CAPACITY
        posterior.add(_result(duration, load, offered, forwarded))
    assert posterior.buffer is not None and posterior.columns() == 1
    assert posterior.trial_load(10.0, 9e6) == pytest.approx(9e6 + BUFFER / 10.0, rel=1e-6)
    # One column, likeliest where the cliff less the buffer gives the frames lost.
    trial = Observation(1.1 * CAPACITY, 4.0 * 1.1 * CAPACITY, 4.0 * 0.1 * CAPACITY - BUFFER, 4.0)
    truth = CAPACITY / (1.0 - TARGET)
    row = log_likelihood_row(trial, truth, TARGET, buffer=posterior.buffer)
    assert len(row) == 1
    assert row[0] > log_likelihood_row(trial, 1.05 * truth, TARGET, buffer=posterior.buffer)[0]


def _result(duration: float, load: float, offered: int, forwarded: int) -> TrialResult:
    return TrialResult(duration, load, offered, forwarded, offered - forwarded)
