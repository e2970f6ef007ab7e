"""Local transport: commands run as subprocesses on this machine.

A command prefix turns the same transport into the netns transport
(``ip netns exec NS``), which keeps one implementation of timeouts, output
capture and background processes for both. Every process started here
from the main thread gets a parent-death signal (SIGKILL when
this process ends, see ``ndrpdr.access.pdeathsig``), so a SIGKILLed runner
does not leave them running.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ndrpdr.access.base import (
    CommandError,
    CommandResult,
    CommandTimeoutError,
    NodeAccessError,
    RunSettings,
    StartSettings,
    decode_output,
)
from ndrpdr.access.pdeathsig import die_with_parent

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ndrpdr.access.base import RunOptions, StartOptions


#: Seconds to wait after each signal before escalating (SIGINT -> SIGTERM -> SIGKILL).
_SIGNAL_STEPS = (signal.SIGINT, signal.SIGTERM, signal.SIGKILL)


def _needs_sudo(sudo: bool) -> bool:
    return sudo and os.geteuid() != 0


class LocalProcess:
    """A background process on this machine, its output going to a temporary log."""

    def __init__(self, node: str, argv: Sequence[str], popen: subprocess.Popen[bytes], log: Path):
        self._node = node
        self.argv = tuple(argv)
        self._popen = popen
        self._log = log
        self._final_output: str | None = None

    @property
    def pid(self) -> int:
        """Process id (``ip netns exec`` execs in place, so this is the real process)."""
        return self._popen.pid

    def is_running(self) -> bool:
        """True while the process has not exited.

        A killed multi-threaded process (VPP with workers) is a zombie leader
        until its last thread is gone, and waitpid does not report it yet: it
        has exited all the same.
        """
        return self._popen.poll() is None and not _zombie(self._popen.pid)

    @property
    def exit_code(self) -> int | None:
        """Exit code once it has exited (negative: killed by that signal), else None."""
        return self._popen.poll()

    def stop(self, timeout_s: float = 10.0) -> int | None:
        """SIGINT, then SIGTERM, then SIGKILL, each given ``timeout_s`` / 3 [s]; its exit code."""
        step_s = max(timeout_s / len(_SIGNAL_STEPS), 0.1)
        for sig in _SIGNAL_STEPS:
            if self._popen.poll() is not None:
                break
            try:
                os.kill(self._popen.pid, sig)
                os.kill(self._popen.pid, signal.SIGCONT)  # a stopped process acts on it now
            except ProcessLookupError:
                break
            try:
                self._popen.wait(step_s)
            except subprocess.TimeoutExpired:
                continue
        code = self._popen.wait()
        self._collect()
        return code

    @property
    def log_path(self) -> Path:
        """The temporary file its output goes to (removed once it is stopped)."""
        return self._log

    def output(self) -> str:
        """What the process wrote to stdout and stderr so far."""
        if self._final_output is not None:
            return self._final_output
        try:
            return self._log.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def _collect(self) -> None:
        if self._final_output is None:
            self._final_output = self.output()
            self._log.unlink(missing_ok=True)


class LocalTransport:
    """Run commands on this machine, optionally behind a fixed prefix (see NetnsTransport)."""

    def __init__(self, node: str, *, sudo: bool = False, prefix: Sequence[str] = ()) -> None:
        """``node``: key for messages; ``sudo``: run all as root; ``prefix``: argv head."""
        self._node = node
        self._sudo_all = sudo
        self._prefix = tuple(prefix)
        self._processes: list[LocalProcess] = []

    @property
    def node(self) -> str:
        """The node key."""
        return self._node

    def _argv(self, argv: Sequence[str], sudo: bool) -> list[str]:
        if not argv:
            raise ValueError(f"{self._node}: empty command")
        head = ["sudo", "-n", "--"] if _needs_sudo(sudo or self._sudo_all) else []
        return [*head, *self._prefix, *argv]

    def run(self, argv: Sequence[str], **options: Unpack[RunOptions]) -> CommandResult:
        """Run ``argv`` to completion; on timeout the whole process group is killed."""
        how = RunSettings(**options)
        full = self._argv(argv, how.sudo)
        data, timeout_s = how.input, how.timeout_s
        started = time.monotonic()
        try:
            popen = subprocess.Popen(
                full,
                stdin=subprocess.PIPE if data is not None else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=_environment(how.env),
                start_new_session=True,
                preexec_fn=die_with_parent(),  # noqa: PLW1509 - dies with this process (pdeathsig)
            )
        except OSError as exc:
            raise NodeAccessError(f"{self._node}: cannot run {full[0]!r}: {exc.strerror}") from exc
        try:
            out, err = popen.communicate(data, timeout=timeout_s)
        except subprocess.TimeoutExpired:
            _kill_group(popen.pid)
            out, err = popen.communicate()
            result = CommandResult(
                self._node,
                tuple(full),
                -9,
                decode_output(out),
                decode_output(err),
                time.monotonic() - started,
            )
            raise CommandTimeoutError(result, timeout_s) from None
        result = CommandResult(
            self._node,
            tuple(full),
            popen.returncode,
            decode_output(out),
            decode_output(err),
            time.monotonic() - started,
        )
        if how.check and result.exit_code != 0:
            raise CommandError(result)
        return result

    def start(self, argv: Sequence[str], **options: Unpack[StartOptions]) -> LocalProcess:
        """Start ``argv`` in its own session, stdout and stderr to a temporary log file."""
        how = StartSettings(**options)
        full = self._argv(argv, how.sudo)
        fd, name = tempfile.mkstemp(prefix="ndrpdr-", suffix=".log")
        try:
            popen = subprocess.Popen(
                full,
                stdin=subprocess.DEVNULL,
                stdout=fd,
                stderr=subprocess.STDOUT,
                env=_environment(how.env),
                start_new_session=True,
                preexec_fn=die_with_parent(),  # noqa: PLW1509 - dies with this process (pdeathsig)
            )
        except OSError as exc:
            Path(name).unlink(missing_ok=True)
            message = f"{self._node}: cannot start {full[0]!r}: {exc.strerror}"
            raise NodeAccessError(message) from exc
        finally:
            os.close(fd)
        process = LocalProcess(self._node, full, popen, Path(name))
        self._processes.append(process)
        return process

    def put_file(self, data: bytes, path: str, *, mode: int = 0o644, sudo: bool = False) -> None:
        """Write ``data`` to ``path`` (through the prefix, so /sys is the node's own)."""
        if not self._prefix and not _needs_sudo(sudo or self._sudo_all):
            target = Path(path)
            try:
                target.write_bytes(data)
                target.chmod(mode)
            except OSError as exc:
                raise NodeAccessError(f"{self._node}: cannot write {path}: {exc}") from exc
            return
        self.run(["dd", f"of={path}", "status=none"], stdin=data, sudo=sudo)
        if not path.startswith(("/sys/", "/proc/")):
            self.run(["chmod", f"{mode:o}", "--", path], sudo=sudo)

    def get_file(self, path: str, *, sudo: bool = False) -> bytes:
        """Read ``path`` (through the prefix)."""
        if not self._prefix and not _needs_sudo(sudo or self._sudo_all):
            try:
                return Path(path).read_bytes()
            except OSError as exc:
                raise NodeAccessError(f"{self._node}: cannot read {path}: {exc}") from exc
        full = self._argv(["cat", "--", path], sudo)
        try:
            done = subprocess.run(
                full,
                capture_output=True,
                timeout=60.0,
                check=False,
                preexec_fn=die_with_parent(),  # see pdeathsig
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise NodeAccessError(f"{self._node}: cannot read {path}: {exc}") from exc
        if done.returncode != 0:
            result = CommandResult(
                self._node, tuple(full), done.returncode, "", decode_output(done.stderr), 0.0
            )
            raise CommandError(result, f"reading {path}")
        return done.stdout

    def close(self) -> None:
        """Stop background processes this transport started; remove their log files."""
        for process in self._processes:
            process.stop()  # also collects the log of a process that ended by itself
        self._processes.clear()


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGKILL)


def _environment(env: Mapping[str, str] | None) -> dict[str, str] | None:
    """The process environment: this one with ``env`` added (None: inherit it as is)."""
    return None if env is None else {**os.environ, **env}


def _zombie(pid: int) -> bool:
    """True when process ``pid`` is a zombie (``/proc/<pid>/stat`` state Z)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text(errors="replace")
    except OSError:
        return False
    after = text.rpartition(")")[2].split()
    return bool(after) and after[0] == "Z"
