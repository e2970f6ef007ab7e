"""Fixtures for the node access tests: a real sshd and transports connected to it."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from access_helpers import wait_for
from sshd_server import SSHD, SshServer, pid_alive, start_sshd

from ndrpdr.access.ssh import SshTransport
from ndrpdr.topology.model import SshAccess

MakeSsh = Callable[..., SshTransport]


@pytest.fixture(scope="session")
def sshd() -> Iterator[SshServer]:
    """One sshd for the whole session, stopped by PID; nothing it started may survive."""
    if not os.access(SSHD, os.X_OK):
        pytest.skip(f"{SSHD} is not installed")
    if os.geteuid() != 0:
        pytest.skip("the sshd fixture needs root (privilege separation, /run/sshd)")
    server = start_sshd()
    try:
        yield server
    finally:
        server.sessions()
        server.stop()
        leftovers = [pid for pid in {server.pid, *server.seen_pids} if pid_alive(pid)]
        shutil.rmtree(server.directory, ignore_errors=True)
        assert not leftovers, f"sshd processes left running: {leftovers}"


def ssh_access(server: SshServer, **overrides: Any) -> SshAccess:
    """Access to the test sshd as root with the ed25519 user key (no agent)."""
    settings: dict[str, Any] = {
        "host": "127.0.0.1",
        "port": server.port,
        "username": "root",
        "key_file": str(server.user_key),
        "use_agent": False,
        "known_hosts": str(server.known_hosts),
        "connect_timeout_s": 5.0,
    }
    settings.update(overrides)
    return SshAccess(**settings)


@pytest.fixture
def make_ssh(sshd: SshServer) -> Iterator[MakeSsh]:
    """Build SshTransports to the test sshd (``SshAccess`` overrides as keywords); closed after."""
    made: list[SshTransport] = []

    def make(node: str = "DUT1", **overrides: Any) -> SshTransport:
        transport = SshTransport(node, ssh_access(sshd, **overrides))
        made.append(transport)
        return transport

    yield make
    for transport in made:
        transport.close()
    # Every transport closed: only the listening sshd remains (no session, no process left).
    assert wait_for(lambda: not sshd.sessions(), 5), sshd.sessions()
    assert os.path.isdir(sshd.directory)


@pytest.fixture
def ssh(make_ssh: MakeSsh) -> SshTransport:
    """A transport to the test sshd as root."""
    return make_ssh()
