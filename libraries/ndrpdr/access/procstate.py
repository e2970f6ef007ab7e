"""What became of a process on a node: how it exited, and which of its descendants froze.

A driver often starts a wrapper (``sh`` running TRex's ``t-rex-64``,
which runs ``_t-rex-64``): the wrapper's state says nothing when the real
server is stopped by SIGSTOP, and its exit status is the shell's
(``128 + signal``). ``process_tree`` lists a process and its descendants
with their states (one ``ps`` on the node, through its access; PIDs are
shared by this machine's network namespaces); ``describe_exit`` reads an
exit status either way.
"""

from __future__ import annotations

import dataclasses
import signal

from ndrpdr.access.base import NodeAccess
from ndrpdr.errors import NdrPdrError

#: Longest wait for the ``ps`` that lists a process tree [s]: a diagnosis must be quick.
PS_TIMEOUT_S = 3.0


def stopped_text(state: str | None) -> str | None:
    """'stopped (SIGSTOP, state T)' or 'stopped by a debugger' for a stopped process's state
    letter (``T``, ``t``), None for any other state (or none)."""
    letter = (state or "")[:1]
    if letter == "T":
        return "stopped (SIGSTOP, state T)"
    return "stopped by a debugger" if letter == "t" else None


@dataclasses.dataclass(frozen=True)
class ProcessState:
    """One process: its PID, state letter (R, S, D, T, t, Z...) and command name."""

    pid: int
    state: str
    command: str

    @property
    def stopped(self) -> bool:
        """Stopped by a signal (SIGSTOP: ``T``) or a debugger (``t``): alive, doing nothing."""
        return stopped_text(self.state) is not None

    def describe(self) -> str:
        """'_t-rex-64 (pid 42) is stopped (SIGSTOP, state T)' for a stopped process."""
        state = stopped_text(self.state) or f"in state {self.state}"
        return f"{self.command} (pid {self.pid}) is {state}"


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def describe_exit(code: int | None, *, shell: bool = False) -> str:
    """'killed by SIGKILL (exit status -9)', 'exit status 1', or 'exit status unknown'.

    ``shell``: the status is a shell's, where 128 + N means killed by signal N.
    """
    if code is None:
        return "exit status unknown"
    if code < 0:
        return f"killed by {_signal_name(-code)} (exit status {code})"
    if shell and 128 < code < 128 + 65:
        return f"killed by {_signal_name(code - 128)} (exit status {code})"
    return f"exit status {code}"


def parse_ps(text: str) -> dict[int, tuple[int, ProcessState]]:
    """``ps -e -o pid=,ppid=,stat=,comm=`` output: {pid: (parent pid, state)}."""
    found: dict[int, tuple[int, ProcessState]] = {}
    for line in text.splitlines():
        fields = line.split(None, 3)
        if len(fields) < 4 or not fields[0].isdigit() or not fields[1].isdigit():
            continue
        pid, ppid = int(fields[0]), int(fields[1])
        found[pid] = (ppid, ProcessState(pid, fields[2], fields[3].strip()))
    return found


def process_tree(access: NodeAccess, pid: int) -> tuple[ProcessState, ...]:
    """``pid`` and its descendants on ``access``'s node, parents first (empty: it is gone).

    NdrPdrError when ``ps`` cannot run or times out (``PS_TIMEOUT_S``).
    """
    result = access.run(
        ["ps", "-e", "-o", "pid=,ppid=,stat=,comm="], check=False, timeout_s=PS_TIMEOUT_S
    )
    if result.exit_code != 0:
        raise NdrPdrError(f"{access.node}: ps failed: {result.stderr.strip()}")
    table = parse_ps(result.stdout)
    children: dict[int, list[int]] = {}
    for child, (parent, _) in table.items():
        children.setdefault(parent, []).append(child)
    tree: list[ProcessState] = []
    todo = [pid] if pid in table else []
    while todo:
        current = todo.pop(0)
        tree.append(table[current][1])
        todo.extend(sorted(children.get(current, ())))
    return tuple(tree)
