"""SshTransport against a real OpenSSH server on 127.0.0.1 (see sshd_server.py)."""

from __future__ import annotations

import hashlib
import logging
import os
import random
import socket
import subprocess
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import MakeSsh, ssh_access
from sshd_server import TEST_UID, TEST_USER, SshServer, free_port, pid_alive, start_sshd

from ndrpdr.access.base import CommandError, CommandTimeoutError, NodeAccessError
from ndrpdr.access.ssh import SshTransport
from ndrpdr.testbed.model import SshAccess


def _pgrep(pattern: str) -> list[int]:
    done = subprocess.run(["pgrep", "-f", pattern], capture_output=True, text=True, check=False)
    return [int(pid) for pid in done.stdout.split()]


def _wait_for(predicate: Callable[[], object], timeout_s: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return bool(predicate())


# -- commands ---------------------------------------------------------------


def test_no_connection_before_first_use() -> None:
    # Nothing listens there: any I/O in the constructor would fail.
    transport = SshTransport("DUT1", SshAccess(host="127.0.0.1", port=free_port()))
    assert transport.paramiko_transport is None
    assert transport.address == f"root@127.0.0.1:{transport.access.port}"
    transport.close()  # nothing to close, no error


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
    assert _wait_for(lambda: not _pgrep(f"sleep {marker}"), 3), _pgrep(f"sleep {marker}")


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


# -- files ------------------------------------------------------------------


def test_put_and_get_file(ssh: SshTransport, tmp_path: Path) -> None:
    data = bytes(range(256)) * 12_000  # 3 MB, every byte value
    path = tmp_path / "blob.bin"
    ssh.put_file(data, str(path), mode=0o600)
    assert path.read_bytes() == data
    assert path.stat().st_mode & 0o777 == 0o600
    assert ssh.get_file(str(path)) == data
    ssh.put_file(b"short", str(path))  # overwrite truncates
    assert ssh.get_file(str(path), sudo=True) == b"short"
    assert path.stat().st_mode & 0o777 == 0o644


def test_get_file_reads_proc_files(ssh: SshTransport) -> None:
    assert b"Name:" in ssh.get_file("/proc/self/status")


def test_file_errors_name_node_and_path(ssh: SshTransport, tmp_path: Path) -> None:
    missing = tmp_path / "no" / "such"
    with pytest.raises(NodeAccessError, match=rf"DUT1: cannot read {missing}: .*No such file"):
        ssh.get_file(str(missing))
    with pytest.raises(NodeAccessError, match=rf"DUT1: cannot write {missing}"):
        ssh.put_file(b"x", str(missing))


def test_put_file_with_sudo_as_non_root_cleans_up(sshd: SshServer, make_ssh: MakeSsh) -> None:
    if not sshd.has_test_user:
        pytest.skip("no test user: sshd could not run in a private mount namespace")
    transport = make_ssh(username=TEST_USER)
    before = set(Path("/tmp").glob("ndrpdr-put-*"))
    with pytest.raises(CommandError, match="sudo -n -- install -m 644"):
        transport.put_file(b"data", "/etc/ndrpdr-never-written", sudo=True)
    assert set(Path("/tmp").glob("ndrpdr-put-*")) == before
    assert not Path("/etc/ndrpdr-never-written").exists()


# -- background processes ----------------------------------------------------


def test_start_output_and_stop_with_sigint(ssh: SshTransport) -> None:
    script = (
        'echo "started $GREETING"; trap "echo got INT; exit 7" INT; while :; do sleep 0.05; done'
    )
    process = ssh.start(["sh", "-c", script], env={"GREETING": "hi"})
    assert process.is_running()
    cmdline = Path(f"/proc/{process.pid}/cmdline")  # the real process, not a wrapper
    assert _wait_for(lambda: cmdline.read_bytes() == b"sh\x00-c\x00" + script.encode() + b"\x00")
    assert _wait_for(lambda: "started hi" in process.output())
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
    assert _wait_for(lambda: cmdline.read_bytes() == b"sleep\x0060\x00"), cmdline.read_bytes()
    started = time.monotonic()
    assert process.stop() == -2  # SIGINT with its default action
    assert time.monotonic() - started < 2


def test_stop_escalates_to_sigkill(ssh: SshTransport) -> None:
    process = ssh.start(["sh", "-c", 'trap "" INT TERM; echo ready; while :; do sleep 0.05; done'])
    assert _wait_for(lambda: "ready" in process.output())
    started = time.monotonic()
    assert process.stop(timeout_s=0.6) == -9
    assert time.monotonic() - started < 3
    assert not pid_alive(process.pid)


def test_process_that_exits_by_itself(ssh: SshTransport) -> None:
    process = ssh.start(["sh", "-c", "echo bye; exit 3"])
    assert _wait_for(lambda: not process.is_running())
    assert process.stop() == 3
    assert process.output() == "bye\n"


def test_start_of_a_missing_program(ssh: SshTransport) -> None:
    process = ssh.start(["ndrpdr-no-such-program"])
    assert _wait_for(lambda: not process.is_running())
    assert process.stop() == 127
    assert "not found" in process.output()


def test_close_stops_background_processes(make_ssh: MakeSsh) -> None:
    transport = make_ssh()
    process = transport.start(["sleep", "60"])
    directory = Path(process.directory)
    transport.close()
    assert not pid_alive(process.pid)
    assert not directory.exists()
    transport.close()  # idempotent


# -- connection ---------------------------------------------------------------


def test_commands_reuse_one_connection(ssh: SshTransport, tmp_path: Path) -> None:
    ssh.run(["true"])
    first = ssh.paramiko_transport
    assert first is not None and first.is_active()
    ssh.run(["true"])
    ssh.put_file(b"x", str(tmp_path / "x"))
    ssh.get_file(str(tmp_path / "x"))
    assert ssh.paramiko_transport is first


def test_reconnects_after_the_server_drops_the_connection(
    sshd: SshServer, ssh: SshTransport, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    ssh.run(["true"])
    first = ssh.paramiko_transport
    ssh.get_file("/proc/self/status")  # an SFTP session on the old connection
    ours = "ndrpdr.access.ssh"
    assert not [r for r in caplog.records if r.name == ours and r.levelno >= logging.WARNING]
    sshd.drop_connections()
    assert ssh.run(["echo", "again"]).stdout == "again\n"
    assert ssh.paramiko_transport is not first
    said = [
        r.getMessage() for r in caplog.records if r.name == ours and r.levelno == logging.WARNING
    ]
    assert len(said) == 1, said
    assert said[0].startswith("DUT1: the SSH connection to ") and "was lost; reconnected" in said[0]
    sshd.drop_connections()
    assert ssh.get_file("/proc/self/status")  # SFTP reconnects too


def test_close_then_use_reconnects(ssh: SshTransport) -> None:
    ssh.run(["true"])
    ssh.close()
    assert ssh.paramiko_transport is None
    ssh.close()
    assert ssh.run(["echo", "back"]).stdout == "back\n"


def test_inline_priv_key_of_another_type(sshd: SshServer, make_ssh: MakeSsh) -> None:
    transport = make_ssh(key_file=None, priv_key=sshd.user_key_ecdsa.read_text())
    assert transport.run(["id", "-u"]).stdout.strip() == "0"


def test_inline_priv_key_garbage(make_ssh: MakeSsh) -> None:
    transport = make_ssh(key_file=None, priv_key="not a key")
    with pytest.raises(NodeAccessError, match="DUT1: priv_key is not a private key"):
        transport.run(["true"])


def test_unknown_host_key_is_rejected_with_instructions(
    sshd: SshServer, make_ssh: MakeSsh, tmp_path: Path
) -> None:
    empty = tmp_path / "known_hosts"
    empty.write_text("")
    transport = make_ssh(known_hosts=str(empty))
    with pytest.raises(NodeAccessError) as caught:
        transport.run(["true"])
    message = str(caught.value)
    assert message.startswith(f"DUT1: cannot connect to root@127.0.0.1:{sshd.port} over SSH")
    assert "ssh-ed25519 SHA256:" in message
    assert f"not in known_hosts {empty}" in message
    assert f"ssh-keyscan -p {sshd.port} 127.0.0.1 >> {empty}" in message
    assert "check_host_key: false" in message
    missing = make_ssh(known_hosts=str(tmp_path / "absent"))
    with pytest.raises(NodeAccessError, match=r"absent \(missing\)"):
        missing.run(["true"])


def test_changed_host_key_is_rejected(sshd: SshServer, make_ssh: MakeSsh, tmp_path: Path) -> None:
    wrong = tmp_path / "known_hosts"
    wrong_key = sshd.wrong_key.with_suffix(".pub").read_text().split()
    wrong.write_text(f"[127.0.0.1]:{sshd.port} {wrong_key[0]} {wrong_key[1]}\n")
    transport = make_ssh(known_hosts=str(wrong))
    with pytest.raises(NodeAccessError) as caught:
        transport.run(["true"])
    message = str(caught.value)
    assert "does not match known_hosts" in message
    assert f"ssh-keygen -R '[127.0.0.1]:{sshd.port}' -f {wrong}" in message


def test_host_key_check_opt_out(
    sshd: SshServer, make_ssh: MakeSsh, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    wrong = tmp_path / "known_hosts"
    wrong_key = sshd.wrong_key.with_suffix(".pub").read_text().split()
    wrong.write_text(f"[127.0.0.1]:{sshd.port} {wrong_key[0]} {wrong_key[1]}\n")
    before = wrong.read_text()
    transport = make_ssh(known_hosts=str(wrong), check_host_key=False)
    with caplog.at_level(logging.WARNING, logger="ndrpdr.access.ssh"):
        assert transport.run(["echo", "ok"]).stdout == "ok\n"
    assert "host key of 127.0.0.1:" in caplog.text and "not checked" in caplog.text
    assert wrong.read_text() == before  # nothing written


def test_wrong_key_says_authentication_failed(sshd: SshServer, make_ssh: MakeSsh) -> None:
    transport = make_ssh(key_file=str(sshd.wrong_key))
    with pytest.raises(NodeAccessError) as caught:
        transport.run(["true"])
    message = str(caught.value)
    assert "authentication failed" in message
    assert f"key_file {sshd.wrong_key}" in message


def test_missing_key_file(make_ssh: MakeSsh, tmp_path: Path) -> None:
    transport = make_ssh(key_file=str(tmp_path / "nope"))
    with pytest.raises(NodeAccessError, match=r"DUT1: cannot read key_file .*nope"):
        transport.run(["true"])


def test_encrypted_key_file_without_agent(make_ssh: MakeSsh, tmp_path: Path) -> None:
    key = tmp_path / "encrypted"
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-a", "1", "-N", "secret", "-f", str(key)],
        check=True,
        stdin=subprocess.DEVNULL,
    )
    transport = make_ssh(key_file=str(key), use_agent=False)
    with pytest.raises(NodeAccessError, match=r"key_file .*encrypted is encrypted; load it into"):
        transport.run(["true"])


def test_no_authentication_method(make_ssh: MakeSsh) -> None:
    transport = make_ssh(key_file=None)
    with pytest.raises(NodeAccessError, match="no method to try"):
        transport.run(["true"])


def test_connection_refused_names_host_and_port(make_ssh: MakeSsh) -> None:
    port = free_port()
    transport = make_ssh(port=port)
    with pytest.raises(NodeAccessError) as caught:
        transport.run(["true"])
    message = str(caught.value)
    assert f"127.0.0.1:{port}" in message
    assert "connection refused" in message


def test_silent_server_times_out(make_ssh: MakeSsh) -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        port = listener.getsockname()[1]
        transport = make_ssh(port=port, connect_timeout_s=0.5)
        started = time.monotonic()
        with pytest.raises(
            NodeAccessError, match=rf"127.0.0.1:{port}.*no SSH handshake within 0.5"
        ):
            transport.run(["true"])
        assert time.monotonic() - started < 3


def test_password_env_unset_names_the_variable(
    make_ssh: MakeSsh, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("NDRPDR_TEST_SSH_PASSWORD", raising=False)
    transport = make_ssh(key_file=None, password_env="NDRPDR_TEST_SSH_PASSWORD")
    with pytest.raises(NodeAccessError, match="NDRPDR_TEST_SSH_PASSWORD is not set"):
        transport.run(["true"])


def test_password_authentication(
    sshd: SshServer, make_ssh: MakeSsh, monkeypatch: pytest.MonkeyPatch
) -> None:
    if sshd.test_user_password is None:
        pytest.skip("no test user with a password: sshd could not run in a private mount namespace")
    monkeypatch.setenv("NDRPDR_TEST_SSH_PASSWORD", sshd.test_user_password)
    by_env = make_ssh(username=TEST_USER, key_file=None, password_env="NDRPDR_TEST_SSH_PASSWORD")
    assert by_env.run(["id", "-u"]).stdout.strip() == str(TEST_UID)
    inline = make_ssh(username=TEST_USER, key_file=None, password=sshd.test_user_password)
    assert inline.run(["id", "-un"]).stdout.strip() == TEST_USER
    monkeypatch.setenv("NDRPDR_TEST_SSH_PASSWORD", "wrong")
    wrong = make_ssh(username=TEST_USER, key_file=None, password_env="NDRPDR_TEST_SSH_PASSWORD")
    with pytest.raises(NodeAccessError, match=r"authentication failed.*password from \$NDRPDR"):
        wrong.run(["true"])


def test_no_process_left_behind(sshd: SshServer) -> None:
    """Every test above closed its transports: only the listening sshd remains."""
    assert _wait_for(lambda: not sshd.sessions(), 5), sshd.sessions()
    assert os.path.isdir(sshd.directory)


def test_a_lost_connection_that_cannot_come_back_says_it_was_lost(
    sshd: SshServer, tmp_path: Path
) -> None:
    """A private sshd (the session's one stays up): dropped, then stopped, then used."""
    server = start_sshd(tmp_path)
    transport = SshTransport("DUT1", ssh_access(server, connect_timeout_s=2.0))
    try:
        transport.run(["true"])
        server.drop_connections()
        server.stop()
        with pytest.raises(NodeAccessError) as caught:
            transport.run(["true"])
        text = str(caught.value)
        assert text.startswith("DUT1: the SSH connection to root@127.0.0.1:")
        assert text.count("DUT1") == 1
        assert "was lost, and reconnecting failed" in text
    finally:
        transport.close()
        server.stop()
