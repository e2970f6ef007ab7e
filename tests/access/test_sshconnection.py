"""The SSH connection: reuse, close, reconnect after a drop, refused and silent servers.

Against a real OpenSSH server on 127.0.0.1 (see sshd_server.py).
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import socket
import time
from pathlib import Path

import pytest
from conftest import MakeSsh, ssh_access
from sshd_server import SshServer, free_port, start_sshd

from ndrpdr.access.base import NodeAccessError
from ndrpdr.access.ssh import SshTransport

pytestmark = pytest.mark.real  # a real system part: tests/testkinds.py


def test_commands_reuse_one_connection(ssh: SshTransport, tmp_path: Path) -> None:
    ssh.run(["true"])
    first = ssh.paramiko_transport
    assert first is not None and first.is_active()
    ssh.run(["true"])
    ssh.put_file(b"x", str(tmp_path / "x"))
    ssh.get_file(str(tmp_path / "x"))
    assert ssh.paramiko_transport is first


def test_close_then_use_reconnects(ssh: SshTransport) -> None:
    ssh.run(["true"])
    ssh.close()
    assert ssh.paramiko_transport is None
    ssh.close()
    assert ssh.run(["echo", "back"]).stdout == "back\n"


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


def test_a_write_that_fails_before_paramiko_sees_the_server_go_reconnects(
    tmp_path: Path,
) -> None:
    """The race CI met, made certain: our side of the socket can no longer send while
    paramiko's reader thread still holds the transport active (the server's session
    process is frozen, so it never closes its side). A private sshd, so only its own
    session processes are frozen."""
    server = start_sshd(tmp_path)
    transport = SshTransport("DUT1", ssh_access(server, connect_timeout_s=5.0))
    frozen: list[int] = []
    try:
        transport.run(["true"])
        old = transport.paramiko_transport
        assert old is not None
        frozen = server.sessions()
        for pid in frozen:
            os.kill(pid, signal.SIGSTOP)
        old.sock.shutdown(socket.SHUT_WR)
        assert old.is_active()
        assert transport.get_file("/proc/self/status")
        assert transport.paramiko_transport is not old
    finally:
        for pid in frozen:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)
        transport.close()
        server.stop()


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
