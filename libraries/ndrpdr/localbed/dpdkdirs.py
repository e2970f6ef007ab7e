"""DPDK runtime directories (``/var/run/dpdk/ndrpdr-*``) whose process is gone.

A DPDK primary process holds an fcntl write lock on its runtime
directory's ``config`` file for as long as it runs. A directory of ours
(named ``ndrpdr-*``: a DUT's ``--file-prefix`` or TRex's ``--prefix``)
whose ``config`` nobody locks, and that is older than a start-up takes,
belongs to a process that died without removing it: a runner killed by
SIGKILL, or a DUT host of a lab in a box reached over SSH, whose paths the
run cannot record. Each such directory holds ~12 MiB of the tmpfs /run.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import time
from pathlib import Path

#: Where DPDK keeps runtime directories when run as root.
DPDK_RUNTIME_ROOT = Path("/var/run/dpdk")

#: Our runtime directories' name prefix.
OUR_PREFIX = "ndrpdr-"

#: A directory younger than this [s] may belong to a process still starting up.
MIN_AGE_S = 60.0


def _config_locked(config: Path) -> bool:
    """True if some process holds a lock on ``config`` (a missing file is not locked)."""
    try:
        fd = os.open(config, os.O_RDWR | os.O_CLOEXEC)
    except FileNotFoundError:
        return False
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:  # EAGAIN / EACCES: a live DPDK process holds it
        return True
    else:
        fcntl.lockf(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


def remove_stale_dpdk_dirs(
    root: Path = DPDK_RUNTIME_ROOT, *, min_age_s: float = MIN_AGE_S, prefix: str = OUR_PREFIX
) -> list[str]:
    """Remove our runtime directories under ``root`` that no live DPDK process holds.

    Returns one description per directory removed; directories younger than
    ``min_age_s`` [s] and every directory not named ``prefix``* (``ndrpdr-``)
    are left alone.
    """
    removed: list[str] = []
    try:
        entries = sorted(root.iterdir())
    except (FileNotFoundError, NotADirectoryError):
        return removed
    now = time.time()
    for entry in entries:
        if not entry.name.startswith(prefix) or not entry.is_dir():
            continue
        try:
            age = now - entry.stat().st_mtime
        except FileNotFoundError:
            continue
        if age < min_age_s or _config_locked(entry / "config"):
            continue
        shutil.rmtree(entry, ignore_errors=True)
        if not entry.exists():
            removed.append(f"DPDK runtime directory {entry} (no process holds its config)")
    return removed
