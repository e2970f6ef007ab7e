"""check_process on real processes of this machine: running, SIGSTOPped, killed, exited.

The processes are ``sh`` / ``sleep`` started by the test through a real
LocalTransport and ended by PID. The remote path (``ps -o stat=`` through
the node access) runs through ``RemoteLike``, a stand-in that hides the
LocalProcess type of a real process so the code takes the path it takes
for SSH processes (a real sshd would not test anything more here).
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ndrpdr.access.base import BackgroundProcess
from ndrpdr.access.local import LocalProcess, LocalTransport
from ndrpdr.dut.base import DutDriver, DutError
from ndrpdr.dut.health import (
    REMOTE_HEALTH_INTERVAL_S,
    check_process,
    health_interval_s,
    process_state,
)


def _error(step: str, detail: str) -> DutError:
    return DutError(f"DUT1 (test): {step}: {detail}")


class RemoteLike:
    """Stand-in: a real local process seen only through the BackgroundProcess protocol."""

    def __init__(self, process: LocalProcess) -> None:
        self._process = process

    @property
    def pid(self) -> int:
        return self._process.pid

    def is_running(self) -> bool:
        return self._process.is_running()

    def stop(self, timeout_s: float = 10.0) -> int | None:
        return self._process.stop(timeout_s)

    def output(self) -> str:
        return self._process.output()


@pytest.fixture
def access() -> Iterator[LocalTransport]:
    transport = LocalTransport("DUT1")
    yield transport
    transport.close()


def _start(access: LocalTransport, script: str) -> LocalProcess:
    process = access.start(["sh", "-c", script])
    deadline = time.monotonic() + 5
    while "ready" not in process.output() and process.is_running():
        assert time.monotonic() < deadline, "the test process did not start"
        time.sleep(0.01)
    return process


def _wait_state(process: BackgroundProcess, access: LocalTransport, state: str) -> None:
    deadline = time.monotonic() + 5
    while process_state(process, access) != state:
        assert time.monotonic() < deadline, f"pid {process.pid} never reached state {state}"
        time.sleep(0.01)


@pytest.mark.parametrize("remote", [False, True], ids=["local", "ps"])
def test_running_then_stopped_then_continued(access: LocalTransport, remote: bool) -> None:
    local = _start(access, "echo ready; echo forwarding; exec sleep 30")
    process: BackgroundProcess = RemoteLike(local) if remote else local
    try:
        check_process(_error, "sleepy-dut", process, access)  # running: no error
        assert process_state(process, access) in ("S", "R")
        os.kill(process.pid, signal.SIGSTOP)
        _wait_state(process, access, "T")
        with pytest.raises(DutError) as caught:
            check_process(_error, "sleepy-dut", process, access)
        text = str(caught.value)
        assert text.startswith(f"DUT1 (test): health check: sleepy-dut (pid {process.pid}) ")
        assert "is stopped (SIGSTOP), state T" in text
        assert "log tail:\nready\nforwarding" in text
        os.kill(process.pid, signal.SIGCONT)
        _wait_state(process, access, "S")
        check_process(_error, "sleepy-dut", process, access)
    finally:
        local.stop(3.0)


def test_killed_process_names_the_signal_and_keeps_the_log(access: LocalTransport) -> None:
    process = _start(access, "echo ready; echo 'port 0 up'; exec sleep 30")
    os.kill(process.pid, signal.SIGKILL)
    deadline = time.monotonic() + 5
    while process.is_running():
        assert time.monotonic() < deadline
        time.sleep(0.01)
    with pytest.raises(DutError) as caught:
        check_process(_error, "sleepy-dut", process, access)
    text = str(caught.value)
    assert f"sleepy-dut (pid {process.pid}) has exited, killed by SIGKILL (exit status -9)" in text
    assert text.endswith("log tail:\nready\nport 0 up")


def test_exit_status_and_a_stopped_process_sees_sigint(access: LocalTransport) -> None:
    process = _start(access, "echo ready; sleep 0.2; echo 'EAL: bad option' >&2; exit 3")
    deadline = time.monotonic() + 5
    while process.is_running():
        assert time.monotonic() < deadline
        time.sleep(0.01)
    with pytest.raises(DutError, match=r"has exited, exit status 3; log tail:\nready\nEAL: bad"):
        check_process(_error, "sleepy-dut", process, access, log=process.output)
    # a SIGSTOPped process ends on the first signal of stop(), not after escalating to SIGKILL
    stopped = _start(access, "trap 'exit 0' INT; echo ready; while :; do sleep 0.05; done")
    os.kill(stopped.pid, signal.SIGSTOP)
    _wait_state(stopped, access, "T")
    started = time.monotonic()
    assert stopped.stop(9.0) == 0
    assert time.monotonic() - started < 2.0


class UnreapedChild:
    """A real process's child that exited and that its parent never reaps (a zombie), seen as
    a remote DUT's process is: ``kill -0`` still succeeds on it, so it reads as running."""

    def __init__(self, parent: LocalProcess, pid: int) -> None:
        self.parent, self._pid = parent, pid

    @property
    def pid(self) -> int:
        return self._pid

    def is_running(self) -> bool:
        try:
            os.kill(self._pid, 0)
        except ProcessLookupError:
            return False
        return True

    def stop(self, timeout_s: float = 10.0) -> int | None:
        return -9  # what the node's wrapper would have recorded

    def output(self) -> str:
        return "worker: bye\n"


def test_a_zombie_has_exited_though_kill_0_still_finds_it(access: LocalTransport) -> None:
    """testpmd SIGKILLed over SSH: until its wrapper reaps it, it is a zombie that answers
    kill -0; the check must say it exited, not that it forwards."""
    parent = _start(access, "sleep 30 & echo ready; exec sleep 60")
    try:
        deadline = time.monotonic() + 5
        while not (children := _children(parent.pid)):
            assert time.monotonic() < deadline
            time.sleep(0.01)
        (child,) = children
        os.kill(child, signal.SIGKILL)
        zombie = UnreapedChild(parent, child)
        while process_state(zombie, access) != "Z":  # type: ignore[arg-type]
            assert time.monotonic() < deadline
            time.sleep(0.01)
        assert zombie.is_running()  # kill -0 finds it
        said = rf"worker \(pid {child}\) has exited, killed by SIGKILL"
        with pytest.raises(DutError, match=said):
            check_process(_error, "worker", zombie, access)
    finally:
        parent.stop(5.0)


def _children(parent: int) -> list[int]:
    """PIDs whose parent is ``parent``."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text() if entry.name.isdigit() else ""
        except OSError:
            continue
        if stat and int(stat.rsplit(")", 1)[1].split()[1]) == parent:
            found.append(int(entry.name))
    return found


class _Remote:
    """Stand-in for an SSH transport: only its type matters to health_interval_s."""


def test_interval_by_access_and_driver(access: LocalTransport) -> None:
    class Quick(DutDriver):  # the protocol's default: no interval of its own
        pass

    class Slow(DutDriver):
        health_interval_s = 1.0

    assert health_interval_s(Quick(), access) == 0.0
    assert health_interval_s(Slow(), access) == 1.0
    remote = _Remote()
    assert health_interval_s(Quick(), remote) == REMOTE_HEALTH_INTERVAL_S  # type: ignore[arg-type]
    assert health_interval_s(Slow(), remote) == REMOTE_HEALTH_INTERVAL_S  # type: ignore[arg-type]
