"""The text and command of a labbox host's sshd (pure: no I/O).

Each host's sshd runs ``-D -e`` (foreground, log to stderr) with its own
config, inside the host's network namespace and a private mount namespace
(``unshare --mount --propagation private``) in which ``HOST_SCRIPT`` first
mounts:

* a tmpfs on /tmp: the SSH transport's background-process logs and TRex's
  config stay per host and vanish with it;
* a tmpfs on /run/dpdk: DPDK runtime directories (TRex, testpmd) are per
  host, so two DPDK apps on two hosts never meet as primary/secondary;
* the run's passwd copy on /etc/passwd, in which root's login shell is
  /bin/sh: sshd runs every command through the login shell, and a bash
  login would read root's ~/.bashrc (slow here) for each one.

It then execs sshd, so the started process's PID is the sshd's.
"""

from __future__ import annotations

import re
from ipaddress import IPv4Address
from pathlib import Path

#: Mounts the host's private directories, then execs "$@" (sshd). $1: the passwd copy.
HOST_SCRIPT = """\
set -e
mount -t tmpfs -o mode=1777,nosuid,nodev ndrpdr-labbox-tmp /tmp
mount -t tmpfs -o mode=0755,nosuid,nodev ndrpdr-labbox-dpdk /run/dpdk
mount --bind "$1" /etc/passwd
shift
exec "$@"
"""

#: OpenSSH from this version on penalises sources that disconnect before
#: authenticating (the readiness probe does) unless told not to.
PENALTIES_SINCE = (9, 8)

_VERSION = re.compile(r"OpenSSH_(\d+)\.(\d+)")


def parse_openssh_version(text: str) -> tuple[int, int] | None:
    """(major, minor) from ``sshd -V`` output ("OpenSSH_9.2p1, OpenSSL ..."), else None."""
    match = _VERSION.search(text)
    return None if match is None else (int(match[1]), int(match[2]))


def sshd_config_text(
    *,
    listen: IPv4Address,
    port: int,
    host_key: Path,
    authorized_keys: Path,
    pid_file: Path,
    openssh_version: tuple[int, int] | None = None,
) -> str:
    """One host's sshd_config: key-only root login on ``listen``:``port``, SFTP in process.

    ``openssh_version`` decides options that older sshd versions reject
    (unknown: none of them is written).
    """
    lines = [
        f"ListenAddress {listen}:{port}",
        f"HostKey {host_key}",
        f"AuthorizedKeysFile {authorized_keys}",
        f"PidFile {pid_file}",
        "UsePAM no",
        "PermitRootLogin prohibit-password",
        "PubkeyAuthentication yes",
        "PasswordAuthentication no",
        "KbdInteractiveAuthentication no",
        "StrictModes no",
        "Subsystem sftp internal-sftp",
        "UseDNS no",
        "PrintMotd no",
        "PrintLastLog no",
        "X11Forwarding no",
        "LogLevel VERBOSE",
    ]
    if openssh_version is not None and openssh_version >= PENALTIES_SINCE:
        lines.append("PerSourcePenalties no")
    return "\n".join(lines) + "\n"


def root_shell_sh(passwd: str) -> str:
    """``passwd`` (an /etc/passwd text) with root's login shell set to /bin/sh."""
    out = []
    for line in passwd.splitlines():
        fields = line.split(":")
        if len(fields) == 7 and fields[0] == "root":
            fields[6] = "/bin/sh"
        out.append(":".join(fields))
    return "\n".join(out) + "\n"


def host_command(sshd: str, config: Path, passwd: Path) -> list[str]:
    """The argv that, run in the host's network namespace, becomes its sshd."""
    return [
        "unshare", "--mount", "--propagation", "private",
        "sh", "-c", HOST_SCRIPT, "sh", str(passwd),
        sshd, "-D", "-e", "-f", str(config),
    ]  # fmt: skip
