"""Watching a TRex server while a trial runs: one that dies or freezes ends the trial at once.

Without the watch, a client call waiting on a dead or frozen server fails
only after TRex's client has retried its RPC (4 x 3 s); with it, a thread
asks the server (``TrexServer.diagnose``) every WATCH_INTERVAL_S and, at
the first problem, calls ``on_problem`` (the session ends its client), so
the waiting call fails now and the session's error names the server.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator

from ndrpdr.trafficgen.trex.server import TrexServer

#: How often ``watching`` looks at the server during a trial [s].
WATCH_INTERVAL_S = 1.0


@contextlib.contextmanager
def watching(
    server: TrexServer | None, on_problem: Callable[[], None], name: str
) -> Iterator[None]:
    """Watch ``server`` (None: not started here, nothing to watch) while the block runs.

    ``on_problem`` is called once, from the watching thread (``name``),
    when the server died or froze; the thread ends with the block.
    """
    if server is None:
        yield
        return
    done = threading.Event()

    def watch() -> None:
        while not done.wait(WATCH_INTERVAL_S):
            if server.diagnose() is not None:
                on_problem()
                return

    thread = threading.Thread(target=watch, name=name, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join(WATCH_INTERVAL_S + 5.0)
