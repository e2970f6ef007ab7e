"""Background processes on an SSH node: start detached, check, signal, stop, collect.

A process is detached with ``setsid -f`` (it outlives the connection) into
a private temporary directory under /tmp that holds its log, its real PID
and, once it exits, its exit status (a small ``sh`` waits for it and
records it). ``stop`` sends SIGINT, SIGTERM, then SIGKILL until it exits,
reads the log and removes the directory. Every step is a command run
through ``sshcommand``.

``start`` raises NodeAccessError when the process could not be started
(the launcher's message says why); checking and stopping raise what
``SshCommands.run`` raises (CommandError, NodeAccessError).
"""

from __future__ import annotations

import contextlib
import math
import shlex
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ndrpdr.access.base import CommandError, NodeAccessError, StartSettings
from ndrpdr.access.sshcommand import SshCommands, with_sudo
from ndrpdr.access.sshconnection import log
from ndrpdr.errors import NdrPdrError

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ndrpdr.access.base import StartOptions

#: Run by the per-process waiter: records the real PID, then becomes the command.
_INNER_SCRIPT = 'echo $$ > "$1/pid.tmp" && mv -f "$1/pid.tmp" "$1/pid"; shift; exec "$@"'

#: The waiter: runs the command in the foreground (signals keep their default
#: handling, unlike with ``&``) and records its exit status.
_WAITER_SCRIPT = (
    'd=$1; inner=$2; shift 2; sh -c "$inner" sh "$d" "$@"; '
    'echo $? > "$d/rc.tmp"; mv -f "$d/rc.tmp" "$d/rc"'
)

#: Creates the directory, detaches the waiter, waits for the PID; prints directory and PID.
_LAUNCH_SCRIPT = """\
waiter=$1; inner=$2; shift 2
d=$(mktemp -d /tmp/ndrpdr-XXXXXXXXXX) || exit 1
setsid -f sh -c "$waiter" sh "$d" "$inner" "$@" </dev/null >"$d/log" 2>&1 || exit 1
i=0
while [ ! -s "$d/pid" ]; do
  if [ "$i" -ge 200 ]; then echo "no PID after 10 s: $d" >&2; exit 3; fi
  sleep 0.05; i=$((i+1))
done
echo "$d"; cat "$d/pid"
"""

#: True (exit 0) while the process runs: no exit status recorded and the PID is alive.
_RUNNING_SCRIPT = '[ ! -e "$1/rc" ] && kill -0 "$2" 2>/dev/null'

#: SIGINT, SIGTERM, SIGKILL, each followed by up to $3 waits of 0.05 s; prints the exit status.
_STOP_SCRIPT = """\
d=$1; pid=$2; ticks=$3
for sig in INT TERM KILL; do
  [ -e "$d/rc" ] && break
  kill -0 "$pid" 2>/dev/null || break
  kill -s "$sig" "$pid" 2>/dev/null; kill -s CONT "$pid" 2>/dev/null
  i=0
  while [ "$i" -lt "$ticks" ] && [ ! -e "$d/rc" ] && kill -0 "$pid" 2>/dev/null; do
    sleep 0.05; i=$((i+1))
  done
done
i=0
while [ ! -e "$d/rc" ] && [ "$i" -lt 20 ]; do sleep 0.05; i=$((i+1)); done
cat "$d/rc" 2>/dev/null
exit 0
"""

#: Prints the log, then removes the process directory.
_COLLECT_SCRIPT = 'cat -- "$1/log" 2>/dev/null; rm -rf -- "$1"'


class SshProcess:
    """A background process on an SSH node, detached from the connection.

    Its log, real PID and (once it exits) exit status live in a private
    temporary directory on the node, removed by ``stop``; the log text is
    kept in memory after that. The exit status is what ``sh`` reports:
    128 + N for a process killed by signal N is returned as -N (as
    ``subprocess`` does locally).
    """

    def __init__(
        self,
        commands: SshCommands,
        argv: Sequence[str],
        pid: int,
        directory: str,
        *,
        sudo: bool,
        on_stop: Callable[[SshProcess], None],
    ) -> None:
        """Made by ``SshProcesses.start``: ``directory`` holds log, pid and rc.

        ``on_stop`` is told once the process is stopped and collected.
        """
        self._commands = commands
        self.argv = tuple(argv)
        self._pid = pid
        self.directory = directory
        self._sudo = sudo
        self._on_stop = on_stop
        self._final_output: str | None = None
        self._exit_code: int | None = None

    @property
    def pid(self) -> int:
        """The process id on the node (the command itself, not a wrapper)."""
        return self._pid

    @property
    def stopped(self) -> bool:
        """True once ``stop`` collected the process (its log is then in memory)."""
        return self._final_output is not None

    @property
    def exit_code(self) -> int | None:
        """The exit code recorded by ``stop`` (None before, or if unknown)."""
        return self._exit_code

    def is_running(self) -> bool:
        """True while the process has not exited (``kill -0`` on the node)."""
        if self._final_output is not None:
            return False
        result = self._commands.run(
            ["sh", "-c", _RUNNING_SCRIPT, "sh", self.directory, str(self._pid)],
            sudo=self._sudo,
            check=False,
            timeout_s=30.0,
        )
        return result.exit_code == 0

    def stop(self, timeout_s: float = 10.0) -> int | None:
        """SIGINT, SIGTERM, SIGKILL, each given ``timeout_s`` / 3 [s]; then collect the log.

        Returns the exit code (None if it is unknown). Stopping again returns
        the same code without touching the node.
        """
        if self._final_output is not None:
            return self._exit_code
        ticks = max(1, math.ceil(timeout_s / 3 / 0.05))
        result = self._commands.run(
            ["sh", "-c", _STOP_SCRIPT, "sh", self.directory, str(self._pid), str(ticks)],
            sudo=self._sudo,
            timeout_s=timeout_s + 30.0,
        )
        status = result.stdout.strip()
        if status.isdigit():
            code = int(status)
            self._exit_code = -(code - 128) if 128 < code <= 128 + 64 else code
        collected = self._commands.run(
            ["sh", "-c", _COLLECT_SCRIPT, "sh", self.directory],
            sudo=self._sudo,
            timeout_s=60.0,
        )
        self._final_output = collected.stdout
        self._on_stop(self)
        return self._exit_code

    def output(self) -> str:
        """What the process wrote to stdout and stderr so far."""
        if self._final_output is not None:
            return self._final_output
        return self._commands.run(
            ["cat", "--", f"{self.directory}/log"], sudo=self._sudo, timeout_s=60.0
        ).stdout


class SshProcesses:
    """Start background processes on one node and keep those not yet stopped."""

    def __init__(self, commands: SshCommands) -> None:
        """The processes are started, checked and stopped through ``commands``."""
        self._commands = commands
        self._running: list[SshProcess] = []

    def start(self, argv: Sequence[str], **options: Unpack[StartOptions]) -> SshProcess:
        """Start ``argv`` detached on the node (``setsid``), output to a log under /tmp."""
        commands = self._commands
        how = StartSettings(**options)
        sudo = how.sudo
        command = commands.with_env(argv, how.env)
        shown = with_sudo(command, commands.needs_sudo(sudo))
        node = commands.node
        try:
            result = commands.run(
                ["sh", "-c", _LAUNCH_SCRIPT, "sh", _WAITER_SCRIPT, _INNER_SCRIPT, *command],
                sudo=sudo,
                timeout_s=60.0,
            )
        except CommandError as exc:
            message = (
                f"{node}: cannot start {shlex.join(shown)} (exit code "
                f"{exc.result.exit_code}): {exc.result.stderr.strip() or exc.result.stdout.strip()}"
            )
            raise NodeAccessError(message) from exc
        lines = result.stdout.split()
        if len(lines) != 2 or not lines[1].isdigit():
            message = f"{node}: cannot start {shlex.join(shown)}: launcher said {lines!r}"
            raise NodeAccessError(message)
        process = SshProcess(
            commands, shown, int(lines[1]), lines[0], sudo=sudo, on_stop=self._forget
        )
        self._running.append(process)
        return process

    def _forget(self, process: SshProcess) -> None:
        with contextlib.suppress(ValueError):
            self._running.remove(process)

    def stop_all(self) -> None:
        """Stop every process started here and not yet stopped (a failure is logged)."""
        for process in list(self._running):
            try:
                process.stop()
            except NdrPdrError as exc:
                log.warning("%s: cannot stop PID %d: %s", self._commands.node, process.pid, exc)
        self._running.clear()
