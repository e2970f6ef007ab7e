"""SSH transport: commands and files on a remote node over one paramiko connection.

One ``paramiko.SSHClient`` per transport, opened on first use and reopened
once when the server dropped it. Every command runs as::

    exec sh -c 'echo "ndrpdr-pid=$$"; exec "$@"' sh [sudo -n --] [env K=V...] ARGV...

The login shell execs that ``sh``, which prints its PID (the process group
of the session, sshd made it a session leader; what the shell's rc files
print before that line is dropped) and execs the command in place, so a
command that runs past its timeout can be killed with its whole process
group. Arguments are quoted with ``shlex``: a topology value never
becomes shell syntax.

Background processes (``start``) are detached with ``setsid -f`` into a
private temporary directory under /tmp that holds their log, their real PID
and, once they exit, their exit status (a small ``sh`` waits for them).
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import io
import logging
import math
import os
import re
import select
import shlex
import socket
import threading
import time
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path

import paramiko

from ndrpdr.access.base import (
    CommandError,
    CommandResult,
    CommandTimeoutError,
    NodeAccessError,
    decode_output,
)
from ndrpdr.errors import NdrPdrError
from ndrpdr.testbed.model import SshAccess

_log = logging.getLogger(__name__)

#: Prints the PID of the shell after a marker, then replaces the shell by the command.
#: (The marker skips whatever the user's shell rc files print before it.)
_PID_MARKER = b"ndrpdr-pid="
_PID_WRAPPER = 'echo "ndrpdr-pid=$$"; exec "$@"'

#: Kills the process group of a timed-out command (or the process, if not a group leader).
#: (No "--": dash's kill does not take it; a negative PID after -9 is not an option.)
_KILL_SCRIPT = 'kill -9 "-$1" 2>/dev/null || kill -9 "$1" 2>/dev/null; exit 0'

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

_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_READ_CHUNK = 1 << 20
_POLL_S = 0.2
#: How long a timed-out command may still take to report its PID (so it can be killed) [s].
_PID_GRACE_S = 5.0


def _is_pseudo_file(path: str) -> bool:
    """True for /sys and /proc files: written in place, never replaced or chmod-ed."""
    return path.startswith(("/sys/", "/proc/"))


def _load_inline_key(node: str, text: str) -> paramiko.PKey:
    """A private key from PEM / OpenSSH text, of any type paramiko supports."""
    errors: list[str] = []
    key_classes: tuple[type[paramiko.PKey], ...] = (
        paramiko.Ed25519Key,
        paramiko.ECDSAKey,
        paramiko.RSAKey,
    )
    for key_class in key_classes:
        try:
            return key_class.from_private_key(io.StringIO(text.strip() + "\n"))
        except paramiko.PasswordRequiredException as exc:
            message = f"{node}: priv_key is encrypted; give an unencrypted key or use the agent"
            raise NodeAccessError(message) from exc
        except (paramiko.SSHException, ValueError) as exc:
            errors.append(f"{key_class.__name__}: {exc}")
    raise NodeAccessError(f"{node}: priv_key is not a private key paramiko can read ({errors})")


def _check_key_file(node: str, path: str, *, use_agent: bool) -> bool:
    """Fail early and clearly on a missing or unreadable key file.

    An encrypted key file is an error unless the agent may hold it: then it
    is skipped (False) with a log message.
    """
    encrypted = f"{node}: key_file {path} is encrypted; load it into an SSH agent instead"
    try:
        paramiko.PKey.from_path(path)
    except paramiko.PasswordRequiredException as exc:
        if not use_agent:
            raise NodeAccessError(encrypted) from exc
    except OSError as exc:
        raise NodeAccessError(f"{node}: cannot read key_file {path}: {exc.strerror}") from exc
    except (paramiko.SSHException, ValueError, TypeError) as exc:
        if "password" not in str(exc).lower():  # cryptography's TypeError for encrypted keys
            raise NodeAccessError(f"{node}: key_file {path} is not a usable key: {exc}") from exc
        if not use_agent:
            raise NodeAccessError(encrypted) from exc
    else:
        return True
    _log.info("%s: key_file %s is encrypted, relying on the SSH agent", node, path)
    return False


def _is_transient(exc: BaseException) -> bool:
    """True for a protocol hiccup worth one more try (not auth, host key, refusal or timeout)."""
    if isinstance(
        exc,
        paramiko.AuthenticationException | paramiko.BadHostKeyException | _UnknownHostKeyError,
    ):
        return False
    if isinstance(exc, EOFError):
        return True
    if not isinstance(exc, paramiko.SSHException):
        return False
    text = str(exc)
    return not (
        "No authentication methods" in text
        or "banner" in text.lower()
        or text in ("No existing session", "Negotiation failed.")
    )


class _UnknownHostKeyError(paramiko.SSHException):
    """The server's host key is not in known_hosts (raised by the host key policy)."""

    def __init__(self, hostname: str, key: paramiko.PKey) -> None:
        super().__init__(f"host key of {hostname} not in known_hosts")
        self.hostname = hostname
        self.key = key


class _RejectUnknownHostKey(paramiko.RejectPolicy):
    """RejectPolicy that keeps the offered key, for a message saying how to trust it."""

    def missing_host_key(  # type: ignore[override]
        self, client: paramiko.SSHClient, hostname: str, key: paramiko.PKey
    ) -> None:
        raise _UnknownHostKeyError(hostname, key)


@dataclasses.dataclass(frozen=True)
class _Outcome:
    """What one remote command did, before it becomes a CommandResult."""

    exit_code: int
    stdout: bytes
    stderr: bytes
    duration_s: float
    timed_out: bool


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
        transport: SshTransport,
        argv: Sequence[str],
        pid: int,
        directory: str,
        *,
        sudo: bool,
    ) -> None:
        """Made by ``SshTransport.start``: ``directory`` holds log, pid and rc."""
        self._transport = transport
        self.argv = tuple(argv)
        self._pid = pid
        self.directory = directory
        self._sudo = sudo
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
        result = self._transport.run(
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
        result = self._transport.run(
            ["sh", "-c", _STOP_SCRIPT, "sh", self.directory, str(self._pid), str(ticks)],
            sudo=self._sudo,
            timeout_s=timeout_s + 30.0,
        )
        status = result.stdout.strip()
        if status.isdigit():
            code = int(status)
            self._exit_code = -(code - 128) if 128 < code <= 128 + 64 else code
        collected = self._transport.run(
            ["sh", "-c", _COLLECT_SCRIPT, "sh", self.directory],
            sudo=self._sudo,
            timeout_s=60.0,
        )
        self._final_output = collected.stdout
        self._transport._forget(self)
        return self._exit_code

    def output(self) -> str:
        """What the process wrote to stdout and stderr so far."""
        if self._final_output is not None:
            return self._final_output
        return self._transport.run(
            ["cat", "--", f"{self.directory}/log"], sudo=self._sudo, timeout_s=60.0
        ).stdout


class SshTransport:
    """Run commands and copy files on a node over SSH (implements NodeAccess).

    No I/O happens before the first command. Authentication uses, in
    paramiko's order: ``priv_key`` (inline text), ``key_file``, the SSH
    agent when ``use_agent``, then the password (from the environment
    variable ``password_env``, else the inline ``password``). Host keys are
    checked against ``known_hosts`` (default ``~/.ssh/known_hosts``) and an
    unknown or changed key is refused, unless ``check_host_key`` is False
    (then any key is accepted, kept in memory only, with a warning).
    """

    def __init__(self, node: str, access: SshAccess) -> None:
        """``node``: the node key for messages; ``access``: where and how to log in."""
        self._node = node
        self._access = access
        self._lock = threading.RLock()
        self._client: paramiko.SSHClient | None = None
        self._sftp: paramiko.SFTPClient | None = None
        self._sftp_transport: paramiko.Transport | None = None
        #: A session or SFTP open found the connection dead and dropped it: the reconnect
        #: that follows is said at WARNING like any other lost connection.
        self._dropped_dead = False
        self._is_root_cache: bool | None = None
        self._processes: list[SshProcess] = []

    @property
    def node(self) -> str:
        """The node key."""
        return self._node

    @property
    def access(self) -> SshAccess:
        """The access settings this transport logs in with."""
        return self._access

    @property
    def address(self) -> str:
        """``user@host:port``, as messages show it."""
        return f"{self._access.username}@{self._host_port}"

    @property
    def _host_port(self) -> str:
        host = self._access.host
        return f"[{host}]:{self._access.port}" if ":" in host else f"{host}:{self._access.port}"

    @property
    def paramiko_transport(self) -> paramiko.Transport | None:
        """The current paramiko connection (None before the first use or after close)."""
        client = self._client
        return None if client is None else client.get_transport()

    # -- connection ---------------------------------------------------------

    def _known_hosts(self) -> Path:
        return Path(self._access.known_hosts or "~/.ssh/known_hosts").expanduser()

    def _password(self) -> tuple[str | None, str | None]:
        """The password and how to name it in messages (None, None without one)."""
        var = self._access.password_env
        if var:
            value = os.environ.get(var)
            if value is None:
                raise NodeAccessError(
                    f"{self._node}: password_env is {var!r}, but the environment variable "
                    f"{var} is not set: export it before the run"
                )
            return value, f"password from ${var}"
        if self._access.password is not None:
            return self._access.password, "inline password"
        return None, None

    def _connect(self) -> paramiko.SSHClient:
        access = self._access
        pkey = _load_inline_key(self._node, access.priv_key) if access.priv_key else None
        key_file = access.key_file
        if key_file and not _check_key_file(self._node, key_file, use_agent=access.use_agent):
            key_file = None
        password, password_label = self._password()
        tried: list[str] = []
        if pkey is not None:
            tried.append(f"inline priv_key ({pkey.get_name()})")
        if key_file:
            tried.append(f"key_file {key_file}")
        if access.use_agent:
            agent = "SSH agent" if os.environ.get("SSH_AUTH_SOCK") else "SSH agent (none running)"
            tried.append(agent)
        if password_label:
            tried.append(password_label)

        known_hosts = self._known_hosts()
        if not access.check_host_key:
            _log.warning(
                "%s: host key of %s is not checked (check_host_key: false)",
                self._node,
                self._host_port,
            )
        for attempt in (1, 2):
            client = self._new_client(known_hosts)
            try:
                client.connect(
                    access.host,
                    port=access.port,
                    username=access.username,
                    password=password,
                    pkey=pkey,
                    key_filename=key_file,
                    timeout=access.connect_timeout_s,
                    allow_agent=access.use_agent,
                    look_for_keys=False,
                    banner_timeout=access.connect_timeout_s,
                    auth_timeout=access.connect_timeout_s,
                    channel_timeout=access.connect_timeout_s,
                )
                break
            except (paramiko.SSHException, OSError, EOFError) as exc:
                client.close()
                if attempt == 1 and _is_transient(exc):
                    _log.warning(
                        "%s: SSH handshake with %s failed (%s), retrying",
                        self._node,
                        self.address,
                        exc,
                    )
                    continue
                cause = self._describe_connect_error(exc, tried, known_hosts)
                raise NodeAccessError(
                    f"{self._node}: cannot connect to {self.address} over SSH: {cause}"
                ) from exc
        transport = client.get_transport()
        if transport is not None and access.keepalive_s > 0:
            transport.set_keepalive(access.keepalive_s)
        _log.debug("%s: connected to %s", self._node, self.address)
        return client

    def _new_client(self, known_hosts: Path) -> paramiko.SSHClient:
        """An unconnected client with the host key policy of the access settings."""
        client = paramiko.SSHClient()
        if not self._access.check_host_key:
            client.set_missing_host_key_policy(paramiko.AutoAddPolicy())  # in memory only
            return client
        if known_hosts.is_file():
            try:
                client.load_system_host_keys(str(known_hosts))  # read, never written back
            except (OSError, paramiko.SSHException) as exc:
                message = f"{self._node}: cannot read known_hosts {known_hosts}: {exc}"
                raise NodeAccessError(message) from exc
        client.set_missing_host_key_policy(_RejectUnknownHostKey())
        return client

    def _describe_connect_error(
        self, exc: BaseException, tried: Sequence[str], known_hosts: Path
    ) -> str:
        access = self._access
        host = f"[{access.host}]:{access.port}" if access.port != 22 else access.host
        if isinstance(exc, _UnknownHostKeyError):
            where = known_hosts if known_hosts.is_file() else f"{known_hosts} (missing)"
            return (
                f"its host key ({exc.key.get_name()} {exc.key.fingerprint}) is not in "
                f"known_hosts {where}. Check the fingerprint, then add it with: "
                f"ssh-keyscan -p {access.port} {access.host} >> {known_hosts} "
                "(or set known_hosts to a file holding it, or set check_host_key: false "
                "to skip the check)"
            )
        if isinstance(exc, paramiko.BadHostKeyException):
            return (
                f"its host key does not match known_hosts {known_hosts}: the server offered "
                f"{exc.key.get_name()} {exc.key.fingerprint}, known_hosts has "
                f"{exc.expected_key.get_name()} {exc.expected_key.fingerprint}. If the node was "
                f"reinstalled, remove the old entry (ssh-keygen -R '{host}' -f {known_hosts}) "
                f"and add the new one (ssh-keyscan -p {access.port} {access.host} >> "
                f"{known_hosts}); otherwise someone may be in the middle. "
                "check_host_key: false skips the check"
            )
        methods = ", ".join(tried) if tried else "none"
        if isinstance(exc, paramiko.BadAuthenticationType):
            return (
                f"authentication failed: the server allows only {', '.join(exc.allowed_types)} "
                f"(tried: {methods})"
            )
        if isinstance(exc, paramiko.AuthenticationException):
            return f"authentication failed (tried: {methods}): {exc}"
        if isinstance(exc, paramiko.SSHException) and "No authentication methods" in str(exc):
            return (
                f"authentication failed: no method to try (tried: {methods}); set key_file, "
                "priv_key or password_env, or load a key into an SSH agent"
            )
        if isinstance(exc, paramiko.ssh_exception.NoValidConnectionsError):
            codes = {getattr(e, "errno", None) for e in exc.errors.values()}
            if codes == {errno.ECONNREFUSED}:
                return "connection refused (is sshd running and listening on that port?)"
            return f"host unreachable ({exc})"
        if isinstance(exc, socket.gaierror):
            return f"cannot resolve host name {access.host!r}: {exc.strerror}"
        if isinstance(exc, TimeoutError):
            return f"no answer within {access.connect_timeout_s:g} s (connect_timeout_s)"
        if isinstance(exc, paramiko.SSHException):
            text = str(exc)
            if "banner" in text.lower() or text in ("No existing session", "Negotiation failed."):
                return (
                    f"no SSH handshake within {access.connect_timeout_s:g} s "
                    f"(connect_timeout_s; {text}): is an SSH server listening there?"
                )
            return f"SSH error: {text}"
        if isinstance(exc, EOFError):
            return "the server closed the connection during the handshake"
        if isinstance(exc, OSError):
            return exc.strerror or str(exc)
        return str(exc)

    def _live_transport(self) -> paramiko.Transport:
        """The open connection, (re)connecting if there is none or it died.

        A connection that died is said at WARNING (the node, the address, and
        that it was re-established), so a run that goes on after a drop does
        not hide it; a failed reconnect is a NodeAccessError that says the
        connection was lost.
        """
        with self._lock:
            lost, self._dropped_dead = self._dropped_dead, False
            if self._client is not None:
                transport = self._client.get_transport()
                if transport is not None and transport.is_active():
                    return transport
                lost = True
                self._drop()
            try:
                self._client = self._connect()
            except NodeAccessError as exc:
                if not lost:
                    raise
                detail = str(exc).removeprefix(f"{self._node}: ")
                raise NodeAccessError(
                    f"{self._node}: the SSH connection to {self.address} was lost, "
                    f"and reconnecting failed: {detail}"
                ) from exc
            if lost:
                _log.warning(
                    "%s: the SSH connection to %s was lost; reconnected (a command running "
                    "on the old connection, if any, failed)",
                    self._node,
                    self.address,
                )
            transport = self._client.get_transport()
            if transport is None:  # pragma: no cover - connect() always sets one
                raise NodeAccessError(f"{self._node}: no SSH transport after connecting")
            return transport

    def _drop_dead(self) -> None:
        """Forget a connection found dead while in use (the reconnect warns, see above)."""
        with self._lock:
            self._dropped_dead = True
            self._drop()

    def _drop(self) -> None:
        """Forget the current connection (and its SFTP session)."""
        with self._lock:
            if self._sftp is not None:
                with contextlib.suppress(Exception):
                    self._sftp.close()
            self._sftp = None
            self._sftp_transport = None
            if self._client is not None:
                with contextlib.suppress(Exception):
                    self._client.close()
            self._client = None

    def _open_session(self) -> paramiko.Channel:
        """A new session channel; reconnects once when the connection died."""
        for attempt in (1, 2):
            transport = self._live_transport()
            try:
                return transport.open_session(timeout=self._access.connect_timeout_s)
            except paramiko.ChannelException as exc:
                message = f"{self._node}: {self.address} refused a session: {exc.text}"
                raise NodeAccessError(message) from exc
            except (paramiko.SSHException, EOFError, OSError) as exc:
                if attempt == 2 or transport.is_active():
                    message = f"{self._node}: cannot open an SSH session on {self.address}: {exc}"
                    raise NodeAccessError(message) from exc
                self._drop_dead()
        raise AssertionError("unreachable")  # pragma: no cover

    def _sftp_client(self) -> paramiko.SFTPClient:
        """The SFTP session of the current connection; reconnects once when it died."""
        for attempt in (1, 2):
            transport = self._live_transport()
            with self._lock:
                if self._sftp is not None and self._sftp_transport is transport:
                    return self._sftp
            try:
                sftp = paramiko.SFTPClient.from_transport(transport)
            except (paramiko.SSHException, EOFError, OSError) as exc:
                if attempt == 2 or transport.is_active():
                    message = f"{self._node}: cannot open SFTP on {self.address}: {exc}"
                    raise NodeAccessError(message) from exc
                self._drop_dead()
                continue
            if sftp is None:  # pragma: no cover - only without a transport
                raise NodeAccessError(f"{self._node}: cannot open SFTP on {self.address}")
            with self._lock:
                self._sftp = sftp
                self._sftp_transport = transport
            return sftp
        raise AssertionError("unreachable")  # pragma: no cover

    # -- commands -----------------------------------------------------------

    def _exec(
        self, argv: Sequence[str], *, timeout_s: float, stdin: bytes | None, sudo_kill: bool
    ) -> _Outcome:
        """Run ``argv`` (already prefixed) and capture its output as bytes."""
        if timeout_s <= 0:
            raise ValueError(f"{self._node}: timeout_s must be positive, not {timeout_s}")
        command = "exec sh -c " + shlex.quote(_PID_WRAPPER) + " sh " + shlex.join(argv)
        started = time.monotonic()
        deadline = started + timeout_s
        channel = self._open_session()
        out = bytearray()
        err = bytearray()
        sender: threading.Thread | None = None
        try:
            try:
                channel.exec_command(command)
            except (paramiko.SSHException, EOFError, OSError) as exc:
                message = f"{self._node}: cannot run {shlex.join(argv)} on {self.address}: {exc}"
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
                _log.warning("%s: timed-out command had no PID; not killed", self._node)
        elif exit_code == -1 and not self._transport_active():
            message = (
                f"{self._node}: SSH connection to {self.address} lost while running "
                f"{shlex.join(argv)}"
            )
            raise NodeAccessError(message)
        return _Outcome(exit_code, stdout, bytes(err), time.monotonic() - started, timed_out)

    def _transport_active(self) -> bool:
        transport = self.paramiko_transport
        return transport is not None and transport.is_active()

    def _kill(self, pid: int, *, sudo: bool) -> None:
        """SIGKILL the process group (or process) ``pid`` on the node."""
        argv = ["sh", "-c", _KILL_SCRIPT, "sh", str(pid)]
        if sudo:
            argv = ["sudo", "-n", "--", *argv]
        try:
            self._exec(argv, timeout_s=15.0, stdin=None, sudo_kill=False)
        except NdrPdrError as exc:
            _log.warning("%s: could not kill timed-out PID %d: %s", self._node, pid, exc)

    def _is_root(self) -> bool:
        """True when the remote user is root (asked once with ``id -u``)."""
        if self._is_root_cache is None:
            outcome = self._exec(["id", "-u"], timeout_s=30.0, stdin=None, sudo_kill=False)
            uid = decode_output(outcome.stdout).strip()
            if outcome.exit_code != 0 or not uid.isdigit():
                stderr = decode_output(outcome.stderr)
                message = f"{self._node}: 'id -u' failed on {self.address}: {stderr}"
                raise NodeAccessError(message)
            self._is_root_cache = int(uid) == 0
        return self._is_root_cache

    def _needs_sudo(self, sudo: bool) -> bool:
        return (sudo or self._access.sudo) and not self._is_root()

    def _with_env(self, argv: Sequence[str], env: Mapping[str, str] | None) -> list[str]:
        if not argv:
            raise ValueError(f"{self._node}: empty command")
        if not env:
            return list(argv)
        for name in env:
            if not _ENV_NAME.match(name):
                raise ValueError(f"{self._node}: invalid environment variable name {name!r}")
        return ["env", *(f"{k}={v}" for k, v in env.items()), *argv]

    def run(
        self,
        argv: Sequence[str],
        *,
        timeout_s: float = 60.0,
        sudo: bool = False,
        check: bool = True,
        stdin: str | bytes | None = None,
        env: Mapping[str, str] | None = None,
    ) -> CommandResult:
        """Run ``argv`` on the node; on timeout its process group is killed there."""
        command = self._with_env(argv, env)
        needs_sudo = self._needs_sudo(sudo)
        full = ["sudo", "-n", "--", *command] if needs_sudo else command
        data = stdin.encode() if isinstance(stdin, str) else stdin
        outcome = self._exec(full, timeout_s=timeout_s, stdin=data, sudo_kill=needs_sudo)
        result = CommandResult(
            self._node,
            tuple(full),
            outcome.exit_code,
            decode_output(outcome.stdout),
            decode_output(outcome.stderr),
            outcome.duration_s,
        )
        if outcome.timed_out:
            raise CommandTimeoutError(result, timeout_s)
        if check and result.exit_code != 0:
            raise CommandError(result)
        return result

    def start(
        self,
        argv: Sequence[str],
        *,
        sudo: bool = False,
        env: Mapping[str, str] | None = None,
    ) -> SshProcess:
        """Start ``argv`` detached on the node (``setsid``), output to a log under /tmp."""
        command = self._with_env(argv, env)
        needs_sudo = self._needs_sudo(sudo)
        shown = ["sudo", "-n", "--", *command] if needs_sudo else command
        try:
            result = self.run(
                ["sh", "-c", _LAUNCH_SCRIPT, "sh", _WAITER_SCRIPT, _INNER_SCRIPT, *command],
                sudo=sudo,
                timeout_s=60.0,
            )
        except CommandError as exc:
            message = (
                f"{self._node}: cannot start {shlex.join(shown)} (exit code "
                f"{exc.result.exit_code}): {exc.result.stderr.strip() or exc.result.stdout.strip()}"
            )
            raise NodeAccessError(message) from exc
        lines = result.stdout.split()
        if len(lines) != 2 or not lines[1].isdigit():
            message = f"{self._node}: cannot start {shlex.join(shown)}: launcher said {lines!r}"
            raise NodeAccessError(message)
        process = SshProcess(self, shown, int(lines[1]), lines[0], sudo=sudo)
        self._processes.append(process)
        return process

    def _forget(self, process: SshProcess) -> None:
        with contextlib.suppress(ValueError):
            self._processes.remove(process)

    # -- files --------------------------------------------------------------

    def put_file(self, data: bytes, path: str, *, mode: int = 0o644, sudo: bool = False) -> None:
        """Write ``data`` to ``path`` (SFTP; with sudo, via a temporary file and ``install``)."""
        needs_sudo = self._needs_sudo(sudo)
        if _is_pseudo_file(path):
            self.run(["sh", "-c", 'cat > "$1"', "sh", path], stdin=data, sudo=sudo)
            return
        if not needs_sudo:
            self._sftp_write(path, data, mode)
            return
        temporary = f"/tmp/ndrpdr-put-{uuid.uuid4().hex}"
        self._sftp_write(temporary, data, 0o600)
        try:
            self.run(["install", "-m", f"{mode:o}", "--", temporary, path], sudo=sudo)
        finally:
            with contextlib.suppress(OSError, NdrPdrError):
                self._sftp_client().remove(temporary)

    def _sftp_write(self, path: str, data: bytes, mode: int) -> None:
        sftp = self._sftp_client()
        try:
            with sftp.open(path, "wb") as remote:
                remote.chmod(mode)
                remote.set_pipelined(True)
                remote.write(data)
        except (OSError, paramiko.SSHException) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise NodeAccessError(f"{self._node}: cannot write {path}: {reason}") from exc

    def get_file(self, path: str, *, sudo: bool = False) -> bytes:
        """Read ``path`` (SFTP; with sudo, ``cat`` as root)."""
        if self._needs_sudo(sudo):
            full = ["sudo", "-n", "--", "cat", "--", path]
            outcome = self._exec(full, timeout_s=300.0, stdin=None, sudo_kill=True)
            if outcome.exit_code != 0 or outcome.timed_out:
                result = CommandResult(
                    self._node,
                    tuple(full),
                    outcome.exit_code,
                    "",
                    decode_output(outcome.stderr),
                    outcome.duration_s,
                )
                raise CommandError(result, "reading a file")
            return outcome.stdout
        sftp = self._sftp_client()
        try:
            with sftp.open(path, "rb") as remote:
                size = remote.stat().st_size
                if size:
                    remote.prefetch(size)
                return remote.read()
        except (OSError, paramiko.SSHException) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise NodeAccessError(f"{self._node}: cannot read {path}: {reason}") from exc

    # -- teardown -----------------------------------------------------------

    def close(self) -> None:
        """Stop the background processes started here, then close the connection.

        Idempotent; a later command reconnects.
        """
        for process in list(self._processes):
            try:
                process.stop()
            except NdrPdrError as exc:
                _log.warning("%s: cannot stop PID %d: %s", self._node, process.pid, exc)
        self._processes.clear()
        self._drop()
        self._dropped_dead = False  # closed on purpose: the next connection is no reconnect

    def __enter__(self) -> SshTransport:
        """Use as a context manager: closed on exit."""
        return self

    def __exit__(self, *exc_info: object) -> None:
        """Close the transport."""
        self.close()


def _send_stdin(channel: paramiko.Channel, data: bytes) -> None:
    """Send ``data`` then EOF (in a thread: the command may write while we send)."""
    with contextlib.suppress(OSError, EOFError, paramiko.SSHException):
        channel.sendall(data)
        channel.shutdown_write()


def _read_until_eof(
    channel: paramiko.Channel, out: bytearray, err: bytearray, deadline: float
) -> bool:
    """Read stdout and stderr together until EOF; False if ``deadline`` passed first."""
    while True:
        while channel.recv_ready():
            out += channel.recv(_READ_CHUNK)
        while channel.recv_stderr_ready():
            err += channel.recv_stderr(_READ_CHUNK)
        if (channel.eof_received or channel.closed) and not (
            channel.recv_ready() or channel.recv_stderr_ready()
        ):
            return True
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        select.select([channel], [], [], min(remaining, _POLL_S))


def _read_until_pid(
    channel: paramiko.Channel, out: bytearray, err: bytearray, deadline: float
) -> None:
    """Keep reading until the PID line is in ``out``, EOF, or ``deadline``."""
    while _split_pid(bytes(out))[0] is None:
        while channel.recv_ready():
            out += channel.recv(_READ_CHUNK)
        while channel.recv_stderr_ready():
            err += channel.recv_stderr(_READ_CHUNK)
        remaining = deadline - time.monotonic()
        if remaining <= 0 or channel.eof_received or channel.closed:
            return
        select.select([channel], [], [], min(remaining, _POLL_S))


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
            _log.debug("dropped %d bytes the login shell printed: %r", start, out[:start])
        return int(line), rest
    return None, out
