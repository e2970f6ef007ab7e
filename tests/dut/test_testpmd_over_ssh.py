"""testpmd driven over a real SSH connection, forwarding real packets, in a real search.

The DUT of the topology has ``access: {kind: ssh, host: 127.0.0.1, port: P}``.
What answers there is OpenSSH's sshd *inside the DUT's network namespace*,
started inetd-style (``sshd -i``, as Debian's ssh.socket does) for each
connection accepted on 127.0.0.1:P of this machine. So the DUT driver's
every command (sysctl, nft, taskset ... dpdk-testpmd, kill) goes through
paramiko, over TCP, through sshd's authentication and a login shell, and
runs on the "DUT host" that is the DUT namespace, where testpmd reads the
veths with AF_PACKET. The TG is the local tcpreplay TG in its namespace.

The local testbed builds the DUT namespace and its veths although the
DUT node's access is SSH (``ssh_dut_helpers.host_dut1_locally``); the
DUT's NodeAccess is the SSH transport (``open_access``).
In the sshd's private mount namespace, /etc/passwd is a copy in which
root's login shell is /bin/sh (a slow ~/.bashrc would slow every command).

Needs root and sshd, ssh-keygen, unshare, dpdk-testpmd, tcpreplay, nft;
skipped otherwise. Nothing may be left: no namespace, no sshd, no testpmd,
no state file, no SSH process directory under /tmp.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from dutbed import REQUIRED_TOOLS
from ssh_dut_helpers import NamespacedSshd, search_over_ssh, serve_sshd

from ndrpdr.dut.dpdk.testpmd import TestpmdDriver

pytestmark = pytest.mark.real  # a real system part: tests/testkinds.py

TOOLS = (*REQUIRED_TOOLS, "dpdk-testpmd", "ssh-keygen", "unshare")


@pytest.fixture
def sshd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[NamespacedSshd]:
    """An sshd for the DUT namespace; afterwards no sshd it started may run."""
    yield from serve_sshd(tmp_path, monkeypatch, TOOLS)


def test_testpmd_over_ssh_finds_ndr_and_pdr(sshd: NamespacedSshd, tmp_path: Path) -> None:
    options = "cpu: 1, pmd: af_packet, forward_mode: io, memory_mb: 256"
    search = search_over_ssh(sshd, tmp_path, "testpmd", options, TestpmdDriver)
    # a clean exit
    assert "Accumulated forward statistics for all ports" in search.stopped["log"]
    assert "io packet forwarding - ports=2" in search.telemetry["log"]
