"""LocalTransport: subprocesses on this machine."""

from __future__ import annotations

import os
import random
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from access_helpers import pgrep, wait_for

from ndrpdr.access.base import (
    TAIL_CHARS,
    CommandError,
    CommandResult,
    CommandTimeoutError,
    NodeAccessError,
    tail,
)
from ndrpdr.access.local import LocalTransport


@pytest.fixture
def local() -> Iterator[LocalTransport]:
    transport = LocalTransport("TG")
    yield transport
    transport.close()


def test_run_captures_output_and_exit_code(local: LocalTransport) -> None:
    result = local.run(["sh", "-c", "echo out; echo err >&2"])
    assert (result.node, result.exit_code, result.stdout, result.stderr) == (
        "TG",
        0,
        "out\n",
        "err\n",
    )
    assert result.argv == ("sh", "-c", "echo out; echo err >&2")
    assert result.command == "sh -c 'echo out; echo err >&2'"
    assert result.duration_s >= 0
    assert local.run(["sh", "-c", "exit 4"], check=False).exit_code == 4


def test_command_error_message_has_node_command_code_and_output_tails(
    local: LocalTransport,
) -> None:
    script = "printf 'HEAD%.0s' $(seq 1000); echo STDOUT-END; echo STDERR-END >&2; exit 9"
    with pytest.raises(CommandError) as caught:
        local.run(["sh", "-c", script])
    message = str(caught.value)
    first_line = message.splitlines()[0]
    assert first_line.startswith("TG: command failed with exit code 9: sh -c ")
    assert "STDOUT-END" in message and "STDERR-END" in message
    # stdout is 4000+ characters: only its tail is shown, marked with "...".
    stdout_part = message.split("stdout:\n", 1)[1].split("\nstderr:", 1)[0]
    assert stdout_part.startswith("...")
    assert len(stdout_part) == TAIL_CHARS + 3
    assert caught.value.result.exit_code == 9


def test_tail_helper() -> None:
    assert tail("abc", 5) == "abc"
    assert tail("abcdef", 3) == "...def"


def test_timeout_error_message() -> None:
    result = CommandResult("DUT1", ("sleep", "9"), -9, "", "", 1.0)
    error = CommandTimeoutError(result, 1.5)
    assert str(error) == "DUT1: command failed with exit code -9 (timed out after 1.5 s): sleep 9"
    assert error.timeout_s == 1.5


def test_timeout_kills_the_process_group(local: LocalTransport) -> None:
    marker = f"{random.randint(100, 999)}.{random.randint(10**6, 10**7)}"
    started = time.monotonic()
    with pytest.raises(CommandTimeoutError) as caught:
        local.run(
            ["sh", "-c", 'echo begun; sleep "$1" & sleep "$1"; wait', "sh", marker], timeout_s=0.5
        )
    assert time.monotonic() - started < 3
    assert caught.value.result.stdout == "begun\n"
    assert caught.value.result.exit_code == -9
    assert wait_for(lambda: not pgrep(f"sleep {marker}"), 3), pgrep(f"sleep {marker}")


def test_arguments_are_never_shell_syntax(local: LocalTransport, tmp_path: Path) -> None:
    pwned = tmp_path / "pwned"
    args = [f"x; touch {pwned}", "$(id)", "`id`", "a  b", "'q'", "*", "new\nline", ""]
    assert local.run(["printf", "[%s]", *args]).stdout == "".join(f"[{a}]" for a in args)
    assert not pwned.exists()


def test_stdin_and_env(local: LocalTransport) -> None:
    assert local.run(["cat"], stdin="text\n").stdout == "text\n"
    assert local.run(["wc", "-c"], stdin=b"\x00\xff" * 1000).stdout.strip() == "2000"
    assert local.run(["cat"], timeout_s=5).stdout == ""  # stdin is /dev/null
    result = local.run(["sh", "-c", 'printf "%s|%s" "$FOO" "${PATH:+has-path}"'], env={"FOO": "$x"})
    assert result.stdout == "$x|has-path"  # added to, not replacing, the environment


def test_sudo_is_a_no_op_for_root() -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root")
    transport = LocalTransport("TG", sudo=True)
    result = transport.run(["id", "-u"], sudo=True)
    assert result.argv == ("id", "-u")
    assert result.stdout.strip() == "0"


def test_empty_and_missing_commands(local: LocalTransport) -> None:
    with pytest.raises(ValueError, match="TG: empty command"):
        local.run([])
    with pytest.raises(NodeAccessError, match="TG: cannot run 'ndrpdr-no-such-program'"):
        local.run(["ndrpdr-no-such-program"])
    with pytest.raises(NodeAccessError, match="TG: cannot start 'ndrpdr-no-such-program'"):
        local.start(["ndrpdr-no-such-program"])


def test_put_and_get_file(local: LocalTransport, tmp_path: Path) -> None:
    path = tmp_path / "f.bin"
    data = bytes(range(256)) * 10
    local.put_file(data, str(path), mode=0o600)
    assert path.read_bytes() == data
    assert path.stat().st_mode & 0o777 == 0o600
    assert local.get_file(str(path)) == data
    missing = tmp_path / "no" / "such"
    with pytest.raises(NodeAccessError, match=rf"TG: cannot read {missing}"):
        local.get_file(str(missing))
    with pytest.raises(NodeAccessError, match=rf"TG: cannot write {missing}"):
        local.put_file(b"x", str(missing))


def test_start_output_and_stop_with_sigint(local: LocalTransport) -> None:
    script = (
        'echo "started $GREETING"; trap "echo got INT; exit 7" INT; while :; do sleep 0.05; done'
    )
    process = local.start(["sh", "-c", script], env={"GREETING": "hi"})
    assert process.is_running()
    cmdline = Path(f"/proc/{process.pid}/cmdline")
    assert wait_for(lambda: cmdline.read_bytes().startswith(b"sh\x00-c\x00echo"))
    assert wait_for(lambda: "started hi" in process.output())
    assert process.stop() == 7
    assert not process.is_running()
    assert process.exit_code == 7
    assert process.output() == "started hi\ngot INT\n"  # kept after the log is removed


def test_stop_default_sigint_and_escalation(local: LocalTransport) -> None:
    sleeper = local.start(["sleep", "60"])
    assert sleeper.stop() == -2
    stubborn = local.start(
        ["sh", "-c", 'trap "" INT TERM; echo ready; while :; do sleep 0.05; done']
    )
    assert wait_for(lambda: "ready" in stubborn.output())
    started = time.monotonic()
    assert stubborn.stop(timeout_s=0.6) == -9
    assert time.monotonic() - started < 3


def test_close_stops_background_processes() -> None:
    transport = LocalTransport("TG")
    marker = f"ndrpdr-{uuid.uuid4().hex}"
    process = transport.start(["sh", "-c", "sleep 60", marker])
    assert process.is_running()
    transport.close()
    assert not process.is_running()
    assert not pgrep(marker)
    transport.close()  # idempotent
