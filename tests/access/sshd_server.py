"""A throw-away OpenSSH server on 127.0.0.1 for the SSH transport tests.

Everything lives in one temporary directory: host key, user keys,
authorized_keys, sshd_config, known_hosts, the sshd log. When possible sshd
runs in a private mount namespace (``unshare --mount``) in which
/etc/passwd and /etc/shadow are bind-mounted copies that add one test user
with a known password (and whose bash rc file prints noise): password
authentication and a non-root login can then be tested without touching the
machine's real users. In that copy root's login shell is /bin/sh, so that a
slow ~/.bashrc of this machine (pyenv init) does not slow every command.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

SSHD = "/usr/sbin/sshd"
TEST_USER = "ndrpdrtest"
TEST_UID = 4242


def free_port() -> int:
    """A TCP port on 127.0.0.1 nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def pid_alive(pid: int) -> bool:
    """True if ``pid`` exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def children_of(pid: int) -> list[int]:
    """Direct children of ``pid`` (from /proc)."""
    kids: list[int] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            kids.append(int(entry.name))
    return kids


def descendants_of(pid: int) -> list[int]:
    """All descendants of ``pid``, parents before children."""
    found: list[int] = []
    queue = [pid]
    while queue:
        for kid in children_of(queue.pop()):
            found.append(kid)
            queue.append(kid)
    return found


def _keygen(path: Path, key_type: str) -> str:
    """Generate an unencrypted key pair at ``path``; return the public key line."""
    subprocess.run(
        ["ssh-keygen", "-q", "-t", key_type, "-N", "", "-C", "ndrpdr-test", "-f", str(path)],
        check=True,
        stdin=subprocess.DEVNULL,
    )
    return path.with_suffix(".pub").read_text().strip()


def _password_hash(password: str) -> str:
    done = subprocess.run(
        ["openssl", "passwd", "-6", "-stdin"],
        input=password,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def _fast_root_shell(line: str) -> str:
    """A passwd line, root's login shell made /bin/sh (skips a slow ~/.bashrc, e.g. pyenv)."""
    fields = line.split(":")
    if fields[0] == "root" and len(fields) == 7:
        fields[6] = "/bin/sh"
    return ":".join(fields) + "\n"


def _can_unshare_mounts() -> bool:
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        return False
    probe = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "true"],
        capture_output=True,
        check=False,
    )
    return probe.returncode == 0


@dataclasses.dataclass
class SshServer:
    """A running sshd and the files a client needs to reach it."""

    directory: Path
    port: int
    process: subprocess.Popen[bytes]
    host_public_key: str
    known_hosts: Path
    user_key: Path
    user_key_ecdsa: Path
    wrong_key: Path
    test_user_password: str | None
    seen_pids: set[int] = dataclasses.field(default_factory=set)

    @property
    def pid(self) -> int:
        """The listening sshd's PID."""
        return self.process.pid

    @property
    def has_test_user(self) -> bool:
        """True when the non-root test user (with a password) exists for sshd."""
        return self.test_user_password is not None

    def log(self) -> str:
        """What sshd logged so far."""
        path = self.directory / "sshd.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def sessions(self) -> list[int]:
        """PIDs of the processes serving connections (sshd's descendants)."""
        pids = descendants_of(self.pid)
        self.seen_pids.update(pids)
        return pids

    def drop_connections(self) -> None:
        """Kill every per-connection sshd process: clients see the server close them."""
        for pid in self.sessions():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 5
        while any(pid_alive(pid) for pid in self.seen_pids) and time.monotonic() < deadline:
            time.sleep(0.02)

    def stop(self) -> None:
        """Stop sshd and whatever still serves a connection, by PID."""
        self.drop_connections()
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)


def start_sshd(base: Path | None = None) -> SshServer:
    """Generate keys and a config in a fresh directory and start sshd on a free port."""
    directory = Path(tempfile.mkdtemp(prefix="ndrpdr-sshd-", dir=base))
    directory.chmod(0o755)  # the test user's sshd must read authorized_keys
    host_public = _keygen(directory / "host_ed25519", "ed25519")
    user_public = _keygen(directory / "user_ed25519", "ed25519")
    user_ecdsa_public = _keygen(directory / "user_ecdsa", "ecdsa")
    _keygen(directory / "wrong_ed25519", "ed25519")
    authorized = directory / "authorized_keys"
    authorized.write_text(f"{user_public}\n{user_ecdsa_public}\n")
    authorized.chmod(0o644)

    port = free_port()
    known_hosts = directory / "known_hosts"
    known_hosts.write_text(f"[127.0.0.1]:{port} {host_public}\n")

    config = directory / "sshd_config"
    config.write_text(
        "\n".join(
            [
                f"Port {port}",
                "ListenAddress 127.0.0.1",
                f"HostKey {directory / 'host_ed25519'}",
                f"PidFile {directory / 'sshd.pid'}",
                f"AuthorizedKeysFile {authorized}",
                "StrictModes no",
                "UsePAM no",
                "PermitRootLogin yes",
                "PubkeyAuthentication yes",
                "PasswordAuthentication yes",
                "KbdInteractiveAuthentication no",
                "PrintMotd no",
                "PrintLastLog no",
                "UseDNS no",
                "MaxStartups 50:30:100",
                "LogLevel VERBOSE",
                "Subsystem sftp internal-sftp",
                "",
            ]
        )
    )
    Path("/run/sshd").mkdir(parents=True, exist_ok=True)  # privilege separation directory

    sshd = [SSHD, "-D", "-e", "-E", str(directory / "sshd.log"), "-f", str(config)]
    password: str | None = None
    if _can_unshare_mounts():
        password = f"pw-{uuid.uuid4().hex[:12]}"
        home = directory / "home"
        home.mkdir()
        os.chown(home, TEST_UID, 65534)
        # A login shell rc file that prints: the transport must keep it out of stdout.
        (home / ".bashrc").write_text("echo 'noise from .bashrc'\n")
        passwd = directory / "passwd"
        passwd.write_text(
            "".join(_fast_root_shell(line) for line in Path("/etc/passwd").read_text().splitlines())
            + f"{TEST_USER}:x:{TEST_UID}:65534:ndrpdr test:{home}:/bin/bash\n"
        )
        shadow = directory / "shadow"
        entry = f"{TEST_USER}:{_password_hash(password)}:19000::::::\n"
        shadow.write_text(Path("/etc/shadow").read_text() + entry)
        shadow.chmod(0o600)
        passwd.chmod(0o644)
        script = (
            'mount --bind "$1" /etc/passwd && mount --bind "$2" /etc/shadow && shift 2 && exec "$@"'
        )
        command = [
            "unshare",
            "--mount",
            "--propagation",
            "private",
            "sh",
            "-c",
            script,
            "sh",
            str(passwd),
            str(shadow),
            *sshd,
        ]
    else:
        command = sshd
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL)
    server = SshServer(
        directory=directory,
        port=port,
        process=process,
        host_public_key=host_public,
        known_hosts=known_hosts,
        user_key=directory / "user_ed25519",
        user_key_ecdsa=directory / "user_ecdsa",
        wrong_key=directory / "wrong_ed25519",
        test_user_password=password,
    )
    deadline = time.monotonic() + 10
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"sshd exited with {process.returncode}:\n{server.log()}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5) as probe:
                probe.settimeout(2)
                if probe.recv(64).startswith(b"SSH-"):
                    break
        except OSError:
            if time.monotonic() > deadline:
                server.stop()
                raise RuntimeError(f"sshd did not listen on port {port}:\n{server.log()}") from None
            time.sleep(0.02)
    return server
