"""The health check of a testpmd driven over real SSH: SIGSTOP seen by ``ps``, SIGKILL by
the exit status the SSH transport's waiter recorded, checks at most every 2 s.

The DUT host is the DUT namespace served by a real sshd (``ssh_dut_helpers``);
the test signals the testpmd that its own testbed started, by PID.
Needs root, sshd, dpdk-testpmd and the local testbed's tools; skipped otherwise.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from dutbed import REQUIRED_TOOLS, pid_alive
from ssh_dut_helpers import DUT_NAMESPACE, SSH_TOPOLOGY, NamespacedSshd, serve_sshd

from ndrpdr.access.ssh import SshTransport
from ndrpdr.activebed.testbed import ActiveTestbed
from ndrpdr.dut.base import DutError
from ndrpdr.dut.dpdk.testpmd import TestpmdDriver
from ndrpdr.dut.health import REMOTE_HEALTH_INTERVAL_S
from ndrpdr.localbed.naming import namespace_name, new_run_id
from ndrpdr.topology.loader import load_topology

pytestmark = pytest.mark.real  # a real system part: tests/testkinds.py

TOOLS = (*REQUIRED_TOOLS, "dpdk-testpmd", "ssh-keygen", "unshare")


@pytest.fixture
def sshd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[NamespacedSshd]:
    yield from serve_sshd(tmp_path, monkeypatch, TOOLS)


def test_stopped_then_killed_testpmd_over_ssh(
    sshd: NamespacedSshd, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "ssh-testpmd.yaml"
    options = "cpu: 1, pmd: af_packet, forward_mode: io, memory_mb: 256"
    path.write_text(
        SSH_TOPOLOGY.format(
            driver="testpmd",
            options=options,
            port=sshd.port,
            key_file=sshd.key_file,
            known_hosts=sshd.known_hosts,
        )
    )
    run_id = new_run_id()
    testbed = ActiveTestbed(load_topology(path), run_id=run_id)
    with testbed:
        sshd.netns = namespace_name(run_id, DUT_NAMESPACE)
        assert isinstance(testbed.access("DUT1"), SshTransport)
        testbed.configure_duts("ip4base")
        dut = testbed.duts["DUT1"]
        assert isinstance(dut, TestpmdDriver)
        pid = dut.pid
        assert pid is not None
        testbed.check_duts()  # forwarding: nothing to say

        # over SSH a check waits REMOTE_HEALTH_INTERVAL_S unless every frame was lost
        calls: list[float] = []
        real_check = dut.health_check
        monkeypatch.setattr(dut, "health_check", lambda: calls.append(time.monotonic()))
        testbed.check_duts()
        assert calls == []  # checked less than 2 s ago
        testbed.check_duts(lost_all=True)
        assert len(calls) == 1
        monkeypatch.setattr(dut, "health_check", real_check)

        os.kill(pid, signal.SIGSTOP)
        with pytest.raises(DutError) as stopped:
            testbed.check_duts(lost_all=True)
        text = str(stopped.value)
        assert text.startswith(f"DUT1 (testpmd): health check: dpdk-testpmd (pid {pid}) is ")
        assert "stopped (SIGSTOP), state T" in text and "log tail:\n" in text
        assert "NIC statistics for port" in text  # testpmd's own log (its stats), over SSH

        os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 5
        while pid_alive(pid):
            assert time.monotonic() < deadline
            time.sleep(0.05)
        with pytest.raises(DutError) as killed:
            testbed.check_duts(lost_all=True)
        assert f"dpdk-testpmd (pid {pid}) has exited, killed by SIGKILL (exit status -9)" in str(
            killed.value
        )
    assert REMOTE_HEALTH_INTERVAL_S == 2.0
    assert not pid_alive(pid)
