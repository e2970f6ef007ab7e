"""The one interface every node transport implements, and its results and errors.

Commands are argument vectors, never shell strings: a value from a
topology file (an interface name, a path) can never become shell syntax.
Transports that need a shell (SSH) quote every argument themselves.
"""

from __future__ import annotations

import dataclasses
import shlex
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Protocol, TypedDict

from ndrpdr.errors import NdrPdrError

if TYPE_CHECKING:
    from typing_extensions import Unpack

#: How much of stdout / stderr a failure message shows [characters, from the end].
TAIL_CHARS = 2000


def decode_output(data: bytes | None) -> str:
    """Captured command output as text (bytes that are not UTF-8 are replaced)."""
    return (data or b"").decode("utf-8", errors="replace")


def tail(text: str, limit: int = TAIL_CHARS) -> str:
    """The last ``limit`` characters of ``text``, marked when cut."""
    return text if len(text) <= limit else "..." + text[-limit:]


@dataclasses.dataclass(frozen=True)
class CommandResult:
    """What one finished command did (exit code, captured output, wall time [s])."""

    node: str
    argv: tuple[str, ...]
    exit_code: int
    stdout: str
    stderr: str
    duration_s: float

    @property
    def command(self) -> str:
        """The command as a shell would read it (quoted)."""
        return shlex.join(self.argv)


class RunOptions(TypedDict, total=False):
    """How ``NodeAccess.run`` runs a command; any may be left out (`RunSettings` has the defaults).

    ``timeout_s``: stop it after this long [s]; ``sudo``: as root;
    ``check``: raise CommandError for an exit code other than 0;
    ``stdin``: its standard input (text is sent as UTF-8); ``env``:
    environment variables added to the node's.
    """

    timeout_s: float
    sudo: bool
    check: bool
    stdin: str | bytes | None
    env: Mapping[str, str] | None


class StartOptions(TypedDict, total=False):
    """How ``NodeAccess.start`` starts a process (`StartSettings` has the defaults): ``sudo``
    as root, with ``env`` added to the node's environment."""

    sudo: bool
    env: Mapping[str, str] | None


@dataclasses.dataclass(frozen=True)
class RunSettings:
    """`RunOptions` with the defaults filled in: ``RunSettings(**options)``."""

    timeout_s: float = 60.0
    sudo: bool = False
    check: bool = True
    stdin: str | bytes | None = None
    env: Mapping[str, str] | None = None

    @property
    def input(self) -> bytes | None:
        """``stdin`` as bytes (None: no standard input)."""
        return self.stdin.encode() if isinstance(self.stdin, str) else self.stdin


@dataclasses.dataclass(frozen=True)
class StartSettings:
    """`StartOptions` with the defaults filled in: ``StartSettings(**options)``."""

    sudo: bool = False
    env: Mapping[str, str] | None = None


class NodeAccessError(NdrPdrError):
    """A node could not be reached or a transfer failed (names the node)."""


class CommandError(NdrPdrError):
    """A command failed: the message names the node, the command, the exit code and output."""

    def __init__(self, result: CommandResult, what: str = "") -> None:
        self.result = result
        lines = [
            f"{result.node}: command failed with exit code {result.exit_code}"
            + (f" ({what})" if what else "")
            + f": {result.command}"
        ]
        if result.stdout.strip():
            lines.append(f"stdout:\n{tail(result.stdout.rstrip())}")
        if result.stderr.strip():
            lines.append(f"stderr:\n{tail(result.stderr.rstrip())}")
        super().__init__("\n".join(lines))


class CommandTimeoutError(CommandError):
    """A command ran longer than its timeout and was stopped."""

    def __init__(self, result: CommandResult, timeout_s: float) -> None:
        self.timeout_s = timeout_s
        super().__init__(result, f"timed out after {timeout_s:g} s")


class BackgroundProcess(Protocol):
    """A long-running process started on a node (a DUT daemon, a sender)."""

    @property
    def pid(self) -> int:
        """Its process id on the node (the real process, not a wrapper)."""
        ...

    def is_running(self) -> bool:
        """True while the process has not exited."""
        ...

    def stop(self, timeout_s: float = 10.0) -> int | None:
        """Send SIGINT, then SIGTERM, then SIGKILL until it exits; return its exit code if known."""
        ...

    def output(self) -> str:
        """What it wrote to stdout and stderr so far (its log)."""
        ...


class NodeAccess(Protocol):
    """Run commands and copy files on one node.

    ``run`` raises CommandError when ``check`` and the exit code is not 0,
    and CommandTimeoutError after ``timeout_s`` (the command is stopped).
    ``sudo`` runs the command as root (a no-op when already root).
    """

    @property
    def node(self) -> str:
        """The node key, used in messages ("DUT1")."""
        ...

    def run(self, argv: Sequence[str], **options: Unpack[RunOptions]) -> CommandResult:
        """Run ``argv`` to completion and capture its output."""
        ...

    def start(self, argv: Sequence[str], **options: Unpack[StartOptions]) -> BackgroundProcess:
        """Start ``argv`` in the background, output captured to a log."""
        ...

    def put_file(self, data: bytes, path: str, *, mode: int = 0o644, sudo: bool = False) -> None:
        """Write ``data`` to ``path`` on the node."""
        ...

    def get_file(self, path: str, *, sudo: bool = False) -> bytes:
        """Read ``path`` from the node."""
        ...

    def close(self) -> None:
        """Release connections (idempotent)."""
        ...
