"""Commands over SSH: output, exit code, timeout, quoting, stdin, env, sudo (real sshd)."""

from __future__ import annotations

import hashlib
import random
import time
import uuid
from pathlib import Path

import pytest
from access_helpers import pgrep, wait_for
from conftest import MakeSsh
from sshd_server import TEST_UID, TEST_USER, SshServer

from ndrpdr.access.base import CommandError, CommandTimeoutError
from ndrpdr.access.ssh import SshTransport

pytestmark = pytest.mark.real  # a real system part: tests/testkinds.py


def test_run_captures_output_and_exit_code(ssh: SshTransport) -> None:
    result = ssh.run(["sh", "-c", "echo out; echo err >&2"])
    assert (result.exit_code, result.stdout, result.stderr) == (0, "out\n", "err\n")
    assert result.node == "DUT1"
    assert result.argv == ("sh", "-c", "echo out; echo err >&2")
    failed = ssh.run(["sh", "-c", "exit 3"], check=False)
    assert failed.exit_code == 3


def test_command_error_names_node_command_code_and_output(ssh: SshTransport) -> None:
    with pytest.raises(CommandError) as caught:
        ssh.run(["sh", "-c", "echo to-stdout; echo to-stderr >&2; exit 5"])
    message = str(caught.value)
    assert message.startswith("DUT1: command failed with exit code 5")
    assert "sh -c 'echo to-stdout; echo to-stderr >&2; exit 5'" in message
    assert "stdout:\nto-stdout" in message
    assert "stderr:\nto-stderr" in message
    assert caught.value.result.exit_code == 5


def test_timeout_kills_the_remote_process_group(ssh: SshTransport) -> None:
    marker = f"{random.randint(100, 999)}.{random.randint(10**6, 10**7)}"
    started = time.monotonic()
    with pytest.raises(CommandTimeoutError) as caught:
        # A background child and a foreground one: both must go.
        script = 'echo begun; sleep "$1" & sleep "$1"; wait'
        ssh.run(["sh", "-c", script, "sh", marker], timeout_s=1)
    assert 0.9 < time.monotonic() - started < 5
    assert caught.value.timeout_s == 1
    assert caught.value.result.stdout == "begun\n"
    assert "timed out after 1 s" in str(caught.value)
    assert wait_for(lambda: not pgrep(f"sleep {marker}"), 3), pgrep(f"sleep {marker}")


def test_large_stdout_and_stderr_together(ssh: SshTransport) -> None:
    size = 5_000_000
    script = (
        f'head -c {size} /dev/zero | tr "\\0" o & head -c {size} /dev/zero | tr "\\0" e >&2; wait'
    )
    result = ssh.run(["sh", "-c", script], timeout_s=30)
    assert len(result.stdout) == size and set(result.stdout) == {"o"}
    assert len(result.stderr) == size and set(result.stderr) == {"e"}


def test_arguments_reach_the_program_literally(ssh: SshTransport) -> None:
    pwned = f"/tmp/ndrpdr-pwned-{uuid.uuid4().hex}"
    args = [
        f"x; touch {pwned}",
        "$(id)",
        "`id`",
        "a  b",
        "'single'",
        '"double"',
        "*",
        "back\\slash",
        "new\nline",
        "",
        "-n",
    ]
    result = ssh.run(["printf", "[%s]", *args])
    assert result.stdout == "".join(f"[{arg}]" for arg in args)
    assert not Path(pwned).exists()


def test_stdin_text_bytes_and_none(ssh: SshTransport) -> None:
    assert ssh.run(["cat"], stdin="hello\n").stdout == "hello\n"
    blob = bytes(range(256)) * 4096  # 1 MiB, every byte value
    assert ssh.run(["sh", "-c", "wc -c"], stdin=blob).stdout.strip() == str(len(blob))
    assert ssh.run(["md5sum"], stdin=blob).stdout.split()[0] == _md5(blob)
    started = time.monotonic()
    assert ssh.run(["cat"], timeout_s=5).stdout == ""  # no stdin: EOF at once
    assert time.monotonic() - started < 2


def _md5(data: bytes) -> str:
    return hashlib.md5(data).hexdigest()


def test_env_is_passed_literally(ssh: SshTransport) -> None:
    value = "a b; $(id) 'q'"
    result = ssh.run(["sh", "-c", 'printf "%s|%s" "$FOO" "$BAR"'], env={"FOO": value, "BAR": "2"})
    assert result.stdout == f"{value}|2"
    assert result.argv[:3] == ("env", f"FOO={value}", "BAR=2")
    with pytest.raises(ValueError, match="invalid environment variable name"):
        ssh.run(["true"], env={"A=B": "x"})


def test_empty_command_is_refused(ssh: SshTransport) -> None:
    with pytest.raises(ValueError, match="empty command"):
        ssh.run([])


def test_sudo_is_a_no_op_for_root(make_ssh: MakeSsh) -> None:
    transport = make_ssh(sudo=True)  # access.sudo: every command as root
    result = transport.run(["id", "-u"], sudo=True)
    assert result.argv == ("id", "-u")
    assert result.stdout.strip() == "0"


def test_sudo_prefix_for_a_non_root_user(sshd: SshServer, make_ssh: MakeSsh) -> None:
    if not sshd.has_test_user:
        pytest.skip("no test user: sshd could not run in a private mount namespace")
    transport = make_ssh(username=TEST_USER)
    assert transport.run(["id", "-u"]).stdout == f"{TEST_UID}\n"  # no .bashrc noise
    result = transport.run(["id", "-u"], sudo=True, check=False)
    assert result.argv == ("sudo", "-n", "--", "id", "-u")
    assert result.exit_code != 0  # sudo is missing or refuses: no password, not in sudoers
