"""Starting and stopping a run's reaper, from the run's owner.

``start_reaper`` launches ``python -m ndrpdr.localbed.reaper`` (the same
interpreter, its own session, stdin/stdout/stderr on /dev/null, working
directory /) for one run; the reaper outlives a SIGKILLed owner and then
removes the run (see ``ndrpdr.localbed.reaper``). ``stop_reaper`` ends it
once the owner has torn the run down itself.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import ndrpdr
from ndrpdr.localbed.errors import LocalTestbedError

#: How long ``stop_reaper`` waits after SIGTERM before SIGKILL [s].
STOP_TIMEOUT_S = 2.0

#: The directory holding the ``ndrpdr`` package: the reaper imports it from there.
_PACKAGE_ROOT = str(Path(ndrpdr.__file__).resolve().parents[1])


def reaper_argv(run_id: str, owner_pid: int, owner_start_time: int, state_dir: Path) -> list[str]:
    """The command line of the reaper of run ``run_id`` (owner start time in clock ticks)."""
    return [
        sys.executable,
        "-m",
        "ndrpdr.localbed.reaper",
        "--run-id",
        run_id,
        "--owner-pid",
        str(owner_pid),
        "--owner-start-time",
        str(owner_start_time),
        "--state-dir",
        str(state_dir),
    ]


def start_reaper(
    run_id: str, owner_pid: int, owner_start_time: int, state_dir: Path
) -> subprocess.Popen[bytes]:
    """Start the reaper of run ``run_id`` (LocalTestbedError naming the run if it cannot start).

    It gets no parent-death signal (it is there to outlive its parent) and
    finds the ``ndrpdr`` package this process uses, whatever put it on
    ``sys.path`` here (``PYTHONPATH``, Robot's ``--pythonpath``, pytest).
    """
    inherited = os.environ.get("PYTHONPATH")
    path = _PACKAGE_ROOT if not inherited else os.pathsep.join([_PACKAGE_ROOT, inherited])
    try:
        return subprocess.Popen(
            reaper_argv(run_id, owner_pid, owner_start_time, state_dir),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,  # nobody may wait on a pipe the reaper keeps open
            cwd="/",
            env={**os.environ, "PYTHONPATH": path},
            start_new_session=True,  # no Ctrl-C or hangup of the runner's terminal reaches it
        )
    except OSError as exc:
        raise LocalTestbedError(
            f"run {run_id}: cannot start its reaper {sys.executable!r}: {exc}"
        ) from exc


def stop_reaper(reaper: subprocess.Popen[bytes], timeout_s: float = STOP_TIMEOUT_S) -> None:
    """End the reaper (SIGTERM, then SIGKILL after ``timeout_s`` [s]) and collect its exit."""
    if reaper.poll() is None:
        reaper.terminate()
        try:
            reaper.wait(timeout_s)
        except subprocess.TimeoutExpired:
            reaper.kill()
    reaper.wait()
