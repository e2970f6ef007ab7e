"""Who writes into an output directory now: the lock a run holds there while it runs.

``<outdir>/.ndrpdr-run.lock`` is locked with ``flock`` by the run that
writes there and says ``pid=<pid> run=<run id> started=<time>``; the
kernel drops the lock with the last process holding it, however the run
ends, so a lock left by a dead run is no lock. Two kinds of run take it:

* ``bin/run-suites``, before it starts robot (held by the shell and the
  robot or pabot it runs; its pid is the shell's). A second run-suites
  finds it taken and writes beside (``results-<run id>``) saying so;
* the keyword library, when a plain ``robot`` (or ``pabot``) run imports
  it (``claim``): an exclusive lock for a robot run, a shared one for each
  worker of a pabot run, whose pid is the workers' parent, pabot.

A process whose ancestor is the holder's pid belongs to the holder's run
(run-suites' robot, pabot's workers), and writes there as the run's.
``ndrpdr clear-results`` refuses a directory a live run holds.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import os
import re
from pathlib import Path

#: The lock file's name in an output directory.
LOCK_NAME = ".ndrpdr-run.lock"

_PID = re.compile(r"\bpid=(\d+)\b")

#: How far up the process tree ``ancestors`` looks.
_MAX_DEPTH = 64


def holder(directory: Path) -> str | None:
    """The live run that holds ``directory`` ('pid=... run=... started=...'), None if none.

    Takes and at once releases the lock to ask; a directory without a lock
    file (or that cannot be read) is held by no one.
    """
    path = directory / LOCK_NAME
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if not _try(fd, fcntl.LOCK_EX):
            return _said(path)
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def _said(path: Path) -> str:
    """What the holder of ``path`` wrote into it."""
    with contextlib.suppress(OSError):
        text = path.read_text(errors="replace").strip()
        return text or "a run that has not said who it is yet"
    return "a run that has not said who it is"


def ancestors(pid: int | None = None) -> list[int]:
    """``pid`` (default: this process) and its parents up to init, read from ``/proc``.

    Ends early, without error, where a parent cannot be read (a process
    that just ended, or no ``/proc``).
    """
    found = [os.getpid() if pid is None else pid]
    while len(found) < _MAX_DEPTH and found[-1] > 1:
        try:
            stat = Path(f"/proc/{found[-1]}/stat").read_text()
        except OSError:
            break
        # "pid (comm) state ppid ...": comm may hold spaces and parentheses
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) < 2 or not fields[1].isdigit() or int(fields[1]) in found:
            break
        found.append(int(fields[1]))
    return [known for known in found if known > 0]


def holder_pid(text: str) -> int | None:
    """The pid a lock file's text names, None when it names none."""
    match = _PID.search(text)
    return int(match.group(1)) if match else None


@dataclasses.dataclass(frozen=True)
class Claim:
    """What ``claim`` found: this process's run holds the directory, or another live run does."""

    directory: Path
    #: None: the directory is this run's; else the other run's 'pid=... run=... started=...'.
    other: str | None
    #: The lock's file descriptor this process keeps open (None: it holds none itself).
    fd: int | None = None


def claim(directory: Path, *, pid: int, run_id: str, started: str, shared: bool) -> Claim:
    """Take ``directory``'s lock for the run of ``pid`` (this process or its parent).

    ``shared``: this process is one of several of the run (a pabot worker,
    ``pid`` their parent): the lock is kept shared, so the run holds it while
    any of them runs. Otherwise it is kept exclusive. Either way the first
    taker writes ``pid=<pid> run=<run_id> started=<started>`` into the file.

    A lock held by a process among this one's ancestors (bin/run-suites, pabot)
    is this run's: ``Claim.other`` is None; a worker also adds its shared lock.
    The descriptor is kept open by this process until it ends (close-on-exec,
    so nothing it starts holds the lock after it). OSError when the directory
    or the lock file cannot be made.
    """
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / LOCK_NAME
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        if _try(fd, fcntl.LOCK_EX):
            os.ftruncate(fd, 0)
            os.write(fd, f"pid={pid} run={run_id} started={started}\n".encode())
            if not shared or _try(fd, fcntl.LOCK_SH):
                return Claim(directory, None, fd)
            # another process took the lock while it was turned into a shared one
        text = _said(path)
        ours = holder_pid(text) in ancestors()
        if ours and shared and _try(fd, fcntl.LOCK_SH):
            return Claim(directory, None, fd)
        os.close(fd)
        return Claim(directory, None if ours else text)
    except BaseException:
        with contextlib.suppress(OSError):
            os.close(fd)
        raise


def _try(fd: int, operation: int) -> bool:
    """``flock(fd, operation)`` without waiting; False when another holder prevents it."""
    try:
        fcntl.flock(fd, operation | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True
