"""A Ctrl-C whose KeyboardInterrupt Python dropped is raised again between trials."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys

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


_SCRIPT = """
import os, signal, sys
from ndrpdr.interrupts import handle_interrupts, raise_if_interrupted

class SignalOnCollect:
    def __del__(self):
        os.kill(os.getpid(), signal.SIGINT)  # unraisable here, as in a fork handler

with handle_interrupts() if sys.argv[1] == "handled" else open(os.devnull):
    SignalOnCollect()
    try:
        raise_if_interrupted()
    except KeyboardInterrupt:
        print("raised again")
"""


@pytest.mark.parametrize("mode", ["handled", "plain"])
def test_a_dropped_interrupt_prints_no_traceback_and_is_raised_again(mode: str) -> None:
    """In a process of its own, as the CLI runs: Python's default report vs ours."""
    process = subprocess.run(
        [sys.executable, "-c", _SCRIPT, mode],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        check=False,
    )
    if mode == "handled":
        assert process.stdout == "raised again\n" and "Traceback" not in process.stderr
    else:  # what the CLI printed before: the traceback, and the interrupt lost
        assert process.stdout == "" and "Exception ignored" in process.stderr
