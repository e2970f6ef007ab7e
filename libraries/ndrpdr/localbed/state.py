"""A run's state file: who owns the run and what it made, for crash recovery.

One JSON file per run, ``<state dir>/<run id>.json``, written *before*
anything is created and updated as processes start and paths appear. The
owner is a PID plus its start time, so a reused PID is not mistaken for
the owner. Writes are atomic (a temporary file, then link or rename), so
a reader never sees half a file. The directory is ``/run/ndrpdr`` unless
the environment variable ``NDRPDR_STATE_DIR`` names another.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
from pathlib import Path
from typing import Any

from ndrpdr.localbed.errors import LocalTestbedError

#: Default directory of state files (tmpfs: gone after a reboot, like the namespaces).
DEFAULT_STATE_DIR = Path("/run/ndrpdr")

#: Prefix of temporary files in the state directory (followed by the writer's PID).
TEMP_PREFIX = ".tmp-"

_VERSION = 1


def state_dir() -> Path:
    """The state directory: ``$NDRPDR_STATE_DIR`` or /run/ndrpdr."""
    return Path(os.environ.get("NDRPDR_STATE_DIR") or DEFAULT_STATE_DIR)


@dataclasses.dataclass(frozen=True)
class ProcessRecord:
    """A process a run started: PID and start time [clock ticks since boot]."""

    pid: int
    start_time: int


@dataclasses.dataclass
class RunState:
    """What a state file holds: the owner and everything the run created.

    ``paths`` are files and directories of the run; ``logs`` the output
    files of processes started through its transports (removed once read);
    ``interfaces`` network interfaces the run made in the runner's (root)
    namespace, e.g. the root end of a veth pair into one of its namespaces;
    ``reaper`` the run's supervisor process (``ndrpdr.localbed.reaper``),
    which removes the run when the owner dies without a teardown.
    """

    run_id: str
    owner_pid: int
    owner_start_time: int
    namespaces: list[str] = dataclasses.field(default_factory=list)
    processes: list[ProcessRecord] = dataclasses.field(default_factory=list)
    paths: list[str] = dataclasses.field(default_factory=list)
    logs: list[str] = dataclasses.field(default_factory=list)
    interfaces: list[str] = dataclasses.field(default_factory=list)
    reaper: ProcessRecord | None = None

    def to_json(self) -> dict[str, Any]:
        """The state as a JSON-ready dict."""
        return {
            "version": _VERSION,
            "run_id": self.run_id,
            "owner": {"pid": self.owner_pid, "start_time": self.owner_start_time},
            "namespaces": list(self.namespaces),
            "processes": [dataclasses.asdict(p) for p in self.processes],
            "paths": list(self.paths),
            "logs": list(self.logs),
            "interfaces": list(self.interfaces),
            "reaper": None if self.reaper is None else dataclasses.asdict(self.reaper),
        }

    @classmethod
    def from_json(cls, data: Any) -> RunState:
        """Parse a state file's content (ValueError if it is not one)."""
        try:
            owner = data["owner"]
            reaper = data.get("reaper")
            state = cls(
                run_id=str(data["run_id"]),
                owner_pid=int(owner["pid"]),
                owner_start_time=int(owner["start_time"]),
                namespaces=[str(n) for n in data["namespaces"]],
                processes=[
                    ProcessRecord(int(p["pid"]), int(p["start_time"])) for p in data["processes"]
                ],
                paths=[str(p) for p in data["paths"]],
                logs=[str(p) for p in data.get("logs", [])],
                interfaces=[str(i) for i in data.get("interfaces", [])],
                reaper=None
                if reaper is None
                else ProcessRecord(int(reaper["pid"]), int(reaper["start_time"])),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"not a run state: {exc!r}") from exc
        return state


def temp_file(directory: Path, pid: int, run_id: str) -> Path:
    """Where process ``pid`` writes run ``run_id``'s state before it replaces the state file."""
    return directory / f"{TEMP_PREFIX}{pid}-{run_id}"


class StateStore:
    """The state files of one directory."""

    def __init__(self, directory: Path | None = None) -> None:
        """``directory``: where state files live (default: ``state_dir()``); no I/O here."""
        self.directory = state_dir() if directory is None else Path(directory)

    def path(self, run_id: str) -> Path:
        """The state file of ``run_id``."""
        return self.directory / f"{run_id}.json"

    def _write_temp(self, state: RunState) -> Path:
        self.directory.mkdir(mode=0o755, parents=True, exist_ok=True)
        temp = temp_file(self.directory, os.getpid(), state.run_id)
        temp.write_text(json.dumps(state.to_json(), indent=1) + "\n")
        return temp

    def create(self, state: RunState) -> None:
        """Write a new state file; LocalTestbedError if the run id already has one."""
        try:
            temp = self._write_temp(state)
        except OSError as exc:
            raise LocalTestbedError(
                f"run {state.run_id}: cannot write a state file in {self.directory}: {exc}"
            ) from exc
        try:
            os.link(temp, self.path(state.run_id))
        except FileExistsError:
            raise LocalTestbedError(
                f"run {state.run_id}: state file {self.path(state.run_id)} exists: the run id "
                "is in use (or left over: see cleanup_leftovers())"
            ) from None
        finally:
            temp.unlink(missing_ok=True)

    def save(self, state: RunState) -> None:
        """Replace the run's state file atomically."""
        temp = self._write_temp(state)
        os.replace(temp, self.path(state.run_id))

    def remove(self, run_id: str) -> None:
        """Delete the run's state file (no error if it is gone)."""
        self.path(run_id).unlink(missing_ok=True)

    def load(self, path: Path) -> RunState:
        """Read one state file (OSError, ValueError when unreadable or malformed)."""
        return RunState.from_json(json.loads(path.read_text()))

    def state_files(self) -> list[Path]:
        """All state files, sorted by name."""
        with contextlib.suppress(FileNotFoundError):
            return sorted(self.directory.glob("*.json"))
        return []

    def temp_files(self) -> list[tuple[Path, int]]:
        """Temporary files and the PID of their writer."""
        found = []
        with contextlib.suppress(FileNotFoundError):
            for path in self.directory.glob(f"{TEMP_PREFIX}*"):
                pid = path.name[len(TEMP_PREFIX) :].split("-", 1)[0]
                if pid.isdigit():
                    found.append((path, int(pid)))
        return found
