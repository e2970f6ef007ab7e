"""Ctrl-C and SIGTERM that are never lost, even when they land where Python drops them.

Python turns SIGINT (and our SIGTERM handler) into KeyboardInterrupt in
the main thread, wherever it is. In a few places an exception raised there
is printed as "Exception ignored ..." and dropped: notably the fork
handlers ``subprocess`` runs around every process start (logging's
``_releaseLock``). A search that starts a process per trial (tcpreplay)
then loses a Ctrl-C and runs on. ``handle_interrupts`` installs handlers
that also remember the signal, and keeps Python from printing the dropped
KeyboardInterrupt's traceback ("Exception ignored in ..."): it is not lost,
``raise_if_interrupted``, called between trials, raises it again (at most
one trial later).
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

_pending = threading.Event()
_signal_number: list[int] = []


def _interrupt(signum: int, frame: FrameType | None) -> None:
    _signal_number[:] = [signum]
    _pending.set()
    raise KeyboardInterrupt(f"signal {signum}")


@contextmanager
def handle_interrupts() -> Iterator[None]:
    """SIGINT and SIGTERM raise KeyboardInterrupt and are remembered (restored on exit)."""
    _pending.clear()
    previous = {sig: signal.signal(sig, _interrupt) for sig in (signal.SIGINT, signal.SIGTERM)}
    previous_hook = sys.unraisablehook

    def quiet_when_remembered(unraisable: sys.UnraisableHookArgs) -> None:
        if isinstance(unraisable.exc_value, KeyboardInterrupt) and _pending.is_set():
            return  # raised again by raise_if_interrupted
        previous_hook(unraisable)

    sys.unraisablehook = quiet_when_remembered
    try:
        yield
    finally:
        sys.unraisablehook = previous_hook
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        _pending.clear()


def raise_if_interrupted() -> None:
    """Raise KeyboardInterrupt again when a signal came and its exception was dropped.

    Call it only where the interrupt would not already be propagating (e.g.
    between trials); once it is handled, ``acknowledge`` forgets it.
    """
    if _pending.is_set():
        number = _signal_number[0] if _signal_number else signal.SIGINT
        raise KeyboardInterrupt(f"signal {number} (its first exception was dropped)")


def acknowledge() -> None:
    """The interrupt was handled (the testbed is being torn down): forget it."""
    _pending.clear()
