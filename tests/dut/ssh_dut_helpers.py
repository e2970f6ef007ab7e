"""A real sshd serving a DUT network namespace, for the DUT-over-SSH tests.

``NamespacedSshd`` answers 127.0.0.1:P of this machine with OpenSSH's sshd
*inside a network namespace*, started inetd-style (``sshd -i``, as Debian's
ssh.socket does) for each accepted connection. In the sshd's private mount
namespace, /etc/passwd is a copy in which root's login shell is /bin/sh (a
slow ~/.bashrc would slow every command). Every sshd is tracked by PID and
stopped by ``stop``.

The DUT node's access is SSH, yet its ports must be veths of the run in
the namespace this sshd serves: ``serve_sshd`` has every local testbed of
the test host DUT1 in the logical namespace ``dut`` (``DUT_NAMESPACE``),
the one thing a topology file cannot say.

Also: helpers to tell which network namespace a process is in and which
processes are left in one, and ``search_over_ssh``: the NDR/PDR search
through a DUT app driven over SSH that the testpmd and l3fwd tests share.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Generic, TypeVar

import pytest
from dutbed import pid_alive

import ndrpdr.activebed.testbed
from ndrpdr.access.ssh import SshTransport
from ndrpdr.activebed.testbed import ActiveTestbed
from ndrpdr.dut.dpdk.app import DpdkAppDriver
from ndrpdr.families import profile_of as get_profile
from ndrpdr.goals import ndr_pdr_goals
from ndrpdr.localbed import LocalTestbed
from ndrpdr.localbed.naming import namespace_name, new_run_id
from ndrpdr.localbed.procs import NETNS_RUN_DIR
from ndrpdr.results.irregular import IrregularPolicy
from ndrpdr.searchrun import SearchRun
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.model import Topology
from search_call import search_call

SSHD = "/usr/sbin/sshd"
#: The logical namespace of DUT1's ports, which the namespaced sshd serves.
DUT_NAMESPACE = "dut"


def keygen(path: Path) -> str:
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "ndrpdr-test", "-f", str(path)],
        check=True,
        stdin=subprocess.DEVNULL,
    )
    return path.with_suffix(".pub").read_text().strip()


def root_shell_sh(line: str) -> str:
    fields = line.split(":")
    if fields[0] == "root" and len(fields) == 7:
        fields[6] = "/bin/sh"
    return ":".join(fields)


@dataclasses.dataclass
class NamespacedSshd:
    """127.0.0.1:``port`` of this machine, served by ``sshd -i`` in network namespace ``netns``.

    Each accepted connection becomes one sshd process (run through ``ip
    netns exec``), tracked by PID and stopped by ``stop``.
    """

    directory: Path
    listener: socket.socket
    netns: str | None = None
    served: list[subprocess.Popen[bytes]] = dataclasses.field(default_factory=list)
    _stopping: threading.Event = dataclasses.field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self.listener.getsockname()[1])

    @property
    def key_file(self) -> Path:
        return self.directory / "user_ed25519"

    @property
    def known_hosts(self) -> Path:
        return self.directory / "known_hosts"

    def log(self) -> str:
        path = self.directory / "sshd.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def command(self, netns: str) -> list[str]:
        bind = 'mount --bind "$1" /etc/passwd && shift && exec "$@"'
        return [
            "ip", "netns", "exec", netns,
            "unshare", "--mount", "--propagation", "private",
            "sh", "-c", bind, "sh", str(self.directory / "passwd"),
            SSHD, "-i", "-e", "-f", str(self.directory / "sshd_config"),
        ]  # fmt: skip

    def serve(self) -> None:
        self.listener.settimeout(0.1)
        self._thread = threading.Thread(target=self._accept, name="sshd-inetd", daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while not self._stopping.is_set():
            try:
                connection, _ = self.listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with connection, (self.directory / "sshd.log").open("ab") as log:
                if self.netns is None:
                    continue  # not ready: the client sees the connection closed
                self.served.append(
                    subprocess.Popen(
                        self.command(self.netns),
                        stdin=connection.fileno(),
                        stdout=connection.fileno(),
                        stderr=log,
                    )
                )

    def stop(self) -> None:
        """Stop accepting; stop every sshd still serving, by PID."""
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(5)
        self.listener.close()
        for process in self.served:
            if process.poll() is None:
                process.terminate()
            try:
                process.wait(5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)


def start_namespaced_sshd(directory: Path) -> NamespacedSshd:
    """Keys, known_hosts, a passwd copy and sshd_config in ``directory``; listening, not serving."""
    directory.chmod(0o755)
    host_public = keygen(directory / "host_ed25519")
    user_public = keygen(directory / "user_ed25519")
    (directory / "authorized_keys").write_text(user_public + "\n")
    lines = Path("/etc/passwd").read_text().splitlines()
    passwd = "\n".join(root_shell_sh(line) for line in lines)
    (directory / "passwd").write_text(passwd + "\n")
    (directory / "passwd").chmod(0o644)
    (directory / "sshd_config").write_text(
        "\n".join(
            [
                f"HostKey {directory / 'host_ed25519'}",
                f"AuthorizedKeysFile {directory / 'authorized_keys'}",
                "StrictModes no",
                "UsePAM no",
                "PermitRootLogin prohibit-password",
                "PubkeyAuthentication yes",
                "PasswordAuthentication no",
                "KbdInteractiveAuthentication no",
                "PrintMotd no",
                "PrintLastLog no",
                "UseDNS no",
                "LogLevel VERBOSE",
                "Subsystem sftp internal-sftp",
                "",
            ]
        )
    )
    Path("/run/sshd").mkdir(parents=True, exist_ok=True)  # privilege separation directory
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    server = NamespacedSshd(directory, listener)
    (directory / "known_hosts").write_text(f"[127.0.0.1]:{server.port} {host_public}\n")
    return server


def serve_sshd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tools: Sequence[str]
) -> Iterator[NamespacedSshd]:
    """The body of an ``sshd`` fixture: skip unless root and ``tools`` (and sshd) exist.

    Serves connections once the test sets ``netns``; afterwards no sshd it
    started may run. The state directory goes under ``tmp_path``; the
    test's testbeds host DUT1 in ``DUT_NAMESPACE`` (``host_dut1_locally``).
    """
    if os.geteuid() != 0:
        pytest.skip("needs root (network namespaces, sshd)")
    missing = [t for t in tools if shutil.which(t) is None]
    if not os.access(SSHD, os.X_OK):
        missing.append(SSHD)
    if missing:
        pytest.skip(f"not installed: {', '.join(missing)}")
    monkeypatch.setenv("NDRPDR_STATE_DIR", str(tmp_path / "state"))
    host_dut1_locally(monkeypatch)
    directory = tmp_path / "sshd"
    directory.mkdir()
    server = start_namespaced_sshd(directory)
    server.serve()
    try:
        yield server
    finally:
        server.stop()
    left = [p.pid for p in server.served if pid_alive(p.pid)]
    assert not left, f"sshd processes left: {left}"


def host_dut1_locally(monkeypatch: pytest.MonkeyPatch) -> None:
    """Have the ActiveTestbed's local testbed build DUT1's ports in ``DUT_NAMESPACE``.

    DUT1 is reached over SSH (the namespaced sshd), so the topology alone
    would leave its ports to a lab host; the local testbed's own
    ``host_namespaces`` puts them in a namespace of the run instead.
    """

    def local_testbed(
        topology: Topology,
        run_id: str | None = None,
        *,
        host_namespaces: Mapping[str, str] | None = None,
    ) -> LocalTestbed:
        hosted = {**(host_namespaces or {}), "DUT1": DUT_NAMESPACE}
        return LocalTestbed(topology, run_id, host_namespaces=hosted)

    monkeypatch.setattr(ndrpdr.activebed.testbed, "LocalTestbed", local_testbed)


def netns_id(path: str | Path) -> tuple[int, int]:
    """(device, inode) of a network namespace file (/run/netns/NAME, /proc/PID/ns/net)."""
    found = os.stat(path)
    return found.st_dev, found.st_ino


def same_netns(pid: int, namespace: str) -> bool:
    """True when process ``pid`` is in the network namespace named ``namespace``."""
    return netns_id(f"/proc/{pid}/ns/net") == netns_id(NETNS_RUN_DIR / namespace)


def pids_in_netns(wanted: tuple[int, int]) -> list[int]:
    """Processes whose network namespace is ``wanted`` (even once its name is deleted)."""
    found = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if netns_id(f"/proc/{entry.name}/ns/net") == wanted:
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


# -- a search through a DPDK app DUT driven over SSH ------------------------------------

PROFILE = get_profile("ethip4-ip4base")
#: The whole search may take this much trial time at most [s].
MAX_SEARCH_TIME_S = 30.0

#: A local TG and DUT1 reached over SSH at 127.0.0.1:{port}; {driver} and {options} vary.
SSH_TOPOLOGY = """\
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
    driver: {driver}
    access:
      kind: ssh
      host: 127.0.0.1
      port: {port}
      username: root
      key_file: {key_file}
      known_hosts: {known_hosts}
      use_agent: false
      connect_timeout_s: 5
    options: {{{options}}}
    interfaces:
      port1: {{name: dut-if1, mac_address: "02:00:00:00:01:02", link: link1}}
      port2: {{name: dut-if2, mac_address: "02:00:00:00:02:02", link: link2}}
"""

_App = TypeVar("_App", bound=DpdkAppDriver)


@dataclasses.dataclass
class SshSearch(Generic[_App]):
    """What ``search_over_ssh`` leaves for the app's own assertions."""

    dut: _App
    pid: int
    run: SearchRun
    #: The DUT's telemetry right after the stop, and the one the search collected.
    stopped: dict[str, str]
    telemetry: dict[str, str]


def search_over_ssh(
    sshd: NamespacedSshd, tmp_path: Path, driver: str, options: str, app: type[_App]
) -> SshSearch[_App]:
    """An NDR/PDR search through DUT1 (``driver`` with ``options``) driven over SSH.

    Checks what every app shares: it runs in the DUT namespace with its log
    in the SSH transport's process directory, the sshd served the
    connections, the kernel does not forward, the search found NDR <= PDR
    above 10 kpps, the stop leaves no app, log, nft table, namespace,
    process in one or state file, and it all took well under a minute.
    """
    started = time.monotonic()
    path = tmp_path / f"ssh-{driver}.yaml"
    path.write_text(
        SSH_TOPOLOGY.format(
            driver=driver,
            options=options,
            port=sshd.port,
            key_file=sshd.key_file,
            known_hosts=sshd.known_hosts,
        )
    )
    topology = load_topology(path)
    run_id = new_run_id()
    dut_ns = namespace_name(run_id, DUT_NAMESPACE)
    testbed = ActiveTestbed(topology, run_id=run_id)
    with testbed:
        sshd.netns = dut_ns  # the namespace exists now: serve connections in it
        namespaces = [netns_id(NETNS_RUN_DIR / n) for n in (dut_ns, namespace_name(run_id, "tg"))]
        access = testbed.access("DUT1")
        assert isinstance(access, SshTransport)
        assert access.address == f"root@127.0.0.1:{sshd.port}"
        testbed.configure_duts("ip4base")
        dut = testbed.duts["DUT1"]
        assert isinstance(dut, app)
        pid = dut.pid
        assert pid is not None
        # The app runs in the DUT namespace, its output going to the SSH transport's
        # per-process directory (/tmp/ndrpdr-XXXXXXXXXX/log), not to a local log file.
        assert same_netns(pid, dut_ns)
        log_file = os.readlink(f"/proc/{pid}/fd/1")  # its stdout
        assert re.fullmatch(r"/tmp/ndrpdr-\w{10}/log", log_file), log_file
        process_dir = os.path.dirname(log_file)
        assert sshd.served, "no SSH connection reached the namespaced sshd"
        assert all(same_netns(p.pid, dut_ns) for p in sshd.served if p.poll() is None)
        assert "Accepted publickey for root" in sshd.log()
        assert access.run(["sysctl", "-n", "net.ipv4.ip_forward"]).stdout.strip() == "0"

        tg = testbed.traffic_generator(PROFILE, 64)
        run = search_call(
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
            irregular=IrregularPolicy.WARN,  # tcpreplay on a busy host may fall short
        )
        dut.health_check()  # still forwarding after the search
        testbed.stop_duts()  # over SSH: SIGINT, then the ports restored
        assert not pid_alive(pid)
        assert not os.path.exists(process_dir)  # the SSH transport collected the log
        stopped = dut.telemetry()
        assert stopped["state"].endswith("stopped")
        assert access.run(["nft", "list", "tables"]).stdout.strip() == ""
    assert run.error is None, run.error
    assert {item.reason.tag for item in run.irregular} <= {"TG_LIMITED"}, run.irregular
    assert run.result is not None
    print(run.result.describe())  # shown with -s, or when an assertion below fails
    ndr, pdr = run.result.goal_results
    assert ndr.lower_bound is not None and pdr.lower_bound is not None
    assert ndr.lower_bound > 10_000, run.result.describe()
    assert ndr.lower_bound <= pdr.lower_bound, run.result.describe()
    telemetry = testbed.telemetry["DUT1"]
    assert f"running pid={pid}" in telemetry["state"]
    assert '"ifname":"dut-if1"' in telemetry["ip_link"]
    assert run.record.to_json()["telemetry"]["DUT1"]["state"] == telemetry["state"]

    # Nothing is left: namespaces, processes in them, state file (sshd: the fixture checks).
    assert not (NETNS_RUN_DIR / dut_ns).exists()
    assert not (NETNS_RUN_DIR / namespace_name(run_id, "tg")).exists()
    assert [pids_in_netns(n) for n in namespaces] == [[], []]
    state = tmp_path / "state"
    assert not state.exists() or list(state.iterdir()) == []
    assert time.monotonic() - started < 60, "the SSH test should take well under a minute"
    return SshSearch(dut, pid, run, stopped, telemetry)
