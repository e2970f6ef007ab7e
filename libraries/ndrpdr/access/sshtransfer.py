"""Files on an SSH node: write and read them over SFTP, or through sudo when needed.

Plain files go over the connection's SFTP session. A file the user may not
touch (``sudo`` for a user that is not root) is written to a private
temporary file under /tmp and moved into place by ``install`` as root, and
read with ``cat`` as root. /sys and /proc files are written in place by a
command (never replaced or chmod-ed).

Raises NodeAccessError when SFTP cannot write or read a path (the message
names the node, the path and the reason) and CommandError when the
command that writes or reads as root fails.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator

import paramiko

from ndrpdr.access.base import CommandError, NodeAccessError
from ndrpdr.access.sshcommand import SshCommands, with_sudo
from ndrpdr.access.sshconnection import SshConnection
from ndrpdr.errors import NdrPdrError


def _is_pseudo_file(path: str) -> bool:
    """True for /sys and /proc files: written in place, never replaced or chmod-ed."""
    return path.startswith(("/sys/", "/proc/"))


class SshFiles:
    """Write and read files on the node of one SSH connection."""

    def __init__(self, connection: SshConnection, commands: SshCommands) -> None:
        """SFTP goes over ``connection``; what needs root, through ``commands``."""
        self._connection = connection
        self._commands = commands

    @contextlib.contextmanager
    def _sftp_errors(self, doing: str, path: str) -> Iterator[None]:
        """An SFTP failure as a NodeAccessError: "cannot ``doing`` ``path``: reason"."""
        try:
            yield
        except (OSError, paramiko.SSHException) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            message = f"{self._connection.node}: cannot {doing} {path}: {reason}"
            raise NodeAccessError(message) from exc

    def put_file(self, data: bytes, path: str, *, mode: int = 0o644, sudo: bool = False) -> None:
        """Write ``data`` to ``path`` (SFTP; with sudo, via a temporary file and ``install``)."""
        needs_sudo = self._commands.needs_sudo(sudo)
        if _is_pseudo_file(path):
            self._commands.run(["sh", "-c", 'cat > "$1"', "sh", path], stdin=data, sudo=sudo)
            return
        if not needs_sudo:
            self._sftp_write(path, data, mode)
            return
        temporary = f"/tmp/ndrpdr-put-{uuid.uuid4().hex}"
        self._sftp_write(temporary, data, 0o600)
        try:
            self._commands.run(["install", "-m", f"{mode:o}", "--", temporary, path], sudo=sudo)
        finally:
            with contextlib.suppress(OSError, NdrPdrError):
                self._connection.sftp().remove(temporary)

    def _sftp_write(self, path: str, data: bytes, mode: int) -> None:
        sftp = self._connection.sftp()
        with self._sftp_errors("write", path), sftp.open(path, "wb") as remote:
            remote.chmod(mode)
            remote.set_pipelined(True)
            remote.write(data)

    def get_file(self, path: str, *, sudo: bool = False) -> bytes:
        """Read ``path`` (SFTP; with sudo, ``cat`` as root)."""
        if self._commands.needs_sudo(sudo):
            full = with_sudo(["cat", "--", path], True)
            outcome = self._commands.execute(full, timeout_s=300.0, stdin=None, sudo_kill=True)
            if outcome.exit_code != 0 or outcome.timed_out:
                result = outcome.result(self._connection.node, full, with_stdout=False)
                raise CommandError(result, "reading a file")
            return outcome.stdout
        sftp = self._connection.sftp()
        with self._sftp_errors("read", path), sftp.open(path, "rb") as remote:
            size = remote.stat().st_size
            if size:
                remote.prefetch(size)
            return remote.read()
