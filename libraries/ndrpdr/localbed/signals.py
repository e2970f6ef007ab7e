"""Holding Ctrl-C back while a cleanup runs, so a second Ctrl-C cannot cut it short."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator


@contextlib.contextmanager
def sigint_deferred() -> Iterator[None]:
    """Within the block, SIGINT is recorded instead of acted on; it is delivered after.

    Only the main thread can change signal handlers; elsewhere this does
    nothing. After the block the previous handler runs once if SIGINT came
    (for Python's default handler: KeyboardInterrupt is raised).
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[int] = []
    try:
        previous = signal.signal(signal.SIGINT, lambda signum, _frame: received.append(signum))
    except ValueError:  # not the main interpreter
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if received:
            if callable(previous):
                previous(signal.SIGINT, None)
            elif previous == signal.SIG_DFL:
                raise KeyboardInterrupt
