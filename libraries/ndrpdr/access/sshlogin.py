"""Logging in over SSH: credentials, host-key trust, and why a login failed.

What paramiko's ``connect`` is given, built from the ``SshAccess``
settings: the inline private key, the key file, the password, and a client
whose host key policy checks ``known_hosts`` (an unknown or changed key is
refused) or, with ``check_host_key: false``, accepts any key in memory
only. When connecting fails, ``describe_connect_error`` says why in words
that name the setting to change. No network I/O happens here.

Raises NodeAccessError for settings that cannot work: an inline key that
is encrypted or not a key, a key file that is missing, unreadable or
encrypted (unless the agent may hold it), an unset ``password_env``, a
known_hosts file that cannot be read.
"""

from __future__ import annotations

import errno
import io
import os
import socket
from collections.abc import Sequence
from pathlib import Path

import paramiko

from ndrpdr.access.base import NodeAccessError
from ndrpdr.topology.model import SshAccess


def host_port(access: SshAccess) -> str:
    """``host:port`` (``[host]:port`` for an IPv6 address), as messages show it."""
    host = access.host
    return f"[{host}]:{access.port}" if ":" in host else f"{host}:{access.port}"


def known_hosts_path(access: SshAccess) -> Path:
    """The known_hosts file host keys are checked against (default ~/.ssh/known_hosts)."""
    return Path(access.known_hosts or "~/.ssh/known_hosts").expanduser()


def load_inline_key(node: str, text: str) -> paramiko.PKey:
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


def key_file_usable(node: str, path: str, *, use_agent: bool) -> bool:
    """Fail early and clearly on a missing or unreadable key file.

    An encrypted key file is an error unless the agent may hold it: then it
    is not usable here (False) and the caller leaves it to the agent.
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
    return False


def password(node: str, access: SshAccess) -> tuple[str | None, str | None]:
    """The password and how to name it in messages (None, None without one)."""
    var = access.password_env
    if var:
        value = os.environ.get(var)
        if value is None:
            raise NodeAccessError(
                f"{node}: password_env is {var!r}, but the environment variable "
                f"{var} is not set: export it before the run"
            )
        return value, f"password from ${var}"
    if access.password is not None:
        return access.password, "inline password"
    return None, None


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


def new_client(node: str, access: SshAccess, known_hosts: Path) -> paramiko.SSHClient:
    """An unconnected client with the host key policy of the access settings."""
    client = paramiko.SSHClient()
    if not access.check_host_key:
        client.set_missing_host_key_policy(paramiko.AutoAddPolicy())  # in memory only
        return client
    if known_hosts.is_file():
        try:
            client.load_system_host_keys(str(known_hosts))  # read, never written back
        except (OSError, paramiko.SSHException) as exc:
            message = f"{node}: cannot read known_hosts {known_hosts}: {exc}"
            raise NodeAccessError(message) from exc
    client.set_missing_host_key_policy(_RejectUnknownHostKey())
    return client


def _no_handshake(text: str) -> bool:
    """True for paramiko's words when the server said nothing SSH in time."""
    return "banner" in text.lower() or text in ("No existing session", "Negotiation failed.")


def is_transient(exc: BaseException) -> bool:
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
    return not ("No authentication methods" in text or _no_handshake(text))


def describe_connect_error(
    exc: BaseException, access: SshAccess, tried: Sequence[str], known_hosts: Path
) -> str:
    """Why connecting failed, and what to change (``tried``: the login methods offered)."""
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
        # known_hosts names a host on another port than 22 as [host]:port.
        host = f"[{access.host}]:{access.port}" if access.port != 22 else access.host
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
        if _no_handshake(text):
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
