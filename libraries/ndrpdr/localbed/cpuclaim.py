"""CPU claims of the runs on this machine: who uses which CPU, held by file locks.

A run claims a CPU for one of its nodes by creating a claim file
``<state dir>/cpus/cpu<N>.<run id>.<node>.lock`` holding the run id, the
node and the runner's PID (JSON), and keeping an exclusive ``flock`` on it
for as long as the run lives. The lock belongs to the open file, which
only the runner holds (opened with O_CLOEXEC: no child process inherits
it), so the kernel drops the claims of a runner that dies in any way,
even SIGKILL; a claim file nobody locks is stale and the next look
removes it. Several runs may claim the same CPU (they then share it,
knowingly); ``holders`` tells, per CPU, who holds it.

Looking and claiming happen under ``cpus/.lock`` (a short exclusive
``flock``), so two runs starting at once never both take the CPU they
both saw free. A claim file is written and locked under a temporary name
and renamed into place, so a reader never sees one that is not locked.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import json
import os
import re
import secrets
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType

from ndrpdr.localbed.errors import LocalTestbedError
from ndrpdr.localbed.naming import check_run_id
from ndrpdr.localbed.state import state_dir

#: Name of the claims' directory inside the state directory.
CLAIM_DIR_NAME = "cpus"
#: The lock file every look and claim holds (briefly).
_MUTEX = ".lock"
#: Prefix of claim files still being written.
_NEW = ".new-"


def claim_dir() -> Path:
    """Where claim files live: ``<state dir>/cpus`` (``$NDRPDR_STATE_DIR`` or /run/ndrpdr)."""
    return state_dir() / CLAIM_DIR_NAME


@dataclasses.dataclass(frozen=True)
class CpuHolder:
    """A live claim: the run, its node and the runner's PID holding ``cpu``."""

    cpu: int
    run_id: str
    node: str
    pid: int

    def describe(self) -> str:
        """``"run 1234-ab12 (DUT1, pid 1234)"``."""
        return f"run {self.run_id} ({self.node}, pid {self.pid})"


@contextlib.contextmanager
def _mutex(directory: Path) -> Iterator[None]:
    fd = os.open(directory / _MUTEX, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _locked_by_someone(path: Path) -> bool | None:
    """True if some open file holds a lock on ``path``; None if it is gone."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def _read_holder(path: Path) -> CpuHolder | None:
    try:
        data = json.loads(path.read_text())
        return CpuHolder(int(data["cpu"]), str(data["run_id"]), str(data["node"]), int(data["pid"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _scan(directory: Path) -> dict[int, list[CpuHolder]]:
    """Live holders by CPU; removes stale claim files (call under the mutex)."""
    found: dict[int, list[CpuHolder]] = {}
    for path in sorted(directory.iterdir()):
        name = path.name
        if name.startswith(_NEW):  # a writer died between create and rename
            path.unlink(missing_ok=True)
            continue
        if not (name.startswith("cpu") and name.endswith(".lock")):
            continue
        locked = _locked_by_someone(path)
        if locked is False:  # its runner is gone: the kernel dropped the lock
            path.unlink(missing_ok=True)
            continue
        holder = _read_holder(path) if locked else None
        if holder is not None:
            found.setdefault(holder.cpu, []).append(holder)
    return found


class CpuClaims:
    """The CPU claims of one run, held until ``release`` (or the runner's death)."""

    def __init__(self, run_id: str, directory: Path | None = None) -> None:
        """``run_id``: the run the claims are for; ``directory``: default ``claim_dir()``.

        No I/O here.
        """
        self.run_id = check_run_id(run_id)
        self.directory = claim_dir() if directory is None else Path(directory)
        self._held: dict[Path, int] = {}  # claim file -> its open, locked descriptor

    def _ensure_dir(self) -> None:
        try:
            self.directory.mkdir(mode=0o755, parents=True, exist_ok=True)
        except OSError as exc:
            raise LocalTestbedError(
                f"run {self.run_id}: cannot make the CPU claim directory {self.directory}: {exc}"
            ) from exc

    def holders(self) -> dict[int, list[CpuHolder]]:
        """Live claims of every run (this one's too) by CPU; stale claim files are removed."""
        self._ensure_dir()
        with _mutex(self.directory):
            return _scan(self.directory)

    @contextlib.contextmanager
    def choosing(self) -> Iterator[dict[int, list[CpuHolder]]]:
        """Hold the claims' mutex while choosing: yields the live holders by CPU.

        Claims made inside (``claim``) are atomic with the look: no other
        run can claim in between.
        """
        self._ensure_dir()
        with _mutex(self.directory):
            yield _scan(self.directory)

    def claim(self, node: str, cpu: int) -> CpuHolder:
        """Claim ``cpu`` for ``node`` (call inside ``choosing``); kept until ``release``."""
        holder = CpuHolder(cpu, self.run_id, node, os.getpid())
        safe = re.sub(r"[^A-Za-z0-9_-]", "_", node)
        final = self.directory / f"cpu{cpu}.{self.run_id}.{safe}.lock"
        if final in self._held:
            return holder
        temp = self.directory / f"{_NEW}{os.getpid()}-{secrets.token_hex(4)}"
        flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC
        try:
            fd = os.open(temp, flags, 0o644)
        except OSError as exc:
            raise LocalTestbedError(
                f"run {self.run_id}: cannot claim CPU {cpu} for {node} in {self.directory}: {exc}"
            ) from exc
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            text = json.dumps(dataclasses.asdict(holder)) + "\n"
            os.write(fd, text.encode())
            os.rename(temp, final)
        except OSError as exc:
            os.close(fd)
            temp.unlink(missing_ok=True)
            raise LocalTestbedError(
                f"run {self.run_id}: cannot claim CPU {cpu} for {node} in {self.directory}: {exc}"
            ) from exc
        self._held[final] = fd
        return holder

    @property
    def held(self) -> tuple[Path, ...]:
        """The claim files this run holds."""
        return tuple(self._held)

    def release(self) -> None:
        """Give every claim of this run back (idempotent)."""
        held, self._held = self._held, {}
        for path, fd in held.items():
            path.unlink(missing_ok=True)
            os.close(fd)

    def __enter__(self) -> CpuClaims:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()

    def __repr__(self) -> str:
        return f"CpuClaims(run_id={self.run_id!r}, held={len(self._held)})"
