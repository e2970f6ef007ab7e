"""A Ctrl-C whose KeyboardInterrupt Python dropped is raised again between trials."""

from __future__ import annotations

import contextlib
import os
import signal

import pytest

from ndrpdr.interrupts import acknowledge, handle_interrupts, raise_if_interrupted
from ndrpdr.search import SearchProgress, TrialResult
from ndrpdr.searchwatch import AfterTrial


def _dropped(sig: int) -> None:
    """Deliver ``sig`` to this process and drop its exception, as a fork handler does."""
    with contextlib.suppress(KeyboardInterrupt):
        os.kill(os.getpid(), sig)  # the handler runs before kill returns (main thread)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_dropped_interrupt_is_raised_again_until_acknowledged(sig: int) -> None:
    before = signal.getsignal(sig)
    with handle_interrupts():
        raise_if_interrupted()  # nothing pending yet
        _dropped(sig)
        with pytest.raises(KeyboardInterrupt, match=f"signal {int(sig)}"):
            raise_if_interrupted()
        acknowledge()
        raise_if_interrupted()  # handled: forgotten
    assert signal.getsignal(sig) is before


def test_the_search_callback_raises_it_after_keeping_the_trial() -> None:
    trials: list[TrialResult] = []
    after = AfterTrial(trials)
    trial = TrialResult(load=1000.0, duration=1.0, offered_count=1000, loss_count=0)
    snapshot = SearchProgress(trial_number=1, trial=trial, goals=(), search_time=1.0, wall_time=1.0)
    with handle_interrupts():
        after(snapshot)
        _dropped(signal.SIGINT)
        with pytest.raises(KeyboardInterrupt):
            after(snapshot)
    assert len(trials) == 2  # the trial measured before the interrupt is kept
    after(snapshot)  # outside the handlers nothing is pending
