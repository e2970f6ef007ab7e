"""Is a DUT's process still forwarding? Exit status, SIGSTOP and how often to ask.

A DUT driver's ``health_check`` calls ``check_process`` for each process
that makes its data plane (``dpdk-testpmd``, ``ovs-vswitchd``...): a
process that exited gives a DutError naming the node, the driver, the
process and its PID, its exit status (and the signal that killed it), and
its log tail; a process stopped by a signal (SIGSTOP: state ``T`` in
``/proc/<pid>/stat``, read directly for a process of this machine, or
``ps -o stat=`` through the node access for a remote one) gives one saying
"stopped (SIGSTOP)": it is alive but forwards nothing.

``HealthCheck`` is what a search calls between trials (``searchrun``):
``lost_all`` says the last trial lost every frame, which asks for a check
now. ``health_interval_s`` says how often a DUT behind a node access may
be checked: after every trial on this machine (a ``waitpid`` and a read of
``/proc``), at most every ``REMOTE_HEALTH_INTERVAL_S`` over SSH.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from ndrpdr.access.base import BackgroundProcess, NodeAccess
from ndrpdr.access.local import LocalProcess, LocalTransport
from ndrpdr.access.processlog import log_tail
from ndrpdr.access.procstate import describe_exit
from ndrpdr.dut.base import DutDriver, DutError
from ndrpdr.errors import NdrPdrError

#: Shortest pause between two health checks of a DUT reached over SSH [s].
REMOTE_HEALTH_INTERVAL_S = 2.0
#: How long collecting an exited process (its exit status, its log) may take [s].
COLLECT_TIMEOUT_S = 2.0


class HealthCheck(Protocol):
    """Raise (a DutError) unless every DUT still forwards; ``lost_all``: check now."""

    def __call__(self, *, lost_all: bool = False) -> None:
        """Check the DUTs (or skip the ones checked too recently, unless ``lost_all``)."""
        ...


def health_interval_s(dut: DutDriver, access: NodeAccess) -> float:
    """Shortest pause between two health checks of ``dut`` through ``access`` [s] (0: always).

    0 on this machine, ``REMOTE_HEALTH_INTERVAL_S`` over SSH, or longer if
    the driver asks for more (its ``health_interval_s``: a check that runs
    several commands; a trial that lost every frame forces one anyway).
    """
    base = 0.0 if isinstance(access, LocalTransport) else REMOTE_HEALTH_INTERVAL_S
    return max(float(dut.health_interval_s), base)


def process_state(process: BackgroundProcess, access: NodeAccess) -> str | None:
    """The process's state letter (R, S, D, T, t, Z...), None when it cannot be read.

    A process of this machine: ``/proc/<pid>/stat`` read directly (PIDs are
    shared by network namespaces); any other: ``ps -o stat= -p <pid>`` on
    its node.
    """
    if isinstance(process, LocalProcess):
        try:
            text = Path(f"/proc/{process.pid}/stat").read_text(errors="replace")
        except OSError:
            return None
        after = text.rpartition(")")[2].split()
        return after[0] if after else None
    try:
        result = access.run(
            ["ps", "-o", "stat=", "-p", str(process.pid)], check=False, sudo=True, timeout_s=15.0
        )
    except NdrPdrError:
        return None
    state = result.stdout.strip()
    return state[:1] or None


def check_process(
    error: Callable[[str, str], DutError],
    name: str,
    process: BackgroundProcess,
    access: NodeAccess,
    *,
    log: Callable[[], str] | None = None,
) -> None:
    """DutError (made by ``error(step, detail)``) unless ``process`` runs and is not stopped.

    ``name`` is the process as a user knows it (``dpdk-testpmd``); ``log()``
    its log (default: the process's own output). An exited process is
    collected (its exit status read, its log kept) on the way.
    """
    step = "health check"
    try:
        running = process.is_running()
    except NdrPdrError as exc:
        raise error(step, f"cannot tell whether {name} (pid {process.pid}) runs: {exc}") from exc
    state = process_state(process, access) if running else None
    if state is not None and state in "Tt":
        what = "stopped (SIGSTOP)" if state == "T" else "stopped by a debugger"
        condition = f"is {what}, state {state}: alive but forwarding nothing"
    elif running and state != "Z":  # a zombie has exited, its parent has not reaped it yet
        return
    else:
        try:
            code = process.stop(COLLECT_TIMEOUT_S)
        except (NdrPdrError, OSError):
            code = None
        condition = f"has exited, {describe_exit(code)}"
    try:
        text = log() if log is not None else process.output()
    except NdrPdrError as exc:
        text = f"(unavailable: {exc})"
    tail = log_tail(text) or "(empty)"
    raise error(step, f"{name} (pid {process.pid}) {condition}; log tail:\n{tail}")
