"""A second Ctrl-C (or SIGTERM) that lets the teardown finish and output.xml be written.

Robot Framework stops gracefully at the first SIGINT / SIGTERM (the running
keyword fails, teardowns run) and exits at once at the second, wherever it
is: the testbed's teardown does not run (traffic, DUTs and namespaces are
left) and output.xml is cut off mid-element, so neither log.html, rebot
nor ``ndrpdr summary`` can read the run. An impatient user, or a CI job's
abort followed by a second signal, does exactly that.

``guard_stop_signals`` wraps Robot's handler once its run has installed
it: the first signal goes to Robot (the graceful stop), the second is
acknowledged on stderr and otherwise ignored (the teardown is already
stopping traffic and DUTs, each with its own time limits), the third goes
to Robot as its second (exit at once). Outside a Robot run, or where the
handler is not Robot's, nothing is changed.
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Callable
from types import FrameType
from typing import Any

from robot.running.signalhandler import STOP_SIGNAL_MONITOR  # type: ignore[import-untyped]

#: What stderr says at the signal that Robot would have exited on.
SECOND_SIGNAL_TEXT = (
    "NdrPdrLibrary: stopping already (tearing down the testbed, then writing output.xml); "
    "one more signal forces the exit and leaves output.xml unreadable"
)

_Handler = Callable[[int, FrameType | None], Any]


class _Guard:
    """Robot's stop-signal handler with the second signal held back (see the module)."""

    def __init__(self, robots: _Handler) -> None:
        self.robots = robots
        self.count = 0

    def __call__(self, signum: int, frame: FrameType | None) -> Any:
        self.count += 1
        if self.count == 2:
            if sys.__stderr__ is not None:
                sys.__stderr__.write(SECOND_SIGNAL_TEXT + "\n")
                sys.__stderr__.flush()
            return None
        return self.robots(signum, frame)


def guard_stop_signals() -> bool:
    """Wrap Robot's SIGINT / SIGTERM handler (idempotent); True when it is (now) wrapped."""
    if threading.current_thread() is not threading.main_thread():
        return False
    monitor = STOP_SIGNAL_MONITOR
    handlers = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    guards = [h for h in handlers.values() if isinstance(h, _Guard)]
    guard = guards[0] if guards else _Guard(monitor)
    wrapped = False
    for sig, current in handlers.items():  # one guard for both: Robot counts them together
        if current is monitor:
            signal.signal(sig, guard)
        wrapped = wrapped or current is monitor or isinstance(current, _Guard)
    return wrapped
