"""The SSH connection to one node: opened on first use, reopened when it died.

One ``paramiko.SSHClient`` per node, connected on first use with the
credentials and host key policy of ``sshlogin`` (a handshake hiccup is
retried once) and kept alive with keepalives. Command sessions
(``open_session``) and the one SFTP session (``sftp``) are opened on the
live connection. A connection found dead, before or while opening one, is
dropped and reconnected once; that reconnect is said at WARNING (the node,
the address, that a command on the old connection failed), so a run that
goes on after a drop does not hide it.

Raises NodeAccessError: connecting failed (the cause and what to change,
see ``sshlogin.describe_connect_error``), a lost connection could not be
re-established (the message says it was lost), or the server refused a
session or SFTP.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import threading
from collections.abc import Callable
from typing import TypeVar

import paramiko

from ndrpdr.access import sshlogin
from ndrpdr.access.base import NodeAccessError
from ndrpdr.topology.model import SshAccess

#: The logger of every SSH part (connection, commands, processes): they all log as
#: ``ndrpdr.access.ssh``, the module users import, so one name covers SSH in the logs.
log = logging.getLogger("ndrpdr.access.ssh")

#: What paramiko raises when the connection or a channel on it fails.
LINK_ERRORS: tuple[type[BaseException], ...] = (paramiko.SSHException, EOFError, OSError)

_Opened = TypeVar("_Opened")


@dataclasses.dataclass(frozen=True)
class _Credentials:
    """What ``connect`` is given, and how messages name each method it tries."""

    pkey: paramiko.PKey | None
    key_file: str | None
    password: str | None
    tried: tuple[str, ...]


class SshConnection:
    """The paramiko connection to one node, (re)connected when used (thread-safe)."""

    def __init__(self, node: str, access: SshAccess) -> None:
        """``node``: the node key for messages; ``access``: where and how to log in."""
        self._node = node
        self._access = access
        self._lock = threading.RLock()
        self._client: paramiko.SSHClient | None = None
        self._sftp: paramiko.SFTPClient | None = None
        self._sftp_transport: paramiko.Transport | None = None

    @property
    def node(self) -> str:
        """The node key."""
        return self._node

    @property
    def access(self) -> SshAccess:
        """The access settings this connection logs in with."""
        return self._access

    @property
    def address(self) -> str:
        """``user@host:port``, as messages show it."""
        return f"{self._access.username}@{sshlogin.host_port(self._access)}"

    @property
    def paramiko_transport(self) -> paramiko.Transport | None:
        """The current paramiko connection (None before the first use or after close)."""
        client = self._client
        return None if client is None else client.get_transport()

    def is_active(self) -> bool:
        """True while the current connection is up (False before the first use)."""
        transport = self.paramiko_transport
        return transport is not None and transport.is_active()

    # -- connecting ---------------------------------------------------------

    def _credentials(self) -> _Credentials:
        access = self._access
        pkey = sshlogin.load_inline_key(self._node, access.priv_key) if access.priv_key else None
        key_file = access.key_file
        if key_file and not sshlogin.key_file_usable(
            self._node, key_file, use_agent=access.use_agent
        ):
            log.info("%s: key_file %s is encrypted, relying on the SSH agent", self._node, key_file)
            key_file = None
        password, password_label = sshlogin.password(self._node, access)
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
        return _Credentials(pkey, key_file, password, tuple(tried))

    def _connect(self) -> paramiko.SSHClient:
        access = self._access
        credentials = self._credentials()
        known_hosts = sshlogin.known_hosts_path(access)
        if not access.check_host_key:
            log.warning(
                "%s: host key of %s is not checked (check_host_key: false)",
                self._node,
                sshlogin.host_port(access),
            )
        for attempt in (1, 2):
            client = sshlogin.new_client(self._node, access, known_hosts)
            try:
                client.connect(
                    access.host,
                    port=access.port,
                    username=access.username,
                    password=credentials.password,
                    pkey=credentials.pkey,
                    key_filename=credentials.key_file,
                    timeout=access.connect_timeout_s,
                    allow_agent=access.use_agent,
                    look_for_keys=False,
                    banner_timeout=access.connect_timeout_s,
                    auth_timeout=access.connect_timeout_s,
                    channel_timeout=access.connect_timeout_s,
                )
                break
            except LINK_ERRORS as exc:
                client.close()
                if attempt == 1 and sshlogin.is_transient(exc):
                    log.warning(
                        "%s: SSH handshake with %s failed (%s), retrying",
                        self._node,
                        self.address,
                        exc,
                    )
                    continue
                cause = sshlogin.describe_connect_error(exc, access, credentials.tried, known_hosts)
                raise NodeAccessError(
                    f"{self._node}: cannot connect to {self.address} over SSH: {cause}"
                ) from exc
        transport = client.get_transport()
        if transport is not None and access.keepalive_s > 0:
            transport.set_keepalive(access.keepalive_s)
        log.debug("%s: connected to %s", self._node, self.address)
        return client

    def _live_transport(self) -> paramiko.Transport:
        """The open connection, (re)connecting if there is none or it died.

        A connection that died is said at WARNING (the node, the address, and
        that it was re-established); a failed reconnect is a NodeAccessError
        that says the connection was lost.
        """
        with self._lock:
            lost = False
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
                log.warning(
                    "%s: the SSH connection to %s was lost; reconnected (a command running "
                    "on the old connection, if any, failed)",
                    self._node,
                    self.address,
                )
            transport = self._client.get_transport()
            if transport is None:  # pragma: no cover - connect() always sets one
                raise NodeAccessError(f"{self._node}: no SSH transport after connecting")
            return transport

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

    def close(self) -> None:
        """Close the connection (idempotent); the next use connects anew, no reconnect."""
        self._drop()

    # -- channels -----------------------------------------------------------

    def _open(self, what: str, opener: Callable[[paramiko.Transport], _Opened]) -> _Opened:
        """``opener`` on the live connection; once more on a new one if that one was dead.

        A dead connection is left for ``_live_transport`` to find (its transport never
        becomes active again), which drops it, reconnects and says so at WARNING; dropping
        it here could close the new connection another thread has made meanwhile. A write
        that failed on the socket (EOFError, OSError) can come before paramiko's reader
        thread has seen the server go and marked the transport inactive: that transport,
        and only it, is closed so that ``_live_transport`` finds it dead.
        """
        for attempt in (1, 2):
            transport = self._live_transport()
            try:
                return opener(transport)
            except LINK_ERRORS as exc:
                if attempt == 1 and isinstance(exc, (EOFError, OSError)):
                    transport.close()
                if attempt == 2 or transport.is_active():
                    message = f"{self._node}: cannot open {what} on {self.address}: {exc}"
                    raise NodeAccessError(message) from exc
        raise AssertionError("unreachable")  # pragma: no cover

    def open_session(self) -> paramiko.Channel:
        """A new session channel; reconnects once when the connection died."""
        return self._open("an SSH session", self._new_session)

    def _new_session(self, transport: paramiko.Transport) -> paramiko.Channel:
        try:
            return transport.open_session(timeout=self._access.connect_timeout_s)
        except paramiko.ChannelException as exc:
            message = f"{self._node}: {self.address} refused a session: {exc.text}"
            raise NodeAccessError(message) from exc

    def sftp(self) -> paramiko.SFTPClient:
        """The SFTP session of the current connection; reconnects once when it died."""
        return self._open("SFTP", self._sftp_on)

    def _sftp_on(self, transport: paramiko.Transport) -> paramiko.SFTPClient:
        with self._lock:
            if self._sftp is not None and self._sftp_transport is transport:
                return self._sftp
        sftp = paramiko.SFTPClient.from_transport(transport)
        if sftp is None:  # pragma: no cover - only without a transport
            raise NodeAccessError(f"{self._node}: cannot open SFTP on {self.address}")
        with self._lock:
            self._sftp = sftp
            self._sftp_transport = transport
        return sftp
