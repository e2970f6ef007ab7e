"""Commands on an SSH node: run one to its end, its exit status and output captured.

Each command gets its own session on the node's connection and runs as::

    exec sh -c 'echo "ndrpdr-pid=$$"; exec "$@"' sh [sudo -n --] [env K=V...] ARGV...

The login shell execs that ``sh``, which prints its PID (the process group
of the session, sshd made it a session leader; what the shell's rc files
print before that line is dropped) and execs the command in place, so a
command that runs past its timeout can be killed with its whole process
group. Arguments are quoted with ``shlex``: a topology value never
becomes shell syntax. ``sudo`` is added only for a user that is not root
(asked once with ``id -u``).

``run`` raises CommandError (with ``check``, an exit code other than 0),
CommandTimeoutError (it ran past its timeout; its process group was
killed), NodeAccessError (no connection, the command could not be started,
or the connection was lost while it ran) and ValueError (an empty command,
an invalid environment variable name, a timeout that is not positive).
"""

from __future__ import annotations

import contextlib
import dataclasses
import re
import select
import shlex
import threading
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import paramiko

from ndrpdr.access.base import (
    CommandError,
    CommandResult,
    CommandTimeoutError,
    NodeAccessError,
    RunSettings,
    decode_output,
)
from ndrpdr.access.sshconnection import LINK_ERRORS, SshConnection, log
from ndrpdr.errors import NdrPdrError

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ndrpdr.access.base import RunOptions


#: Prints the PID of the shell after a marker, then replaces the shell by the command.
#: (The marker skips whatever the user's shell rc files print before it.)
_PID_MARKER = b"ndrpdr-pid="
_PID_WRAPPER = 'echo "ndrpdr-pid=$$"; exec "$@"'

#: Kills the process group of a timed-out command (or the process, if not a group leader).
#: (No "--": dash's kill does not take it; a negative PID after -9 is not an option.)
_KILL_SCRIPT = 'kill -9 "-$1" 2>/dev/null || kill -9 "$1" 2>/dev/null; exit 0'

_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_READ_CHUNK = 1 << 20
_POLL_S = 0.2
#: How long a timed-out command may still take to report its PID (so it can be killed) [s].
_PID_GRACE_S = 5.0


def with_sudo(argv: Sequence[str], sudo: bool) -> list[str]:
    """``argv`` behind ``sudo -n --`` when ``sudo`` (never asks for a password)."""
    return ["sudo", "-n", "--", *argv] if sudo else list(argv)


@dataclasses.dataclass(frozen=True)
class Outcome:
    """What one remote command did, its output still bytes."""

    exit_code: int
    stdout: bytes
    stderr: bytes
    duration_s: float
    timed_out: bool

    def result(self, node: str, argv: Sequence[str], *, with_stdout: bool = True) -> CommandResult:
        """As a CommandResult; ``with_stdout`` False leaves out stdout (a file's content)."""
        return CommandResult(
            node,
            tuple(argv),
            self.exit_code,
            decode_output(self.stdout) if with_stdout else "",
            decode_output(self.stderr),
            self.duration_s,
        )


class SshCommands:
    """Run commands on the node of one SSH connection."""

    def __init__(self, connection: SshConnection) -> None:
        """Commands go over ``connection``; its access settings' ``sudo`` runs all as root."""
        self._connection = connection
        self._is_root_cache: bool | None = None

    @property
    def node(self) -> str:
        """The node key, for messages."""
        return self._connection.node

    def execute(
        self, argv: Sequence[str], *, timeout_s: float, stdin: bytes | None, sudo_kill: bool
    ) -> Outcome:
        """Run ``argv`` (already behind sudo if needed) and capture its output as bytes.

        On timeout its process group is killed (through sudo when ``sudo_kill``).
        """
        if timeout_s <= 0:
            raise ValueError(f"{self.node}: timeout_s must be positive, not {timeout_s}")
        command = "exec sh -c " + shlex.quote(_PID_WRAPPER) + " sh " + shlex.join(argv)
        started = time.monotonic()
        deadline = started + timeout_s
        channel = self._connection.open_session()
        out = bytearray()
        err = bytearray()
        sender: threading.Thread | None = None
        try:
            try:
                channel.exec_command(command)
            except LINK_ERRORS as exc:
                address = self._connection.address
                message = f"{self.node}: cannot run {shlex.join(argv)} on {address}: {exc}"
                raise NodeAccessError(message) from exc
            if stdin is None:
                channel.shutdown_write()
            else:
                sender = threading.Thread(
                    target=_send_stdin, args=(channel, stdin), name="ssh-stdin", daemon=True
                )
                sender.start()
            timed_out = not _read_until_eof(channel, out, err, deadline)
            if not timed_out:
                timed_out = not channel.status_event.wait(max(deadline - time.monotonic(), 0))
            if timed_out and _split_pid(bytes(out))[0] is None:
                # Timed out before the wrapper's PID line came: wait a bit for it, to kill.
                _read_until_pid(channel, out, err, time.monotonic() + _PID_GRACE_S)
            exit_code = -9 if timed_out else channel.recv_exit_status()
        finally:
            channel.close()
            if sender is not None:
                sender.join(1.0)
        pid, stdout = _split_pid(bytes(out))
        if timed_out:
            if pid is not None:
                self._kill(pid, sudo=sudo_kill)
            else:
                log.warning("%s: timed-out command had no PID; not killed", self.node)
        elif exit_code == -1 and not self._connection.is_active():
            message = (
                f"{self.node}: SSH connection to {self._connection.address} lost while running "
                f"{shlex.join(argv)}"
            )
            raise NodeAccessError(message)
        return Outcome(exit_code, stdout, bytes(err), time.monotonic() - started, timed_out)

    def _kill(self, pid: int, *, sudo: bool) -> None:
        """SIGKILL the process group (or process) ``pid`` on the node."""
        argv = with_sudo(["sh", "-c", _KILL_SCRIPT, "sh", str(pid)], sudo)
        try:
            self.execute(argv, timeout_s=15.0, stdin=None, sudo_kill=False)
        except NdrPdrError as exc:
            log.warning("%s: could not kill timed-out PID %d: %s", self.node, pid, exc)

    def _is_root(self) -> bool:
        """True when the remote user is root (asked once with ``id -u``)."""
        if self._is_root_cache is None:
            outcome = self.execute(["id", "-u"], timeout_s=30.0, stdin=None, sudo_kill=False)
            uid = decode_output(outcome.stdout).strip()
            if outcome.exit_code != 0 or not uid.isdigit():
                stderr = decode_output(outcome.stderr)
                message = f"{self.node}: 'id -u' failed on {self._connection.address}: {stderr}"
                raise NodeAccessError(message)
            self._is_root_cache = int(uid) == 0
        return self._is_root_cache

    def needs_sudo(self, sudo: bool) -> bool:
        """True when a command asked to run as root (or all are) must go through sudo."""
        return (sudo or self._connection.access.sudo) and not self._is_root()

    def with_env(self, argv: Sequence[str], env: Mapping[str, str] | None) -> list[str]:
        """``argv`` behind ``env K=V...`` when ``env`` is given (names checked, values literal)."""
        if not argv:
            raise ValueError(f"{self.node}: empty command")
        if not env:
            return list(argv)
        for name in env:
            if not _ENV_NAME.match(name):
                raise ValueError(f"{self.node}: invalid environment variable name {name!r}")
        return ["env", *(f"{k}={v}" for k, v in env.items()), *argv]

    def run(self, argv: Sequence[str], **options: Unpack[RunOptions]) -> CommandResult:
        """Run ``argv`` on the node; on timeout its process group is killed there."""
        how = RunSettings(**options)
        command = self.with_env(argv, how.env)
        needs_sudo = self.needs_sudo(how.sudo)
        full = with_sudo(command, needs_sudo)
        outcome = self.execute(full, timeout_s=how.timeout_s, stdin=how.input, sudo_kill=needs_sudo)
        result = outcome.result(self.node, full)
        if outcome.timed_out:
            raise CommandTimeoutError(result, how.timeout_s)
        if how.check and result.exit_code != 0:
            raise CommandError(result)
        return result


def _send_stdin(channel: paramiko.Channel, data: bytes) -> None:
    """Send ``data`` then EOF (in a thread: the command may write while we send)."""
    with contextlib.suppress(*LINK_ERRORS):  # the command ended or the link died: see outcome
        channel.sendall(data)
        channel.shutdown_write()


def _drain(channel: paramiko.Channel, out: bytearray, err: bytearray) -> None:
    """Append what stdout and stderr hold now."""
    while channel.recv_ready():
        out += channel.recv(_READ_CHUNK)
    while channel.recv_stderr_ready():
        err += channel.recv_stderr(_READ_CHUNK)


def _wait(channel: paramiko.Channel, deadline: float) -> bool:
    """Wait for more from ``channel`` (at most ``_POLL_S``); False once ``deadline`` passed."""
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        return False
    select.select([channel], [], [], min(remaining, _POLL_S))
    return True


def _read_until_eof(
    channel: paramiko.Channel, out: bytearray, err: bytearray, deadline: float
) -> bool:
    """Read stdout and stderr together until EOF; False if ``deadline`` passed first."""
    while True:
        _drain(channel, out, err)
        if (channel.eof_received or channel.closed) and not (
            channel.recv_ready() or channel.recv_stderr_ready()
        ):
            return True
        if not _wait(channel, deadline):
            return False


def _read_until_pid(
    channel: paramiko.Channel, out: bytearray, err: bytearray, deadline: float
) -> None:
    """Keep reading until the PID line is in ``out``, EOF, or ``deadline``."""
    while _split_pid(bytes(out))[0] is None:
        _drain(channel, out, err)
        if channel.eof_received or channel.closed or not _wait(channel, deadline):
            return


def _split_pid(out: bytes) -> tuple[int | None, bytes]:
    """Separate the wrapper's PID line (and anything before it) from the command's stdout."""
    if out.startswith(_PID_MARKER):
        start = 0
    else:
        found = out.find(b"\n" + _PID_MARKER)
        if found < 0:
            return None, out
        start = found + 1
    line, newline, rest = out[start + len(_PID_MARKER) :].partition(b"\n")
    if newline and line.isdigit():
        if start:
            log.debug("dropped %d bytes the login shell printed: %r", start, out[:start])
        return int(line), rest
    return None, out
