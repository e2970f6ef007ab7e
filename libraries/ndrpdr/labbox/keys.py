"""SSH key material of a lab in a box: ed25519 keys, known_hosts lines, private files.

Keys are made in process (``cryptography``, which paramiko depends on):
no ssh-keygen per key. Private keys are written in OpenSSH format, which
both sshd (host keys) and paramiko (the client key) read.
"""

from __future__ import annotations

import dataclasses
import os
from ipaddress import IPv4Address
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey


@dataclasses.dataclass(frozen=True)
class SshKey:
    """An ed25519 key pair: the private key (OpenSSH PEM) and the public line.

    ``public`` is ``"ssh-ed25519 <base64> <comment>"``, as authorized_keys
    and ``*.pub`` files hold it.
    """

    private_openssh: bytes = dataclasses.field(repr=False)
    public: str

    @property
    def public_key(self) -> str:
        """``"ssh-ed25519 <base64>"``: the public line without its comment."""
        return " ".join(self.public.split()[:2])


def new_ed25519_key(comment: str) -> SshKey:
    """A fresh ed25519 key pair whose public line ends with ``comment`` (no spaces)."""
    if not comment or any(c.isspace() for c in comment):
        raise ValueError(f"key comment {comment!r} must be one word")
    key = Ed25519PrivateKey.generate()
    private = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.OpenSSH,
        serialization.NoEncryption(),
    )
    public = key.public_key().public_bytes(
        serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH
    )
    return SshKey(private, f"{public.decode()} {comment}")


def known_hosts_line(host: IPv4Address, port: int, key: SshKey) -> str:
    """The known_hosts line for ``key`` at ``host``:``port`` (``[host]:port`` unless 22)."""
    where = str(host) if port == 22 else f"[{host}]:{port}"
    return f"{where} {key.public_key}"


def write_private(path: Path, data: bytes) -> None:
    """Create ``path`` with mode 0600 and write ``data``; FileExistsError if it exists.

    The mode is set at creation, so the secret is never readable by others.
    """
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
    with os.fdopen(fd, "wb") as file:
        file.write(data)


def write_public(path: Path, text: str) -> None:
    """Create ``path`` with mode 0644 holding ``text``; FileExistsError if it exists."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
    with os.fdopen(fd, "w") as file:
        file.write(text)
    os.chmod(path, 0o644)  # regardless of the umask
