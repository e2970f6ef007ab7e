"""Children that die with their parent: PR_SET_PDEATHSIG(SIGKILL) set between fork and exec.

``die_with_parent()`` gives a ``preexec_fn`` for ``subprocess.Popen``: in
the child it asks the kernel to SIGKILL it when its parent goes, so a
SIGKILLed runner (which runs no teardown) takes the processes it started
with it.

Limits, all of them the kernel's:

* The signal fires when the parent *thread* that forked the child exits,
  not only when the whole process does. So only children started from the
  main thread (which lives as long as the process) get it: a child started
  from a worker thread would die when that thread ends, with its run still
  going (building two testbeds in two threads, say). Those go without, and
  the reaper covers them. The CLI and Robot (on POSIX) start everything
  from the main thread.
* It is not inherited across fork: only the process started directly
  gets it, not what that process forks. The local testbed's reaper
  (``ndrpdr.localbed.reaper``) removes the rest.
* Executing a set-user-ID program (``sudo``) clears it, so a non-root
  runner's ``sudo`` children do not get it; as root no ``sudo`` is used.

A ``preexec_fn`` runs between fork and exec, where a lock another thread
held at fork time would never be released. This one takes none: it makes
one foreign call prepared in the parent (``prctl``), ``getppid`` and, at
worst, ``kill``; so the callers mark it ``noqa: PLW1509``.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import threading
from collections.abc import Callable

#: prctl option number of PR_SET_PDEATHSIG (linux/prctl.h).
PR_SET_PDEATHSIG = 1


def _load_prctl() -> Callable[[int, int, int, int, int], int] | None:
    name = ctypes.util.find_library("c")
    try:
        prctl = ctypes.CDLL(name, use_errno=True).prctl
    except (OSError, AttributeError):  # not glibc/Linux: no parent-death signal
        return None
    prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    prctl.restype = ctypes.c_int
    function: Callable[[int, int, int, int, int], int] = prctl
    return function


#: Loaded once in the parent, so the child (between fork and exec) only makes the call.
_PRCTL = _load_prctl()


def die_with_parent() -> Callable[[], None] | None:
    """A ``preexec_fn`` giving the child SIGKILL when this process ends, or None.

    None (no parent-death signal) off Linux/glibc and when called outside
    the main thread (see the module docstring); call it in the thread that
    starts the child. If the parent is already gone when the child sets the
    signal up, the child kills itself at once instead of running orphaned.
    """
    prctl = _PRCTL
    if prctl is None or threading.current_thread() is not threading.main_thread():
        return None
    parent = os.getpid()

    def preexec() -> None:
        prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        if os.getppid() != parent:  # the parent died before the call: nobody would signal us
            os.kill(os.getpid(), signal.SIGKILL)

    return preexec
