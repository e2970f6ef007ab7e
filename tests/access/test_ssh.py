"""SshTransport as a whole against a real OpenSSH server on 127.0.0.1 (see sshd_server.py).

The parts (connection, commands, processes, files) have their own test modules.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import MakeSsh
from sshd_server import free_port, pid_alive

from ndrpdr.access.ssh import SshTransport
from ndrpdr.topology.model import SshAccess

pytestmark = pytest.mark.real  # a real system part: tests/testkinds.py


def test_no_connection_before_first_use() -> None:
    # Nothing listens there: any I/O in the constructor would fail.
    transport = SshTransport("DUT1", SshAccess(host="127.0.0.1", port=free_port()))
    assert transport.paramiko_transport is None
    assert transport.address == f"root@127.0.0.1:{transport.access.port}"
    transport.close()  # nothing to close, no error


def test_close_stops_background_processes(make_ssh: MakeSsh) -> None:
    transport = make_ssh()
    process = transport.start(["sleep", "60"])
    directory = Path(process.directory)
    transport.close()
    assert not pid_alive(process.pid)
    assert not directory.exists()
    transport.close()  # idempotent
