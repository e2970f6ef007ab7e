"""The vhost families' guest stand-in for real: testpmd on virtio_user, a host side of our own.

The DUT's VPP cannot run here (its build needs AVX-512), so a second
``dpdk-testpmd`` plays VPP's part: vhost-user clients (``net_vhost`` with
``client=1``, as VPP's ``create vhost-user`` without ``server``) on the
guest's two sockets, sending on both (``txonly``). The guest is
``GuestRun`` with the command line the vpp driver gives a
``testpmd_io`` guest (``ndrpdr.dut.guest.testpmd``: CSIT's settings,
rings of 1024, ``--no-huge`` as on a node without hugepages) on CPUs 0
and 1. It must listen on its sockets, receive what the host side sends
on each port and forward it (io mode) out of the other. Processes are
ended by PID, their files removed.

Skips without ``dpdk-testpmd`` on PATH, without root, or with fewer than
2 CPUs.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest

from ndrpdr.access.local import LocalTransport
from ndrpdr.dut.guest.plan import GuestPlan
from ndrpdr.dut.guest.run import GuestRun, guest_argv
from ndrpdr.dut.nodesteps import NodeSteps
from ndrpdr.dut.smt import ThreadPlan, Worker

TESTPMD = shutil.which("dpdk-testpmd")
pytestmark = [
    pytest.mark.real,
    pytest.mark.skipif(
        TESTPMD is None or os.geteuid() != 0 or (os.cpu_count() or 1) < 2,
        reason="needs dpdk-testpmd on PATH, root and 2 CPUs",
    ),
]

#: What the host side's testpmd prints once a vhost-user connection is ready, and how long
#: both may take.
READY = "virtio is now ready for processing"
READY_S = 60.0


def _forwarded(text: str) -> dict[int, tuple[int, int]]:
    """(RX, TX) packets by port from the forward statistics testpmd prints when it stops."""
    blocks = re.findall(
        r"Forward statistics for port (\d+).*?RX-packets:\s+(\d+).*?TX-packets:\s+(\d+)",
        text, re.DOTALL,
    )  # fmt: skip
    return {int(port): (int(rx), int(tx)) for port, rx, tx in blocks}


def test_the_testpmd_stand_in_forwards_between_its_two_vhost_user_ports(tmp_path: Path) -> None:
    plan = GuestPlan(
        "testpmd_io", ThreadPlan(0, (Worker(1, 1, 0),)), 1, str(tmp_path / "guest"), (),
        str(TESTPMD), hugepages=False,
    )  # fmt: skip
    argv = guest_argv(plan)
    assert "--forward-mode=io" in argv and "--nb-cores=1" in argv
    steps = NodeSteps("DUT1", "vpp", LocalTransport("DUT1"))
    guest = GuestRun(steps, plan)
    host: subprocess.Popen[str] | None = None
    prefix = f"ndrpdr-vhost-test-{os.getpid()}"
    try:
        guest.start()  # returns once the first socket listens (the second after it is met)
        assert Path(plan.sockets[0]).is_socket()
        vdevs = [
            arg
            for index, socket in enumerate(plan.sockets)
            for arg in ("--vdev", f"net_vhost{index},iface={socket},client=1,queues=1")
        ]
        host = subprocess.Popen(
            [str(TESTPMD), "-l", "0,1", "--no-pci", "--no-huge", "-m", "512", "--file-prefix",
             prefix, *vdevs, "--", "-i", "--forward-mode=txonly", "--nb-cores=1",
             "--total-num-mbufs=8192"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )  # fmt: skip
        assert host.stdin is not None and host.stdout is not None
        lines: list[str] = []
        reader = threading.Thread(target=lines.extend, args=(host.stdout,), daemon=True)
        reader.start()
        # Both connections made (the guest opens its second socket after the first is met):
        # on a loaded machine that took more than the 5 s once given, and nothing was sent.
        deadline = time.monotonic() + READY_S
        while "".join(lines).count(READY) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert "".join(lines).count(READY) >= 2, "".join(lines)[-2000:]
        host.stdin.write("start\n")
        host.stdin.flush()
        time.sleep(4)
        host.stdin.write("stop\nshow port stats all\nquit\n")
        host.stdin.flush()
        host.wait(timeout=30)
        reader.join(timeout=30)
        out = "".join(lines)
        host = None
        sent = [int(n) for n in re.findall(r"TX-packets:\s+(\d+)", out)]
        assert len(sent) >= 2 and all(sent[-2:]), out[-2000:]
    finally:
        if host is not None:
            host.kill()
            host.wait()
        guest.stop()
        shutil.rmtree(f"/var/run/dpdk/{prefix}", ignore_errors=True)
    assert not Path(plan.run_dir).exists()
    forwarded = _forwarded(guest.log)
    assert set(forwarded) == {0, 1}, guest.log[-3000:]
    assert all(rx > 0 and tx > 0 for rx, tx in forwarded.values()), forwarded
