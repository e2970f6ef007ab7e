"""l3fwd driven over a real SSH connection, routing real packets, in a real search.

As in test_testpmd_over_ssh: the DUT of the topology has ``access: {kind:
ssh, host: 127.0.0.1, port: P}`` and what answers there is OpenSSH's sshd
*inside the DUT's network namespace* (``ssh_dut_helpers.NamespacedSshd``).
Every command of the l3fwd driver (sysctl, nft, taskset ... l3fwd, kill)
goes through paramiko, sshd and a login shell, and runs in the DUT
namespace, where l3fwd reads the veths with AF_PACKET and routes with its
built-in LPM table. The TG is the local tcpreplay TG in its namespace.

l3fwd is built on this machine first, as the local l3fwd driver does
(Debian's dpdk-doc examples, cached in /var/cache/ndrpdr), and the SSH
node is given that binary with ``options.binary``.

Needs root and sshd, ssh-keygen, unshare, pkg-config, make, cc, dpdk-doc,
tcpreplay, nft; skipped otherwise. Nothing may be left: no namespace, no
sshd, no l3fwd, no state file, no SSH process directory under /tmp.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from dutbed import REQUIRED_TOOLS
from ssh_dut_helpers import NamespacedSshd, search_over_ssh, serve_sshd

from ndrpdr.access.local import LocalTransport
from ndrpdr.dut.dpdk.l3fwd import L3fwdDriver
from ndrpdr.dut.dpdk.l3fwd_build import EXAMPLES_DIR, ensure_l3fwd
from ndrpdr.dut.nodesteps import NodeSteps

pytestmark = pytest.mark.real  # a real system part: tests/testkinds.py

TOOLS = (*REQUIRED_TOOLS, "ssh-keygen", "unshare", "pkg-config", "make", "cc")


@pytest.fixture
def sshd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[NamespacedSshd]:
    """An sshd for the DUT namespace; afterwards no sshd it started may run."""
    yield from serve_sshd(tmp_path, monkeypatch, TOOLS)


@pytest.fixture
def l3fwd_binary(sshd: NamespacedSshd) -> str:
    """l3fwd built on this machine (cached), as the local l3fwd driver builds it."""
    if not Path(EXAMPLES_DIR, "l3fwd", "main.c").exists():
        pytest.skip(f"{EXAMPLES_DIR}/l3fwd is missing: apt-get install dpdk-doc")
    return ensure_l3fwd(NodeSteps("local", "l3fwd", LocalTransport("local")))


def test_l3fwd_over_ssh_finds_ndr_and_pdr(
    sshd: NamespacedSshd, l3fwd_binary: str, tmp_path: Path
) -> None:
    options = f"cpu: 1, pmd: af_packet, memory_mb: 256, binary: {l3fwd_binary}"
    search = search_over_ssh(sshd, tmp_path, "l3fwd", options, L3fwdDriver)
    assert search.dut.binary == l3fwd_binary
    assert "Signal 2 received, preparing to exit" in search.stopped["log"]
    assert "Bye..." in search.stopped["log"]  # a clean exit
    assert "LPM: Adding route 198.18.1.0 / 24 (1)" in search.telemetry["log"]
    assert "Destination:02:00:00:00:02:01" in search.telemetry["log"]  # --eth-dest of port 1
