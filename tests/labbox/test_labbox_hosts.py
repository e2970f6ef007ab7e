"""A real lab in a box: SSH into namespace hosts, private mounts, host keys, teardown, crash.

Every check looks only at what the test made (its namespaces, veths, PIDs
with start times, files), so the tests hold while other runs share the
machine.
"""

from __future__ import annotations

import dataclasses
import json
import os
import secrets
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from labbox_helpers import (
    PORTS,
    Labbox,
    RunSnapshot,
    host_namespaces_2n,
    lab_topology_2n,
    root_link_exists,
    snapshot,
)

import ndrpdr.labbox.hosts as hosts_module
from ndrpdr.access.base import NodeAccessError
from ndrpdr.access.ssh import SshTransport
from ndrpdr.labbox import LabboxError, LabboxHosts
from ndrpdr.localbed import LocalTestbed, cleanup_leftovers
from ndrpdr.localbed.procs import NETNS_RUN_DIR, is_alive, start_time

pytestmark = pytest.mark.real  # a real system part: tests/testkinds.py

MakeLabbox = Callable[..., Labbox]

_HERE = Path(__file__).resolve().parent
_ROOT = _HERE.parents[1]


def ns_id(path: str | Path) -> tuple[int, int]:
    """(device, inode) of a namespace file: equal for the same namespace."""
    found = os.stat(path)
    return found.st_dev, found.st_ino


# -- the shared 2-host labbox ---------------------------------------------------------


def test_commands_run_in_the_host_namespace_as_root(labbox: Labbox) -> None:
    for node, ssh in labbox.ssh.items():
        host = labbox.hosts.host(node)
        links = json.loads(ssh.run(["ip", "-j", "link", "show"]).stdout)
        assert {link["ifname"] for link in links} == {"lo", "mgmt0", *PORTS[node]}
        sysfs = ssh.run(["ls", "/sys/class/net"]).stdout.split()  # the host's own /sys too
        assert set(sysfs) == {"lo", "mgmt0", *PORTS[node]}
        addresses = ssh.run(["ip", "-4", "-o", "addr", "show", "dev", "mgmt0"]).stdout
        assert f"inet {host.host_address}/30" in addresses
        assert ssh.run(["id", "-u"]).stdout.strip() == "0"
        assert ssh.run(["sh", "-c", 'echo "$0"']).stdout.strip() == "sh"  # no bash rc files
        # The sshd (and so every session) is in the host's namespaces, not the runner's.
        namespace = labbox.localbed.namespace(node)
        assert ns_id(f"/proc/{host.sshd_pid}/ns/net") == ns_id(NETNS_RUN_DIR / namespace)
        assert ns_id(f"/proc/{host.sshd_pid}/ns/mnt") != ns_id("/proc/self/ns/mnt")
        assert "Accepted publickey for root" in labbox.hosts.sshd_log(node)
    tg, dut = labbox.hosts.host("TG"), labbox.hosts.host("DUT1")
    assert tg.host_address != dut.host_address
    assert tg.root_ifname != dut.root_ifname and len(tg.root_ifname) <= 15
    assert root_link_exists(tg.root_ifname) and root_link_exists(dut.root_ifname)


def test_accesses_check_host_keys_with_the_run_key_only(labbox: Labbox) -> None:
    for node, access in labbox.hosts.accesses.items():
        assert access.host == str(labbox.hosts.host(node).host_address)
        assert (access.port, access.username) == (22, "root")
        assert access.check_host_key and not access.use_agent
        assert access.key_file and oct(os.stat(access.key_file).st_mode & 0o777) == "0o600"
        assert labbox.ssh[node].access == access


def test_files_go_both_ways_over_sftp(labbox: Labbox) -> None:
    ssh = labbox.ssh["DUT1"]
    data = secrets.token_bytes(300_000)
    ssh.put_file(data, "/tmp/ndrpdr-sftp-test.bin", mode=0o600)
    assert ssh.get_file("/tmp/ndrpdr-sftp-test.bin") == data
    assert ssh.run(["stat", "-c", "%a", "/tmp/ndrpdr-sftp-test.bin"]).stdout.strip() == "600"
    ssh.run(["rm", "/tmp/ndrpdr-sftp-test.bin"])


def test_tmp_and_run_dpdk_are_private_to_each_host(labbox: Labbox) -> None:
    tg, dut = labbox.ssh["TG"], labbox.ssh["DUT1"]
    name = f"ndrpdr-private-{secrets.token_hex(4)}"
    for directory in ("/tmp", "/run/dpdk"):
        path = f"{directory}/{name}"
        tg.put_file(b"tg", path)
        assert tg.get_file(path) == b"tg"
        assert dut.run(["test", "-e", path], check=False).exit_code == 1
        assert not os.path.exists(path)  # nor in the runner's mount namespace
        dut.put_file(b"dut", path)  # the same path, another file
        assert (tg.get_file(path), dut.get_file(path)) == (b"tg", b"dut")
    for ssh in (tg, dut):
        assert "tmpfs" in ssh.run(["findmnt", "-n", "-o", "FSTYPE", "/run/dpdk"]).stdout
    # Background processes keep their logs in the host's /tmp.
    process = dut.start(["sh", "-c", "echo started; sleep 30"])
    try:
        assert process.directory.startswith("/tmp/ndrpdr-")
        assert not os.path.exists(process.directory)
        assert dut.run(["test", "-d", process.directory]).exit_code == 0
    finally:
        process.stop(timeout_s=1.0)


def test_a_wrong_or_empty_known_hosts_is_refused(labbox: Labbox, tmp_path: Path) -> None:
    tg, dut = labbox.hosts.accesses["TG"], labbox.hosts.accesses["DUT1"]
    lines = Path(tg.known_hosts or "").read_text().splitlines()
    tg_key = next(line.split(" ", 1)[1] for line in lines if line.startswith(f"{tg.host} "))
    swapped = tmp_path / "known_hosts_swapped"
    swapped.write_text(f"{dut.host} {tg_key}\n")  # TG's key claimed for DUT1's address
    empty = tmp_path / "known_hosts_empty"
    empty.write_text("")
    for known_hosts, message in [(swapped, "does not match"), (empty, "not in known_hosts")]:
        wrong = dataclasses.replace(dut, known_hosts=str(known_hosts))
        with SshTransport("DUT1", wrong) as ssh, pytest.raises(NodeAccessError, match=message):
            ssh.run(["true"])


#: Accepts one TCP connection on argv[1]:argv[2], answers what it got in upper case.
_ECHO_SERVER = """
import socket, sys
server = socket.create_server((sys.argv[1], int(sys.argv[2])))
server.settimeout(10)
connection, peer = server.accept()
connection.sendall(connection.recv(100).upper())
print("served", peer[0], flush=True)
"""

#: Connects to argv[1]:argv[2] (retrying for 5 s: the server may not listen yet), sends argv[3].
_ECHO_CLIENT = """
import socket, sys, time
deadline = time.monotonic() + 5
while True:
    try:
        connection = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=2)
        break
    except OSError:
        if time.monotonic() > deadline:
            raise
        time.sleep(0.05)
connection.sendall(sys.argv[3].encode())
print(connection.recv(100).decode())
"""


def test_data_veths_between_hosts_pass_traffic(labbox: Labbox) -> None:
    tg, dut = labbox.ssh["TG"], labbox.ssh["DUT1"]
    # The local testbed drops what reaches TG ports (its sink); this test wants replies.
    tg.run(["nft", "delete", "table", "netdev", "ndrpdr_tgsink"])
    tg.run(["ip", "addr", "add", "198.51.100.1/30", "dev", "tg-if1"])
    dut.run(["ip", "addr", "add", "198.51.100.2/30", "dev", "dut-if1"])
    before = json.loads(dut.run(["ip", "-j", "-s", "link", "show", "dut-if1"]).stdout)
    server = dut.start(["python3", "-c", _ECHO_SERVER, "198.51.100.2", "5201"])
    try:
        token = secrets.token_hex(4)
        answer = tg.run(["python3", "-c", _ECHO_CLIENT, "198.51.100.2", "5201", token])
        assert answer.stdout.strip() == token.upper()
        assert server.stop(timeout_s=3.0) == 0
        assert "served 198.51.100.1" in server.output()  # it came over link1
    finally:
        server.stop(timeout_s=1.0)
    after = json.loads(dut.run(["ip", "-j", "-s", "link", "show", "dut-if1"]).stdout)
    assert after[0]["stats64"]["rx"]["packets"] > before[0]["stats64"]["rx"]["packets"]


# -- labboxes of their own --------------------------------------------------------------


def test_teardown_alone_removes_hosts_sessions_and_their_processes(
    make_labbox: MakeLabbox,
) -> None:
    box = make_labbox()
    sleeper = box.ssh["TG"].start(["sleep", "60"])  # detached on the host
    assert box.ssh["DUT1"].run(["true"]).exit_code == 0  # a session stays open
    made = snapshot(box.localbed, box.hosts, sleeper.pid)
    assert made.all_there()
    state = json.loads(Path(made.state_file).read_text())
    assert sorted(state["interfaces"]) == sorted(made.root_links)
    assert made.run_dir in state["paths"]
    sshds = {box.hosts.host(n).sshd_pid for n in box.hosts.nodes}
    assert sshds <= {p["pid"] for p in state["processes"]}
    box.localbed.teardown()  # no hosts.stop(), SSH connections still open
    assert made.left() == {k: [] for k in made.left()}
    box.hosts.stop()  # afterwards: nothing to do, no error
    box.hosts.stop()


def test_stop_is_idempotent_and_deleting_a_host_namespace_removes_its_pair(
    make_labbox: MakeLabbox,
) -> None:
    box = make_labbox()
    box.ssh["TG"].run(["true"])  # a session process below the TG sshd
    for transport in box.ssh.values():
        transport.close()
    pids = [box.hosts.host(n).sshd_pid for n in ("TG", "DUT1")]
    sshds = [(pid, start_time(pid)) for pid in pids]
    box.hosts.stop()
    box.hosts.stop()
    assert not any(is_alive(pid, started) for pid, started in sshds)
    assert "Received signal 15" in box.hosts.sshd_log("TG")
    tg = box.hosts.host("TG")
    namespace = box.localbed.namespace("TG")
    assert root_link_exists(tg.root_ifname)
    subprocess.run(["ip", "netns", "del", namespace], check=True)  # nothing runs in it now
    deadline = time.monotonic() + 5.0
    while root_link_exists(tg.root_ifname) and time.monotonic() < deadline:
        time.sleep(0.02)  # the kernel frees a namespace (and its veths) asynchronously
    assert not root_link_exists(tg.root_ifname)
    box.localbed.teardown()  # copes with the namespace and veth gone already


def test_two_labboxes_started_at_once_get_distinct_names_and_networks(
    make_labbox: MakeLabbox,
) -> None:
    boxes: list[Labbox] = []
    errors: list[BaseException] = []

    def build() -> None:
        try:
            boxes.append(make_labbox())
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=build) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not errors, errors
    hosts = [b.hosts.host(n) for b in boxes for n in b.hosts.nodes]
    assert len({h.root_ifname for h in hosts}) == 4
    assert len({h.host_address for h in hosts}) == 4
    assert len({h.root_address for h in hosts}) == 4
    for box in boxes:  # each answers on its own address, with its own key
        assert box.ssh["DUT1"].run(["cat", "/proc/sys/kernel/hostname"]).exit_code == 0


def test_a_failed_start_names_the_node_and_step_and_undoes_itself(
    state_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A config sshd refuses: the error must name the node and quote sshd's own words.
    monkeypatch.setattr(hosts_module, "sshd_config_text", lambda **_: "NoSuchOption yes\n")
    with LocalTestbed(lab_topology_2n(), host_namespaces=host_namespaces_2n()) as localbed:
        hosts = LabboxHosts(localbed, ["TG", "DUT1"], ready_timeout_s=5.0)
        started = time.monotonic()
        with pytest.raises(LabboxError, match=r"node TG: sshd exited before answering") as caught:
            hosts.start()
        assert "Bad configuration option: NoSuchOption" in str(caught.value)
        assert time.monotonic() - started < 5.0
        # Undone: no root veth end, no run directory, no sshd; nothing left recorded.
        assert not any(root_link_exists(h.root_ifname) for h in hosts.plan.hosts)
        assert not hosts.plan.directory.exists()
        state = json.loads(localbed.state_file.read_text())
        assert state["interfaces"] == [] and state["paths"] == []
        # DUT1's sshd (started last) is recorded; TG's may already have been pruned
        # as dead when DUT1's was recorded, since it exits at once on that config.
        assert 1 <= len(state["processes"]) <= 2
        assert not any(is_alive(p["pid"], p["start_time"]) for p in state["processes"])
        with pytest.raises(LabboxError, match="started already"):
            hosts.start()
    with pytest.raises(LabboxError, match="not set up"):
        LabboxHosts(localbed, ["TG"]).start()


def test_an_sshd_that_never_answers_times_out_with_its_log(
    state_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Runs, prints, never listens: the wait gives up at the deadline, quoting the log.
    silent = ["sh", "-c", "echo 'listening soon'; exec sleep 30"]
    monkeypatch.setattr(hosts_module, "host_command", lambda *_: silent)
    with LocalTestbed(lab_topology_2n(), host_namespaces=host_namespaces_2n()) as localbed:
        hosts = LabboxHosts(localbed, ["TG"], ready_timeout_s=0.5)
        started = time.monotonic()
        with pytest.raises(LabboxError, match=r"node TG: sshd did not answer .* in time") as caught:
            hosts.start()
        assert "  listening soon" in str(caught.value)
        assert 0.5 <= time.monotonic() - started < 5.0
        state = json.loads(localbed.state_file.read_text())
        assert not any(is_alive(p["pid"], p["start_time"]) for p in state["processes"])


def test_a_root_veth_name_in_use_is_refused_and_left_alone(state_dir: Path) -> None:
    with LocalTestbed(lab_topology_2n(), host_namespaces=host_namespaces_2n()) as localbed:
        hosts = LabboxHosts(localbed, ["TG", "DUT1"])
        other = hosts.plan.hosts[1].root_ifname  # as if another run had drawn the same token
        peer = f"ndt{secrets.token_hex(4)}"  # (this kernel has veth, not dummy)
        subprocess.run(
            ["ip", "link", "add", other, "type", "veth", "peer", "name", peer], check=True
        )
        try:
            with pytest.raises(LabboxError, match=f"interface names {other} are in use"):
                hosts.start()
            assert root_link_exists(other)  # not deleted: it is not this run's
            assert json.loads(localbed.state_file.read_text())["interfaces"] == []
        finally:
            subprocess.run(["ip", "link", "del", other], check=False)


def test_unknown_or_shared_host_namespaces_are_refused_without_io(state_dir: Path) -> None:
    localbed = LocalTestbed(lab_topology_2n(), host_namespaces={"TG": "tg"})
    with pytest.raises(LabboxError, match="node DUT1 has no namespace"):
        LabboxHosts(localbed, ["TG", "DUT1"])
    shared = LocalTestbed(lab_topology_2n(), host_namespaces={"TG": "x", "DUT1": "x"})
    with pytest.raises(LabboxError, match="share namespace"):
        LabboxHosts(shared, ["TG", "DUT1"])
    assert not localbed.state_file.exists()


# -- a crashed runner -------------------------------------------------------------------

_CHILD = textwrap.dedent(
    """
    import time
    from labbox_helpers import host_namespaces_2n, lab_topology_2n, snapshot
    from ndrpdr.access.ssh import SshTransport
    from ndrpdr.labbox import LabboxHosts
    from ndrpdr.localbed import LocalTestbed

    localbed = LocalTestbed(lab_topology_2n(), host_namespaces=host_namespaces_2n())
    localbed.setup()
    hosts = LabboxHosts(localbed, ["TG", "DUT1"])
    accesses = hosts.start()
    ssh = SshTransport("DUT1", accesses["DUT1"])
    sleeper = ssh.start(["sleep", "120"])
    print(snapshot(localbed, hosts, sleeper.pid).to_json(), flush=True)
    time.sleep(120)
    """
)


def test_cleanup_leftovers_removes_a_sigkilled_runners_labbox(state_dir: Path) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(_ROOT / "libraries"), str(_HERE)])}
    child = subprocess.Popen(
        [sys.executable, "-c", _CHILD], stdout=subprocess.PIPE, text=True, env=env
    )
    try:
        assert child.stdout is not None
        line = child.stdout.readline()
        if line:  # its reaper first (as an OOM kill might), so the run stays for cleanup
            reaper = json.loads(Path(RunSnapshot.from_json(line).state_file).read_text())["reaper"]
            os.kill(reaper["pid"], signal.SIGKILL)
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        if child.stdout is not None:
            child.stdout.close()
    assert line, "the child did not start its labbox"
    made = RunSnapshot.from_json(line)
    try:
        # SIGKILL of runner and reaper: the parent-death signal ended the sshds, the rest stays
        there = made.left()
        assert len(there["namespaces"]) == len(made.namespaces), there
        assert len(there["root_links"]) == len(made.root_links), there
        assert there["run_dir"] and there["state_file"], there
        assert Path(made.state_file).parent == state_dir
        logs = json.loads(Path(made.state_file).read_text())["logs"]  # the sshds' output
        assert len(logs) == 2 and all(os.path.exists(log) for log in logs)
        removed = "\n".join(cleanup_leftovers())
        assert made.left() == {k: [] for k in made.left()}
        assert not any(os.path.exists(log) for log in logs)
        for name in made.root_links:
            assert f"interface {name}" in removed
        assert f"path {made.run_dir}" in removed
    finally:
        if any(made.left().values()):  # the test failed: do not leave it for others
            cleanup_leftovers()
