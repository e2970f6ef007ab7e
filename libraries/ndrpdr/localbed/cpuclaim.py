"""CPU claims of the runs on this machine: who uses which CPU, held by file locks.

A run claims a CPU for one of its nodes by creating a claim file
``<state dir>/cpus/cpu<N>.<run id>.<node>.lock`` holding the run id, the
node and the runner's PID (JSON), and keeping an exclusive ``flock`` on it
for as long as the run lives. The lock belongs to the open file, which
only the runner holds (opened with O_CLOEXEC: no child process inherits
it), so the kernel drops the claims of a runner that dies in any way,
even SIGKILL; a claim file nobody locks is stale and the next look
removes it. Several runs may claim the same CPU (they then share it,
knowingly); ``holders`` tells, per CPU, who holds it. A run that claims a
CPU others hold adds a line naming itself to their claim files, so each
of them can tell at its end who shared its CPU meanwhile (``joined``),
even a run that has finished since.

Looking, claiming and releasing happen under a short exclusive ``flock``
of the state directory itself, so two runs starting at once never both
take the CPU they both saw free, and the ``cpus`` directory can go when
its last claim does (nothing stays behind a run). A claim file is written
and locked under a temporary name and renamed into place, so a reader
never sees one that is not locked.
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

from ndrpdr.localbed.errors import LocalTestbedError
from ndrpdr.localbed.naming import check_run_id
from ndrpdr.localbed.state import state_dir

#: Name of the claims' directory inside the state directory.
CLAIM_DIR_NAME = "cpus"
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
    """Hold an exclusive flock of ``directory`` (the claims directory's parent)."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _remove_if_empty(directory: Path) -> None:
    with contextlib.suppress(FileNotFoundError, OSError):
        directory.rmdir()  # fails while it holds anything: then it stays


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


def _parse(line: str) -> CpuHolder | None:
    try:
        data = json.loads(line)
        return CpuHolder(int(data["cpu"]), str(data["run_id"]), str(data["node"]), int(data["pid"]))
    except (ValueError, KeyError, TypeError):
        return None


def _read_lines(path: Path) -> list[str]:
    try:
        return path.read_text().splitlines()
    except OSError:
        return []


def _read_holder(path: Path) -> CpuHolder | None:
    """The holder a claim file names (its first line)."""
    lines = _read_lines(path)
    return _parse(lines[0]) if lines else None


def _line(holder: CpuHolder) -> bytes:
    return (json.dumps(dataclasses.asdict(holder)) + "\n").encode()


def _scan(directory: Path, removed: list[str] | None = None) -> dict[int, list[CpuHolder]]:
    """Live holders by CPU; removes stale claim files, naming them in ``removed``.

    Call under the mutex.
    """
    found: dict[int, list[CpuHolder]] = {}
    try:
        paths = sorted(directory.iterdir())
    except FileNotFoundError:
        return found
    for path in paths:
        name = path.name
        if name.startswith(_NEW):  # a writer died between create and rename
            path.unlink(missing_ok=True)
            if removed is not None:
                removed.append(f"unfinished CPU claim file {path}")
            continue
        if not (name.startswith("cpu") and name.endswith(".lock")):
            continue
        locked = _locked_by_someone(path)
        if locked is False:  # its runner is gone: the kernel dropped the lock
            path.unlink(missing_ok=True)
            if removed is not None:
                removed.append(f"CPU claim file {path} (its runner is gone)")
            continue
        holder = _read_holder(path) if locked else None
        if holder is not None:
            found.setdefault(holder.cpu, []).append(holder)
    return found


def remove_stale_claims(directory: Path | None = None) -> list[str]:
    """Remove the claim files of dead runners (for ``cleanup_leftovers``); say what went.

    ``directory``: the claims directory (default ``claim_dir()``); nothing
    happens when it does not exist.
    """
    directory = claim_dir() if directory is None else Path(directory)
    removed: list[str] = []
    if not directory.is_dir():
        return removed
    with _mutex(directory.parent):
        _scan(directory, removed)
        _remove_if_empty(directory)
    return removed


class CpuClaims:
    """The CPU claims of one run, held until ``release`` (or the runner's death)."""

    def __init__(self, run_id: str, directory: Path | None = None) -> None:
        """``run_id``: the run the claims are for; ``directory``: default ``claim_dir()``.

        The parent of ``directory`` holds the lock; no I/O here.
        """
        self.run_id = check_run_id(run_id)
        self.directory = claim_dir() if directory is None else Path(directory)
        self._held: dict[Path, int] = {}  # claim file -> its open, locked descriptor

    @contextlib.contextmanager
    def choosing(self) -> Iterator[dict[int, list[CpuHolder]]]:
        """Hold the claims' lock while choosing: yields the live holders by CPU.

        Stale claim files are removed first. Claims made inside (``claim``)
        are atomic with the look: no other run can claim in between.
        LocalTestbedError when the directories cannot be made.
        """
        try:
            self.directory.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
            with _mutex(self.directory.parent):
                self.directory.mkdir(mode=0o755, exist_ok=True)
                try:
                    yield _scan(self.directory)
                finally:
                    _remove_if_empty(self.directory)
        except OSError as exc:
            raise LocalTestbedError(
                f"run {self.run_id}: cannot use the CPU claim directory {self.directory}: {exc}"
            ) from exc

    def holders(self) -> dict[int, list[CpuHolder]]:
        """Live claims of every run (this one's too) by CPU; stale claim files are removed."""
        with self.choosing() as found:
            return found

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
            os.write(fd, _line(holder))
            os.rename(temp, final)
        except OSError as exc:
            os.close(fd)
            temp.unlink(missing_ok=True)
            raise LocalTestbedError(
                f"run {self.run_id}: cannot claim CPU {cpu} for {node} in {self.directory}: {exc}"
            ) from exc
        self._held[final] = fd
        self._tell_others(holder)
        return holder

    def _tell_others(self, holder: CpuHolder) -> None:
        """Add a line naming ``holder`` to the claim files of other runs on its CPU."""
        for path in self.directory.glob(f"cpu{holder.cpu}.*.lock"):
            owner = _read_holder(path)
            if owner is None or owner.run_id == self.run_id:
                continue
            with contextlib.suppress(OSError):  # gone meanwhile: nobody to tell
                fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC)
                try:
                    os.write(fd, _line(holder))
                finally:
                    os.close(fd)

    def joined(self, node: str) -> list[CpuHolder]:
        """Claims of other runs made on ``node``'s CPU after this run claimed it."""
        found: list[CpuHolder] = []
        for path in self._held:
            lines = _read_lines(path)
            owner = _parse(lines[0]) if lines else None
            if owner is not None and owner.node == node:
                found += [h for h in map(_parse, lines[1:]) if h is not None and h not in found]
        return found

    @property
    def held(self) -> tuple[Path, ...]:
        """The claim files this run holds."""
        return tuple(self._held)

    def release(self) -> None:
        """Give every claim of this run back; the claims directory goes if it is empty.

        Idempotent; never raises for a directory already gone.
        """
        held, self._held = self._held, {}
        if not held:
            return
        try:
            with _mutex(self.directory.parent):
                self._drop(held)
                _remove_if_empty(self.directory)
        except OSError:  # the state directory is gone: only the descriptors are left
            self._drop(held)

    @staticmethod
    def _drop(held: dict[Path, int]) -> None:
        for path, fd in list(held.items()):
            path.unlink(missing_ok=True)
            os.close(fd)
            del held[path]

    def __enter__(self) -> CpuClaims:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.release()

    def __repr__(self) -> str:
        return f"CpuClaims(run_id={self.run_id!r}, held={len(self._held)})"
