"""Processes: identity (PID + start time), namespace membership, and stopping them by PID.

A PID alone can be reused; a PID together with its start time (field 22
of /proc/<pid>/stat, clock ticks since boot) names one process for good.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Iterable
from pathlib import Path

#: Where ``ip netns`` keeps one file per named network namespace.
NETNS_RUN_DIR = Path("/run/netns")


def start_time(pid: int) -> int | None:
    """Start time of ``pid`` [clock ticks since boot]; None if it does not exist or is a zombie."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    # The command name (field 2) may contain spaces and ")": fields start after the last ")".
    fields = text[text.rfind(")") + 2 :].split()
    if not fields or fields[0] in ("Z", "X"):
        return None
    return int(fields[19])


def is_alive(pid: int, started: int | None = None) -> bool:
    """True if ``pid`` runs (and, if ``started`` is given, is the process that started then)."""
    now = start_time(pid)
    return now is not None and (started is None or now == started)


def namespace_pids(namespace: str) -> list[int]:
    """PIDs of processes (not ours) whose network namespace is ``namespace`` [/run/netns name]."""
    try:
        target = os.stat(NETNS_RUN_DIR / namespace)
    except FileNotFoundError:
        return []
    own = os.getpid()
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == own:
            continue
        try:
            ns = os.stat(f"/proc/{entry.name}/ns/net")
        except OSError:
            continue
        if (ns.st_dev, ns.st_ino) == (target.st_dev, target.st_ino):
            found.append(int(entry.name))
    return found


def terminate(pids: Iterable[int], grace_s: float = 1.0) -> list[int]:
    """SIGTERM ``pids``, then SIGKILL those alive after ``grace_s`` [s]; return who was signalled.

    Callers pass only PIDs they have identified (start time checked, or
    found inside a namespace of their own run).
    """
    signalled: dict[int, int | None] = {}
    for pid in pids:
        started = start_time(pid)
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
            signalled[pid] = started
    deadline = time.monotonic() + grace_s
    alive = [p for p, t in signalled.items() if is_alive(p, t)]
    while alive and time.monotonic() < deadline:
        time.sleep(0.02)
        alive = [p for p in alive if is_alive(p, signalled[p])]
    for pid in alive:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    return list(signalled)
