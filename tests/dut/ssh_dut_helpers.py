"""A real sshd serving a DUT network namespace, for the DUT-over-SSH tests.

``NamespacedSshd`` answers 127.0.0.1:P of this machine with OpenSSH's sshd
*inside a network namespace*, started inetd-style (``sshd -i``, as Debian's
ssh.socket does) for each accepted connection. In the sshd's private mount
namespace, /etc/passwd is a copy in which root's login shell is /bin/sh (a
slow ~/.bashrc would slow every command). Every sshd is tracked by PID and
stopped by ``stop``.

Also: helpers to tell which network namespace a process is in and which
processes are left in one.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import socket
import subprocess
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from dutbed import pid_alive

from ndrpdr.localbed.procs import NETNS_RUN_DIR

SSHD = "/usr/sbin/sshd"


def keygen(path: Path) -> str:
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "ndrpdr-test", "-f", str(path)],
        check=True,
        stdin=subprocess.DEVNULL,
    )
    return path.with_suffix(".pub").read_text().strip()


def root_shell_sh(line: str) -> str:
    fields = line.split(":")
    if fields[0] == "root" and len(fields) == 7:
        fields[6] = "/bin/sh"
    return ":".join(fields)


@dataclasses.dataclass
class NamespacedSshd:
    """127.0.0.1:``port`` of this machine, served by ``sshd -i`` in network namespace ``netns``.

    Each accepted connection becomes one sshd process (run through ``ip
    netns exec``), tracked by PID and stopped by ``stop``.
    """

    directory: Path
    listener: socket.socket
    netns: str | None = None
    served: list[subprocess.Popen[bytes]] = dataclasses.field(default_factory=list)
    _stopping: threading.Event = dataclasses.field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self.listener.getsockname()[1])

    @property
    def key_file(self) -> Path:
        return self.directory / "user_ed25519"

    @property
    def known_hosts(self) -> Path:
        return self.directory / "known_hosts"

    def log(self) -> str:
        path = self.directory / "sshd.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def command(self, netns: str) -> list[str]:
        bind = 'mount --bind "$1" /etc/passwd && shift && exec "$@"'
        return [
            "ip", "netns", "exec", netns,
            "unshare", "--mount", "--propagation", "private",
            "sh", "-c", bind, "sh", str(self.directory / "passwd"),
            SSHD, "-i", "-e", "-f", str(self.directory / "sshd_config"),
        ]  # fmt: skip

    def serve(self) -> None:
        self.listener.settimeout(0.1)
        self._thread = threading.Thread(target=self._accept, name="sshd-inetd", daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while not self._stopping.is_set():
            try:
                connection, _ = self.listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with connection, (self.directory / "sshd.log").open("ab") as log:
                if self.netns is None:
                    continue  # not ready: the client sees the connection closed
                self.served.append(
                    subprocess.Popen(
                        self.command(self.netns),
                        stdin=connection.fileno(),
                        stdout=connection.fileno(),
                        stderr=log,
                    )
                )

    def stop(self) -> None:
        """Stop accepting; stop every sshd still serving, by PID."""
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(5)
        self.listener.close()
        for process in self.served:
            if process.poll() is None:
                process.terminate()
            try:
                process.wait(5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)


def start_namespaced_sshd(directory: Path) -> NamespacedSshd:
    """Keys, known_hosts, a passwd copy and sshd_config in ``directory``; listening, not serving."""
    directory.chmod(0o755)
    host_public = keygen(directory / "host_ed25519")
    user_public = keygen(directory / "user_ed25519")
    (directory / "authorized_keys").write_text(user_public + "\n")
    lines = Path("/etc/passwd").read_text().splitlines()
    passwd = "\n".join(root_shell_sh(line) for line in lines)
    (directory / "passwd").write_text(passwd + "\n")
    (directory / "passwd").chmod(0o644)
    (directory / "sshd_config").write_text(
        "\n".join(
            [
                f"HostKey {directory / 'host_ed25519'}",
                f"AuthorizedKeysFile {directory / 'authorized_keys'}",
                "StrictModes no",
                "UsePAM no",
                "PermitRootLogin prohibit-password",
                "PubkeyAuthentication yes",
                "PasswordAuthentication no",
                "KbdInteractiveAuthentication no",
                "PrintMotd no",
                "PrintLastLog no",
                "UseDNS no",
                "LogLevel VERBOSE",
                "Subsystem sftp internal-sftp",
                "",
            ]
        )
    )
    Path("/run/sshd").mkdir(parents=True, exist_ok=True)  # privilege separation directory
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    server = NamespacedSshd(directory, listener)
    (directory / "known_hosts").write_text(f"[127.0.0.1]:{server.port} {host_public}\n")
    return server


def serve_sshd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tools: Sequence[str]
) -> Iterator[NamespacedSshd]:
    """The body of an ``sshd`` fixture: skip unless root and ``tools`` (and sshd) exist.

    Serves connections once the test sets ``netns``; afterwards no sshd it
    started may run. The state directory goes under ``tmp_path``.
    """
    if os.geteuid() != 0:
        pytest.skip("needs root (network namespaces, sshd)")
    missing = [t for t in tools if shutil.which(t) is None]
    if not os.access(SSHD, os.X_OK):
        missing.append(SSHD)
    if missing:
        pytest.skip(f"not installed: {', '.join(missing)}")
    monkeypatch.setenv("NDRPDR_STATE_DIR", str(tmp_path / "state"))
    directory = tmp_path / "sshd"
    directory.mkdir()
    server = start_namespaced_sshd(directory)
    server.serve()
    try:
        yield server
    finally:
        server.stop()
    left = [p.pid for p in server.served if pid_alive(p.pid)]
    assert not left, f"sshd processes left: {left}"


def netns_id(path: str | Path) -> tuple[int, int]:
    """(device, inode) of a network namespace file (/run/netns/NAME, /proc/PID/ns/net)."""
    found = os.stat(path)
    return found.st_dev, found.st_ino


def same_netns(pid: int, namespace: str) -> bool:
    """True when process ``pid`` is in the network namespace named ``namespace``."""
    return netns_id(f"/proc/{pid}/ns/net") == netns_id(NETNS_RUN_DIR / namespace)


def pids_in_netns(wanted: tuple[int, int]) -> list[int]:
    """Processes whose network namespace is ``wanted`` (even once its name is deleted)."""
    found = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if netns_id(f"/proc/{entry.name}/ns/net") == wanted:
                    found.append(int(entry.name))
            except OSError:
                continue
    return found
