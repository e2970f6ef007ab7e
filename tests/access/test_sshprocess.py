"""Background processes over SSH: start, output, stop by signal, exit status (real sshd)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from access_helpers import wait_for
from sshd_server import pid_alive

from ndrpdr.access.ssh import SshTransport

pytestmark = pytest.mark.real  # a real system part: tests/testkinds.py


def test_start_output_and_stop_with_sigint(ssh: SshTransport) -> None:
    script = (
        'echo "started $GREETING"; trap "echo got INT; exit 7" INT; while :; do sleep 0.05; done'
    )
    process = ssh.start(["sh", "-c", script], env={"GREETING": "hi"})
    assert process.is_running()
    cmdline = Path(f"/proc/{process.pid}/cmdline")  # the real process, not a wrapper
    assert wait_for(lambda: cmdline.read_bytes() == b"sh\x00-c\x00" + script.encode() + b"\x00")
    assert wait_for(lambda: "started hi" in process.output())
    directory = Path(process.directory)
    assert (directory / "log").exists()
    assert process.stop() == 7
    assert not process.is_running()
    assert not pid_alive(process.pid)
    assert process.output() == "started hi\ngot INT\n"  # kept in memory
    assert not directory.exists()  # remote log removed
    assert process.stop() == 7  # stopping again is harmless


def test_sigint_is_not_ignored_by_started_processes(ssh: SshTransport) -> None:
    process = ssh.start(["sleep", "60"])
    cmdline = Path(f"/proc/{process.pid}/cmdline")  # the PID is written just before exec
    assert wait_for(lambda: cmdline.read_bytes() == b"sleep\x0060\x00"), cmdline.read_bytes()
    started = time.monotonic()
    assert process.stop() == -2  # SIGINT with its default action
    assert time.monotonic() - started < 2


def test_stop_escalates_to_sigkill(ssh: SshTransport) -> None:
    process = ssh.start(["sh", "-c", 'trap "" INT TERM; echo ready; while :; do sleep 0.05; done'])
    assert wait_for(lambda: "ready" in process.output())
    started = time.monotonic()
    assert process.stop(timeout_s=0.6) == -9
    assert time.monotonic() - started < 3
    assert not pid_alive(process.pid)


def test_process_that_exits_by_itself(ssh: SshTransport) -> None:
    process = ssh.start(["sh", "-c", "echo bye; exit 3"])
    assert wait_for(lambda: not process.is_running())
    assert process.stop() == 3
    assert process.output() == "bye\n"


def test_start_of_a_missing_program(ssh: SshTransport) -> None:
    process = ssh.start(["ndrpdr-no-such-program"])
    assert wait_for(lambda: not process.is_running())
    assert process.stop() == 127
    assert "not found" in process.output()
