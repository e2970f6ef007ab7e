"""SSH transport: commands, background processes and files on a remote node (NodeAccess).

``SshTransport`` is the node access users and drivers take; it composes
the parts, each in its own module:

- ``sshconnection``: the one paramiko connection per node, opened on first
  use, reopened once (with a warning) when the server dropped it;
  ``sshlogin`` holds the credentials, host-key trust and connect-error
  messages it uses;
- ``sshcommand``: run a command to its end (PID wrapper, timeout that kills
  the process group, sudo and environment prefixes);
- ``sshprocess``: background processes detached on the node (``SshProcess``);
- ``sshtransfer``: put and get files (SFTP, or through sudo).

Each module's docstring names the errors it raises: NodeAccessError (no
connection, a transfer failed), CommandError and CommandTimeoutError (a
command failed or ran too long), ValueError (a malformed command). All of
them log as ``ndrpdr.access.ssh``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import paramiko

from ndrpdr.access.base import CommandResult
from ndrpdr.access.sshcommand import SshCommands
from ndrpdr.access.sshconnection import SshConnection
from ndrpdr.access.sshprocess import SshProcess, SshProcesses
from ndrpdr.access.sshtransfer import SshFiles
from ndrpdr.topology.model import SshAccess

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ndrpdr.access.base import RunOptions, StartOptions


__all__ = ["SshProcess", "SshTransport"]


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
        self._connection = SshConnection(node, access)
        self._commands = SshCommands(self._connection)
        self._processes = SshProcesses(self._commands)
        self._files = SshFiles(self._connection, self._commands)

    @property
    def node(self) -> str:
        """The node key."""
        return self._connection.node

    @property
    def access(self) -> SshAccess:
        """The access settings this transport logs in with."""
        return self._connection.access

    @property
    def address(self) -> str:
        """``user@host:port``, as messages show it."""
        return self._connection.address

    @property
    def paramiko_transport(self) -> paramiko.Transport | None:
        """The current paramiko connection (None before the first use or after close)."""
        return self._connection.paramiko_transport

    def run(self, argv: Sequence[str], **options: Unpack[RunOptions]) -> CommandResult:
        """Run ``argv`` on the node; on timeout its process group is killed there."""
        return self._commands.run(argv, **options)

    def start(self, argv: Sequence[str], **options: Unpack[StartOptions]) -> SshProcess:
        """Start ``argv`` detached on the node (``setsid``), output to a log under /tmp."""
        return self._processes.start(argv, **options)

    def put_file(self, data: bytes, path: str, *, mode: int = 0o644, sudo: bool = False) -> None:
        """Write ``data`` to ``path`` (SFTP; with sudo, via a temporary file and ``install``)."""
        self._files.put_file(data, path, mode=mode, sudo=sudo)

    def get_file(self, path: str, *, sudo: bool = False) -> bytes:
        """Read ``path`` (SFTP; with sudo, ``cat`` as root)."""
        return self._files.get_file(path, sudo=sudo)

    def close(self) -> None:
        """Stop the background processes started here, then close the connection.

        Idempotent; a later command reconnects.
        """
        self._processes.stop_all()
        self._connection.close()

    def __enter__(self) -> SshTransport:
        """Use as a context manager: closed on exit."""
        return self

    def __exit__(self, *exc_info: object) -> None:
        """Close the transport."""
        self.close()
