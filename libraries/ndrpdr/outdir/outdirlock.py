"""Who writes into an output directory now: the lock a run holds there while it runs.

``bin/run-suites`` takes ``<outdir>/.ndrpdr-run.lock`` (``flock``, held by
the shell and the robot it runs, released by the kernel however they
end) and writes ``pid=<its pid> run=<run id> started=<time>`` into it. A
second run finds the lock taken and writes beside (``results-<run id>``)
saying so; ``ndrpdr clear-results`` refuses a directory a live run holds.
A lock left by a dead run is no lock: the kernel dropped it with the run.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path

#: The lock file's name in an output directory.
LOCK_NAME = ".ndrpdr-run.lock"


def holder(directory: Path) -> str | None:
    """The live run that holds ``directory`` ('pid=... run=... started=...'), None if none.

    Takes and at once releases the lock to ask; a directory without a lock
    file (or that cannot be read) is held by no one.
    """
    path = directory / LOCK_NAME
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            with contextlib.suppress(OSError):
                text = path.read_text(errors="replace").strip()
                return text or "a run that has not said who it is yet"
            return "a run that has not said who it is"
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)
