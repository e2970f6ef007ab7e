"""Helpers the node access tests share: wait for a condition, find processes by command line."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable


def pgrep(pattern: str) -> list[int]:
    """PIDs of the processes whose command line matches ``pattern`` (``pgrep -f``)."""
    done = subprocess.run(["pgrep", "-f", pattern], capture_output=True, text=True, check=False)
    return [int(pid) for pid in done.stdout.split()]


def wait_for(predicate: Callable[[], object], timeout_s: float = 5.0) -> bool:
    """True as soon as ``predicate()`` is true; its last answer after ``timeout_s`` [s]."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return bool(predicate())
