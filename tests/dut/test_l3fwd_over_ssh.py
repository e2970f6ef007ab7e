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

import os
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from dutbed import REQUIRED_TOOLS, pid_alive
from ssh_dut_helpers import NamespacedSshd, netns_id, pids_in_netns, same_netns, serve_sshd

from ndrpdr.access.local import LocalTransport
from ndrpdr.access.ssh import SshTransport
from ndrpdr.dut.dpdk_common import NodeSteps
from ndrpdr.dut.l3fwd import L3fwdDriver
from ndrpdr.dut.l3fwd_build import EXAMPLES_DIR, ensure_l3fwd
from ndrpdr.goals import ndr_pdr_goals
from ndrpdr.localbed.naming import namespace_name, new_run_id
from ndrpdr.localbed.procs import NETNS_RUN_DIR
from ndrpdr.profiles import get_profile
from ndrpdr.searchrun import run_search
from ndrpdr.testbed.active import ActiveTestbed
from ndrpdr.testbed.loader import load_topology

TOOLS = (*REQUIRED_TOOLS, "ssh-keygen", "unshare", "pkg-config", "make", "cc")
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
    driver: l3fwd
    access:
      kind: ssh
      host: 127.0.0.1
      port: {port}
      username: root
      key_file: {key_file}
      known_hosts: {known_hosts}
      use_agent: false
      connect_timeout_s: 5
    options: {{cpu: 1, pmd: af_packet, memory_mb: 256, binary: {binary}}}
    interfaces:
      port1: {{name: dut-if1, mac_address: "02:00:00:00:01:02", link: link1}}
      port2: {{name: dut-if2, mac_address: "02:00:00:00:02:02", link: link2}}
"""


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
    started = time.monotonic()
    path = tmp_path / "ssh-l3fwd.yaml"
    path.write_text(
        TOPOLOGY.format(
            port=sshd.port,
            key_file=sshd.key_file,
            known_hosts=sshd.known_hosts,
            binary=l3fwd_binary,
        )
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
        assert isinstance(dut, L3fwdDriver)
        assert dut.binary == l3fwd_binary
        l3fwd_pid = dut.pid
        assert l3fwd_pid is not None
        # l3fwd runs in the DUT namespace, its output going to the SSH transport's
        # per-process directory (/tmp/ndrpdr-XXXXXXXXXX/log), not to a local log file.
        assert same_netns(l3fwd_pid, dut_ns)
        log_file = os.readlink(f"/proc/{l3fwd_pid}/fd/1")  # its stdout
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
        dut.health_check()  # still routing after the search
        testbed.stop_duts()  # over SSH: SIGINT, then the ports restored
        assert not pid_alive(l3fwd_pid)
        assert not os.path.exists(process_dir)  # the SSH transport collected the log
        stopped = dut.telemetry()
        assert stopped["state"].endswith("stopped")
        assert "Signal 2 received, preparing to exit" in stopped["log"]
        assert "Bye..." in stopped["log"]  # a clean exit
        assert access.run(["nft", "list", "tables"]).stdout.strip() == ""
    assert run.error is None, run.error
    assert run.result is not None
    print(run.result.describe())  # shown with -s, or when an assertion below fails
    ndr, pdr = run.result.goal_results
    assert ndr.lower_bound is not None and pdr.lower_bound is not None
    assert ndr.lower_bound > 10_000, run.result.describe()
    assert ndr.lower_bound <= pdr.lower_bound, run.result.describe()
    telemetry = testbed.telemetry["DUT1"]
    assert f"running pid={l3fwd_pid}" in telemetry["state"]
    assert "LPM: Adding route 198.18.1.0 / 24 (1)" in telemetry["log"]
    assert "Destination:02:00:00:00:02:01" in telemetry["log"]  # --eth-dest of port 1
    assert '"ifname":"dut-if1"' in telemetry["ip_link"]
    assert run.record["telemetry"]["DUT1"]["state"] == telemetry["state"]

    # Nothing is left: namespaces, processes in them, state file (sshd: the fixture checks).
    assert not (NETNS_RUN_DIR / dut_ns).exists()
    assert not (NETNS_RUN_DIR / namespace_name(run_id, "tg")).exists()
    assert [pids_in_netns(n) for n in namespaces] == [[], []]
    state = tmp_path / "state"
    assert not state.exists() or list(state.iterdir()) == []
    assert time.monotonic() - started < 60, "the SSH test should take well under a minute"
