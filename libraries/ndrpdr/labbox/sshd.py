"""One labbox host's sshd process: finding the binary, waiting for it, stopping it.

The sshd is started (by ``LabboxHosts``) through the local testbed's
tracked transport, so its PID and start time are in the run's state file.
It is ready when its address answers with an SSH banner. Stopping it
also stops the session processes it forked for open connections; what a
session detached (``setsid``) stays for the local testbed's teardown,
which removes everything inside the run's namespaces.
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
from collections.abc import Callable
from ipaddress import IPv4Address
from pathlib import Path

from ndrpdr.labbox.errors import LabboxError
from ndrpdr.localbed.procs import start_time
from ndrpdr.systemtools import require

#: Where sshd is looked for besides PATH.
SSHD_DIRS = ("/usr/sbin", "/usr/local/sbin", "/sbin")

#: How many lines of the sshd log an error message quotes.
LOG_TAIL_LINES = 20

#: Pause between two readiness probes [s].
PROBE_INTERVAL_S = 0.02


def find_sshd() -> str:
    """The absolute path of sshd (LabboxError if it is not installed)."""
    return os.path.abspath(require("sshd", extra_dirs=SSHD_DIRS, fail=LabboxError))


def sshd_version_text(sshd: str) -> str:
    """What ``sshd -V`` prints (its version line; stderr), or '' if it cannot run."""
    try:
        done = subprocess.run(
            [sshd, "-V"], capture_output=True, text=True, timeout=10.0, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stderr + done.stdout


def log_tail(text: str, lines: int = LOG_TAIL_LINES) -> str:
    """The last ``lines`` lines of ``text``, indented, or a note that it is empty."""
    kept = text.rstrip().splitlines()[-lines:]
    return "\n".join(f"  {line}" for line in kept) if kept else "  (empty)"


def read_banner(address: IPv4Address, port: int, timeout_s: float) -> str | None:
    """The SSH identification line at ``address``:``port``, or None if none came."""
    try:
        with socket.create_connection((str(address), port), timeout=timeout_s) as sock:
            data = b""
            while b"\n" not in data and len(data) < 1024:
                chunk = sock.recv(256)
                if not chunk:
                    break
                data += chunk
    except OSError:
        return None
    line = data.split(b"\n", 1)[0].decode("ascii", errors="replace").strip()
    return line if line.startswith("SSH-") else None


def wait_for_banner(
    node: str,
    address: IPv4Address,
    port: int,
    deadline: float,
    *,
    is_running: Callable[[], bool],
    log: Callable[[], str],
) -> str:
    """Probe until an SSH banner answers (returned); LabboxError on exit or past ``deadline``.

    ``deadline`` is a ``time.monotonic()`` value; ``is_running`` and ``log``
    describe the sshd, so a failure says whether it died and quotes its log.
    """
    while True:
        remaining = deadline - time.monotonic()
        banner = read_banner(address, port, max(min(remaining, 1.0), 0.05))
        if banner is not None:
            return banner
        if not is_running():
            raise LabboxError(
                f"node {node}: sshd exited before answering on {address}:{port}; its log:\n"
                + log_tail(log())
            )
        if time.monotonic() >= deadline:
            raise LabboxError(
                f"node {node}: sshd did not answer with an SSH banner on {address}:{port} "
                "in time; its log:\n" + log_tail(log())
            )
        time.sleep(PROBE_INTERVAL_S)


def _parent(pid: int) -> int | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rfind(")") + 2 :].split()
    return int(fields[1]) if len(fields) > 1 else None


def descendants(pid: int) -> list[int]:
    """PIDs of the processes below ``pid`` now (children, their children...), parents first."""
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            parent = _parent(int(entry.name))
            if parent is not None:
                children.setdefault(parent, []).append(int(entry.name))
    found: list[int] = []
    queue = list(children.get(pid, []))
    while queue:
        child = queue.pop(0)
        if child not in found and start_time(child) is not None:
            found.append(child)
            queue.extend(children.get(child, []))
    return found
