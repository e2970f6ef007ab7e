"""Processes the run starts die with their parent (PR_SET_PDEATHSIG), even on SIGKILL.

Real processes: a parent Python starts ``sleep`` through LocalTransport
(the netns transport's parent class: the same Popen) from its main thread,
is SIGKILLed, and its child must be gone; what that child forks does not
get the signal (the kernel does not inherit it), nor what a worker thread
starts (the kernel would fire it when that thread ends), which is why the
local testbed has a reaper.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

from ndrpdr.access.local import LocalProcess, LocalTransport
from ndrpdr.localbed.procs import is_alive

_ROOT = Path(__file__).resolve().parents[2]

#: A parent that starts a sleeper, and a shell that forks another, and prints their PIDs.
_PARENT = textwrap.dedent(
    """
    import subprocess, time
    from ndrpdr.access.local import LocalTransport
    transport = LocalTransport("local")
    sleeper = transport.start(["sleep", "60"])
    shell = transport.start(["sh", "-c", "sleep 61 & echo $!; wait"])
    deadline = time.monotonic() + 5
    while not shell.output().strip() and time.monotonic() < deadline:
        time.sleep(0.01)
    print(sleeper.pid, shell.pid, shell.output().strip(), flush=True)
    time.sleep(60)
    """
)


def _wait_gone(pid: int, timeout_s: float = 2.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while is_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.01)
    return not is_alive(pid)


def test_a_started_process_dies_when_its_parent_is_sigkilled() -> None:
    env = {**os.environ, "PYTHONPATH": str(_ROOT / "libraries")}
    parent = subprocess.Popen(
        [sys.executable, "-c", _PARENT], stdout=subprocess.PIPE, text=True, env=env
    )
    assert parent.stdout is not None
    try:
        sleeper, shell, grandchild = (int(p) for p in parent.stdout.readline().split())
        assert is_alive(sleeper) and is_alive(shell) and is_alive(grandchild)
    finally:
        parent.kill()
        parent.wait()
        parent.stdout.close()
    try:
        assert _wait_gone(sleeper), f"sleep {sleeper} outlived its SIGKILLed parent"
        assert _wait_gone(shell), f"sh {shell} outlived its SIGKILLed parent"
        assert is_alive(grandchild)  # not inherited across fork: the reaper's job
    finally:
        if is_alive(grandchild):
            os.kill(grandchild, signal.SIGKILL)


def test_a_process_started_from_a_worker_thread_outlives_the_thread() -> None:
    """The kernel would kill it when that thread ends, run or not: so it gets no such signal."""
    started: list[LocalProcess] = []
    thread = threading.Thread(
        target=lambda: started.append(LocalTransport("x").start(["sleep", "30"]))
    )
    thread.start()
    thread.join()
    process = started[0]
    try:
        time.sleep(0.3)
        assert process.is_running(), process.exit_code
    finally:
        process.stop()
