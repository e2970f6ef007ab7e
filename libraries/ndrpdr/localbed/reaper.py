"""The reaper: a process that outlives a SIGKILLed runner and removes that run's leftovers.

``LocalTestbed.setup`` starts one per run (``ndrpdr.localbed.supervisor``)
and records its PID in the run's state file. It waits for the run's owner
to die (a pidfd polled every ``POLL_S``, or /proc with the start time where
pidfds are missing), then removes the run exactly as ``cleanup_leftovers``
would (``leftovers.remove_run``: processes, namespaces, interfaces, paths,
state file). It exits without touching anything as soon as the state file
is gone (the owner tore the run down itself) or on SIGTERM (the owner's
teardown sends one). Usage::

    python -m ndrpdr.localbed.reaper --run-id RUN --owner-pid PID \
        --owner-start-time TICKS --state-dir DIR
"""

from __future__ import annotations

import argparse
import contextlib
import os
import select
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from ndrpdr.localbed.cpuclaim import CLAIM_DIR_NAME, remove_stale_claims
from ndrpdr.localbed.errors import LocalTestbedError
from ndrpdr.localbed.leftovers import remove_run
from ndrpdr.localbed.procs import is_alive
from ndrpdr.localbed.state import StateStore

#: How often the reaper looks whether the owner died or the state file went [s].
POLL_S = 0.2


def _pidfd(pid: int) -> int | None:
    with contextlib.suppress(OSError, AttributeError):  # gone already, or no pidfd here
        return os.pidfd_open(pid)
    return None


def owner_died(
    owner_pid: int, owner_start_time: int, state_file: Path, poll_s: float = POLL_S
) -> bool:
    """Wait until the owner dies (True) or ``state_file`` is gone (False).

    The owner is the process ``owner_pid`` that started at
    ``owner_start_time`` [clock ticks since boot]; a zombie counts as dead.
    """
    fd = _pidfd(owner_pid)
    try:
        poller = None
        if fd is not None:
            poller = select.poll()
            poller.register(fd, select.POLLIN)
        while True:
            if not state_file.exists():
                return False
            if not is_alive(owner_pid, owner_start_time):  # also covers a reused PID
                return True
            if poller is not None:
                poller.poll(poll_s * 1000)  # readable when the owner exits
            else:
                time.sleep(poll_s)
    finally:
        if fd is not None:
            os.close(fd)


def reap(run_id: str, owner_pid: int, owner_start_time: int, store: StateStore) -> list[str]:
    """Wait for the owner of ``run_id``; if it died with the run still set up, remove the run.

    Returns what was removed ([] when the owner tore the run down itself).
    """
    path = store.path(run_id)
    if not owner_died(owner_pid, owner_start_time, path):
        return []
    try:
        state = store.load(path)
    except FileNotFoundError:  # the teardown finished just as the owner died
        return []
    except (OSError, ValueError) as exc:
        print(f"ndrpdr reaper: run {run_id}: cannot read {path}: {exc}", file=sys.stderr)
        return []
    removed = remove_run(
        path, state, problem=lambda text: print(f"ndrpdr reaper: {text}", file=sys.stderr)
    )
    try:  # the dead owner's CPU claim files (the kernel released their locks)
        removed += remove_stale_claims(store.directory / CLAIM_DIR_NAME)
    except (OSError, LocalTestbedError) as exc:
        print(f"ndrpdr reaper: run {run_id}: CPU claims: {exc}", file=sys.stderr)
    return removed


def main(argv: Sequence[str] | None = None) -> int:
    """Run the reaper of one run; 0 once it is done (nothing left, or nothing to do)."""
    parser = argparse.ArgumentParser(prog="python -m ndrpdr.localbed.reaper")
    parser.add_argument("--run-id", required=True)
    parser.add_argument("--owner-pid", type=int, required=True)
    parser.add_argument("--owner-start-time", type=int, required=True)
    parser.add_argument("--state-dir", type=Path, required=True)
    args = parser.parse_args(argv)
    removed = reap(args.run_id, args.owner_pid, args.owner_start_time, StateStore(args.state_dir))
    for line in removed:
        print(f"ndrpdr reaper: removed {line}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
