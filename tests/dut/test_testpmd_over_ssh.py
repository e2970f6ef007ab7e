"""testpmd driven over a real SSH connection, forwarding real packets, in a real search.

The DUT of the topology has ``access: {kind: ssh, host: 127.0.0.1, port: P}``.
What answers there is OpenSSH's sshd *inside the DUT's network namespace*,
started inetd-style (``sshd -i``, as Debian's ssh.socket does) for each
connection accepted on 127.0.0.1:P of this machine. So the DUT driver's
every command (sysctl, nft, taskset ... dpdk-testpmd, kill) goes through
paramiko, over TCP, through sshd's authentication and a login shell, and
runs on the "DUT host" that is the DUT namespace, where testpmd reads the
veths with AF_PACKET. The TG is the local tcpreplay TG in its namespace.

``ActiveTestbed(..., host_namespaces={"DUT1": "dut"})`` has the local
testbed build the DUT namespace and its veths although the DUT node's
access is SSH; the DUT's NodeAccess is the SSH transport (``open_access``).
In the sshd's private mount namespace, /etc/passwd is a copy in which
root's login shell is /bin/sh (a slow ~/.bashrc would slow every command).

Needs root and sshd, ssh-keygen, unshare, dpdk-testpmd, tcpreplay, nft;
skipped otherwise. Nothing may be left: no namespace, no sshd, no testpmd,
no state file, no SSH process directory under /tmp.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from dutbed import REQUIRED_TOOLS, pid_alive
from ssh_dut_helpers import (
    NamespacedSshd,
    netns_id,
    pids_in_netns,
    same_netns,
    serve_sshd,
)

from ndrpdr.access.ssh import SshTransport
from ndrpdr.dut.testpmd import TestpmdDriver
from ndrpdr.goals import ndr_pdr_goals
from ndrpdr.localbed.naming import namespace_name, new_run_id
from ndrpdr.localbed.procs import NETNS_RUN_DIR
from ndrpdr.profiles import get_profile
from ndrpdr.searchrun import run_search
from ndrpdr.testbed.active import ActiveTestbed
from ndrpdr.testbed.loader import load_topology

TOOLS = (*REQUIRED_TOOLS, "dpdk-testpmd", "ssh-keygen", "unshare")
PROFILE = get_profile("ethip4-ip4base")
#: The whole search may take this much trial time at most [s].
MAX_SEARCH_TIME_S = 30.0

TOPOLOGY = """\
# yaml-language-server: $schema=topology.schema.json
nodes:
  TG:
    type: TG
    driver: local
    access: {{kind: netns, namespace: tg}}
    options: {{cpu: 0, max_rate_pps: 400000}}
    interfaces:
      port1: {{name: tg-if1, mac_address: "02:00:00:00:01:01", link: link1}}
      port2: {{name: tg-if2, mac_address: "02:00:00:00:02:01", link: link2}}
  DUT1:
    type: DUT
    driver: testpmd
    access:
      kind: ssh
      host: 127.0.0.1
      port: {port}
      username: root
      key_file: {key_file}
      known_hosts: {known_hosts}
      use_agent: false
      connect_timeout_s: 5
    options: {{cpu: 1, pmd: af_packet, forward_mode: io, memory_mb: 256}}
    interfaces:
      port1: {{name: dut-if1, mac_address: "02:00:00:00:01:02", link: link1}}
      port2: {{name: dut-if2, mac_address: "02:00:00:00:02:02", link: link2}}
"""


@pytest.fixture
def sshd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[NamespacedSshd]:
    """An sshd for the DUT namespace; afterwards no sshd it started may run."""
    yield from serve_sshd(tmp_path, monkeypatch, TOOLS)


def test_testpmd_over_ssh_finds_ndr_and_pdr(sshd: NamespacedSshd, tmp_path: Path) -> None:
    started = time.monotonic()
    path = tmp_path / "ssh-testpmd.yaml"
    path.write_text(
        TOPOLOGY.format(port=sshd.port, key_file=sshd.key_file, known_hosts=sshd.known_hosts)
    )
    topology = load_topology(path)
    run_id = new_run_id()
    dut_ns = namespace_name(run_id, "dut")
    testbed = ActiveTestbed(topology, run_id=run_id, host_namespaces={"DUT1": "dut"})
    with testbed:
        sshd.netns = dut_ns  # the namespace exists now: serve connections in it
        namespaces = [netns_id(NETNS_RUN_DIR / n) for n in (dut_ns, namespace_name(run_id, "tg"))]
        access = testbed.access("DUT1")
        assert isinstance(access, SshTransport)
        assert access.address == f"root@127.0.0.1:{sshd.port}"
        testbed.configure_duts("ip4base")
        dut = testbed.duts["DUT1"]
        assert isinstance(dut, TestpmdDriver)
        testpmd_pid = dut.pid
        assert testpmd_pid is not None
        # testpmd runs in the DUT namespace, its output going to the SSH transport's
        # per-process directory (/tmp/ndrpdr-XXXXXXXXXX/log), not to a local log file.
        assert same_netns(testpmd_pid, dut_ns)
        log_file = os.readlink(f"/proc/{testpmd_pid}/fd/1")  # its stdout
        assert re.fullmatch(r"/tmp/ndrpdr-\w{10}/log", log_file), log_file
        process_dir = os.path.dirname(log_file)
        assert sshd.served, "no SSH connection reached the namespaced sshd"
        assert all(same_netns(p.pid, dut_ns) for p in sshd.served if p.poll() is None)
        assert "Accepted publickey for root" in sshd.log()
        assert access.run(["sysctl", "-n", "net.ipv4.ip_forward"]).stdout.strip() == "0"

        tg = testbed.traffic_generator(PROFILE, 64)
        run = run_search(
            tg,
            topology=topology,
            profile=PROFILE,
            frame_size=64,
            goals=ndr_pdr_goals(
                initial_trial_duration_s=0.5,
                final_trial_duration_s=1.0,
                duration_sum_s=1.0,
                relative_width=0.05,
            ),
            max_search_time_s=MAX_SEARCH_TIME_S,
            telemetry=testbed.collect_telemetry,
        )
        dut.health_check()  # still forwarding after the search
        testbed.stop_duts()  # over SSH: SIGINT, then the ports restored
        assert not pid_alive(testpmd_pid)
        assert not os.path.exists(process_dir)  # the SSH transport collected the log
        stopped = dut.telemetry()
        assert stopped["state"].endswith("stopped")
        assert "Accumulated forward statistics for all ports" in stopped["log"]  # a clean exit
        assert access.run(["nft", "list", "tables"]).stdout.strip() == ""
    assert run.error is None, run.error
    assert run.result is not None
    print(run.result.describe())  # shown with -s, or when an assertion below fails
    ndr, pdr = run.result.goal_results
    assert ndr.lower_bound is not None and pdr.lower_bound is not None
    assert ndr.lower_bound > 10_000, run.result.describe()
    assert ndr.lower_bound <= pdr.lower_bound, run.result.describe()
    telemetry = testbed.telemetry["DUT1"]
    assert f"running pid={testpmd_pid}" in telemetry["state"]
    assert "io packet forwarding - ports=2" in telemetry["log"]
    assert '"ifname":"dut-if1"' in telemetry["ip_link"]
    assert run.record["telemetry"]["DUT1"]["state"] == telemetry["state"]

    # Nothing is left: namespaces, processes in them, state file (sshd: the fixture checks).
    assert not (NETNS_RUN_DIR / dut_ns).exists()
    assert not (NETNS_RUN_DIR / namespace_name(run_id, "tg")).exists()
    assert [pids_in_netns(n) for n in namespaces] == [[], []]
    state = tmp_path / "state"
    assert not state.exists() or list(state.iterdir()) == []
    assert time.monotonic() - started < 60, "the SSH test should take well under a minute"
