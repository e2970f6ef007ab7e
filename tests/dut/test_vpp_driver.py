"""The vpp DUT driver's lab path against a recording NodeAccess (a stand-in): exact commands.

Stand-in tests, for what cannot run here: VPP as a systemd service driving
PCI NICs through its DPDK plugin (the VPP of this machine has no DPDK
plugin and no NIC). A stand-in NodeAccess records every argument vector
and file the driver sends and answers with scripted CommandResults
(vppctl failing while VPP starts, "unknown input" printed with exit code
0, systemctl failing); a fake clock makes the start-up wait instant. What
can run here runs against the real VPP in ``test_vpp_real.py``: startup.conf
taken by VPP, every command list applied, VPP's own error messages, a dead
VPP detected.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from example_topologies import filled
from ndrpdr.access.base import (
    CommandError,
    CommandResult,
    CommandTimeoutError,
    NodeAccessError,
)
from ndrpdr.dut.base import DutError, DutTestConfig
from ndrpdr.dut.plan import plan_dut
from ndrpdr.dut.registry import make_dut_driver
from ndrpdr.dut.vpp.driver import VppDriver
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.model import Node, Topology

ROOT = Path(__file__).resolve().parents[2]
EXPECTED = Path(__file__).resolve().parent / "expected"
SOCKET = "/run/vpp/cli.sock"
VERSION = "vpp v24.02-release built by root on lab at 2024-02-27T12:00:00\n"

Script = tuple[int, str, str]  # exit code, stdout, stderr


def vppctl(command: str) -> tuple[str, ...]:
    return ("vppctl", "-s", SOCKET, *command.split())


def port_checked(calls: Sequence[tuple[str, ...]]) -> list[tuple[str, ...]]:
    """``calls`` less the health check's last one: the ports' check (ndrpdr.dut.vpp.health),
    one shell command reading VPP's interfaces (no host links: the lab's ports are NICs)."""
    *before, last = calls
    assert last[:2] == ("sh", "-c"), calls
    assert "show hardware-interfaces brief" in last[2] and " link " not in last[2], last
    return before


class FakeProcess:
    """A background VPP (service: direct): runs until stopped or told to exit."""

    def __init__(self, argv: Sequence[str]) -> None:
        self.argv = tuple(argv)
        self.pid = 4242
        self.running = True
        self.stops = 0
        self.log = "vpp[4242]: dpdk: EAL init\n"

    def is_running(self) -> bool:
        return self.running

    def stop(self, timeout_s: float = 10.0) -> int | None:
        self.stops += 1
        self.running = False
        return 0

    def output(self) -> str:
        return self.log


class RecordingAccess:
    """Records every call; ``script(argv, ...)`` queues results for an exact argv.

    A queued result is used once, the last one for every later call; an argv
    with nothing queued exits 0 with no output.
    """

    def __init__(self) -> None:
        self.calls: list[tuple[str, ...]] = []
        self.sudo: list[bool] = []
        self.files: dict[str, bytes] = {}
        #: Files the node has for get_file, and the reads made.
        self.readable: dict[str, bytes] = {}
        self.reads: list[str] = []
        self.scripts: dict[tuple[str, ...], list[Script]] = {}
        self.processes: list[FakeProcess] = []
        self.put_error: Exception | None = None
        self.hang_once: set[tuple[str, ...]] = set()
        self.clock: Clock | None = None  # a hang lasts the command's timeout on this clock

    @property
    def node(self) -> str:
        return "DUT1"

    def script(self, argv: Sequence[str], *results: Script) -> None:
        self.scripts[tuple(argv)] = list(results)

    def run(
        self,
        argv: Sequence[str],
        *,
        timeout_s: float = 60.0,
        sudo: bool = False,
        check: bool = True,
        stdin: str | bytes | None = None,
        env: Mapping[str, str] | None = None,
    ) -> CommandResult:
        key = tuple(argv)
        self.calls.append(key)
        self.sudo.append(sudo)
        if key in self.hang_once:
            self.hang_once.discard(key)
            if self.clock is not None:
                self.clock.now += timeout_s
            raise CommandTimeoutError(CommandResult("DUT1", key, -9, "", "", timeout_s), timeout_s)
        queue = self.scripts.get(key, [])
        code, out, err = (queue.pop(0) if len(queue) > 1 else queue[0]) if queue else (0, "", "")
        result = CommandResult("DUT1", key, code, out, err, 0.01)
        if check and code != 0:
            raise CommandError(result)
        return result

    def start(
        self, argv: Sequence[str], *, sudo: bool = False, env: Mapping[str, str] | None = None
    ) -> FakeProcess:
        self.calls.append(("<start>", *argv))
        self.sudo.append(sudo)
        process = FakeProcess(argv)
        self.processes.append(process)
        return process

    def put_file(self, data: bytes, path: str, *, mode: int = 0o644, sudo: bool = False) -> None:
        self.calls.append(("<put_file>", path, f"{mode:o}"))
        self.sudo.append(sudo)
        if self.put_error is not None:
            raise self.put_error
        self.files[path] = data

    def get_file(self, path: str, *, sudo: bool = False) -> bytes:
        """The node's files the driver may read (its memory, SMT): ``readable``, else none."""
        if path not in ("/proc/meminfo", "/sys/devices/system/cpu/smt/active"):
            raise AssertionError(f"the vpp driver reads no {path}")
        self.reads.append(path)
        if path not in self.readable:
            raise NodeAccessError(f"DUT1: cannot read {path}: No such file or directory")
        return self.readable[path]

    def close(self) -> None:
        pass


class Clock:
    """A monotonic clock that only moves when the driver sleeps."""

    def __init__(self) -> None:
        self.now = 100.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


@pytest.fixture(scope="module")
def csit() -> Topology:
    return load_topology(filled("csit-2n-example.yaml"))


def make(topology: Topology, access: RecordingAccess, clock: Clock, **options: Any) -> VppDriver:
    node: Node = dataclasses.replace(topology.duts[0], options=options)
    return VppDriver(node, access, sleep=clock.sleep, clock=clock)


def expected_cli(name: str) -> list[tuple[str, ...]]:
    return [vppctl(line) for line in (EXPECTED / name).read_text().splitlines()]


def placement(workers: int) -> list[tuple[str, ...]]:
    """The rx-placement lines after the forwarding: queue q of each port on worker q."""
    return [
        vppctl(f"set interface rx-placement {port} queue {queue} worker {queue}")
        for port in ("port1", "port2")
        for queue in range(workers)
    ]


LOG_TAIL = ("tail", "-n", "40", "--", "/var/log/vpp/vpp.log")
JOURNAL = ("journalctl", "--no-pager", "-o", "cat", "-n", "40", "-u", "vpp")


# -- the whole lifecycle ------------------------------------------------------------------


def test_systemd_lifecycle_runs_exactly_these_commands(csit: Topology) -> None:
    access, clock = RecordingAccess(), Clock()
    access.script(
        vppctl("show version"),
        (1, "", "vppctl: cannot connect to /run/vpp/cli.sock: No such file or directory"),
        (1, "", "vppctl: cannot connect to /run/vpp/cli.sock: Connection refused"),
        (0, VERSION, ""),
    )
    driver = make(csit, access, clock)
    driver.configure(plan_dut(csit, "ip4base", cores=2))
    assert access.calls == [
        ("mkdir", "-p", "--", "/etc/vpp"),
        ("<put_file>", "/etc/vpp/startup.conf", "644"),
    ]
    written = access.files["/etc/vpp/startup.conf"].decode()
    assert written == (EXPECTED / "vpp_startup_ip4base_2c.conf").read_text()
    assert driver.startup_conf_text == written

    access.calls.clear()
    driver.start()
    assert access.calls == [("systemctl", "restart", "vpp")]

    access.calls.clear()
    driver.health_check()
    assert port_checked(access.calls) == [
        vppctl("show version"),  # refused twice while VPP starts, then answers
        vppctl("show version"),
        vppctl("show version"),
        *expected_cli("vpp_cli_ip4base.txt"),
        *placement(2),
    ]
    assert clock.sleeps == [1.0, 1.0]

    access.calls.clear()
    driver.health_check()  # forwarding is set up once per start
    assert port_checked(access.calls) == [vppctl("show version")]

    access.calls.clear()
    access.script(vppctl("show runtime"), (0, "Thread 1 vpp_wk_0 (lcore 2)\n", ""))
    telemetry = driver.telemetry()
    assert access.calls == [
        vppctl("show runtime"),
        vppctl("show errors"),
        vppctl("show interface"),
        vppctl("show hardware"),
        vppctl("show threads"),
        vppctl("show interface rx-placement"),
        ("tail", "-n", "200", "--", "/var/log/vpp/vpp.log"),
    ]
    assert list(telemetry) == [
        "state", "setup_time", "show_runtime", "show_errors", "show_interface", "show_hardware",
        "show_threads", "show_rx_placement", "log", "startup_conf", "cpu_layout", "startup_scaled",
    ]  # fmt: skip
    assert telemetry["startup_scaled"] == ""  # memory unknown: CSIT's lab values, unscaled
    assert access.reads == ["/proc/meminfo", "/sys/devices/system/cpu/smt/active"]
    commands = len(expected_cli("vpp_cli_ip4base.txt")) + len(placement(2))
    assert telemetry["setup_time"] == f"{commands} vppctl commands in 0.000 s"  # the fake clock
    assert telemetry["show_runtime"] == "Thread 1 vpp_wk_0 (lcore 2)\n"
    layout = "main thread on cpu 1, 2 worker(s) on cpu 2,3 (2 RX queue(s) per port)"
    assert telemetry["state"] == f"vpp (systemd unit vpp): running, ip4base, {layout}"
    assert telemetry["cpu_layout"] == layout
    assert telemetry["startup_conf"] == written

    access.calls.clear()
    driver.stop()
    driver.stop()  # idempotent
    assert access.calls == [("systemctl", "stop", "vpp")]
    assert all(access.sudo)  # every command as root
    with pytest.raises(DutError, match=r"^DUT1 \(vpp\): health check: vpp is not running$"):
        driver.health_check()
    stopped = driver.telemetry()
    assert stopped["state"] == "vpp (systemd unit vpp): stopped"
    assert "show_runtime" not in stopped


def test_l2xc_sets_up_the_cross_connect(csit: Topology) -> None:
    access, clock = RecordingAccess(), Clock()
    access.script(vppctl("show version"), (0, VERSION, ""))
    driver = make(csit, access, clock)
    driver.configure(plan_dut(csit, "l2xc"))
    driver.start()
    access.calls.clear()
    driver.health_check()
    assert port_checked(access.calls) == [
        vppctl("show version"),
        *expected_cli("vpp_cli_l2xc.txt"),
        *placement(1),
    ]
    assert clock.sleeps == []


def test_configure_while_running_restarts_and_sets_up_again(csit: Topology) -> None:
    access, clock = RecordingAccess(), Clock()
    access.script(vppctl("show version"), (0, VERSION, ""))
    driver = make(csit, access, clock)
    driver.configure(plan_dut(csit, "ip4base"))
    driver.start()
    driver.health_check()
    access.calls.clear()
    driver.configure(plan_dut(csit, "l2xc", cores=1))
    assert access.calls == [
        ("mkdir", "-p", "--", "/etc/vpp"),
        ("<put_file>", "/etc/vpp/startup.conf", "644"),
        ("systemctl", "restart", "vpp"),
        vppctl("show version"),
        *expected_cli("vpp_cli_l2xc.txt"),
        *placement(1),
    ]
    access.calls.clear()
    driver.start()  # already running with this configuration: nothing to do
    assert access.calls == []


# -- failures -----------------------------------------------------------------------------


def started(csit: Topology, access: RecordingAccess, clock: Clock, **options: Any) -> VppDriver:
    driver = make(csit, access, clock, **options)
    driver.configure(plan_dut(csit, "ip4base"))
    driver.start()
    access.calls.clear()
    return driver


def test_unknown_input_with_exit_code_0_fails_naming_the_command(csit: Topology) -> None:
    access, clock = RecordingAccess(), Clock()
    access.script(vppctl("show version"), (0, VERSION, ""))
    neighbour = vppctl("set ip neighbor port1 192.168.10.2 b4:96:91:00:00:40 static")
    access.script(neighbour, (0, "set ip neighbor: unknown input `static'\n", ""))
    driver = started(csit, access, clock)
    with pytest.raises(DutError) as raised:
        driver.health_check()
    message = str(raised.value)
    assert message == (
        "DUT1 (vpp): set up ip4base: VPP says: set ip neighbor: unknown input `static'; "
        "`vppctl -s /run/vpp/cli.sock set ip neighbor port1 192.168.10.2 b4:96:91:00:00:40 "
        "static` exited 0; output tail:\nset ip neighbor: unknown input `static'"
    )
    assert access.calls[-1] == neighbour  # nothing after the failed command
    assert "forwarding not set up yet" in driver.telemetry()["state"]


def test_a_failing_vppctl_exit_code_is_reported_with_its_output(csit: Topology) -> None:
    access, clock = RecordingAccess(), Clock()
    access.script(vppctl("show version"), (0, VERSION, ""))
    state = vppctl("set interface state port1 up")
    access.script(state, (2, "", "vppctl: write error: Broken pipe\n"))
    driver = started(csit, access, clock)
    with pytest.raises(
        DutError,
        match=r"^DUT1 \(vpp\): set up ip4base: `vppctl -s /run/vpp/cli.sock set interface state "
        r"port1 up` exited 2; output tail:\nvppctl: write error: Broken pipe$",
    ):
        driver.health_check()
    assert access.calls == [vppctl("show version"), state]


def test_an_error_line_from_a_command_fails(csit: Topology) -> None:
    access, clock = RecordingAccess(), Clock()
    access.script(vppctl("show version"), (0, VERSION, ""))
    route = vppctl("ip route add 198.18.1.0/24 via 192.168.20.2 port2")
    access.script(route, (0, "some note\nerror: no such table\n", ""))
    driver = started(csit, access, clock)
    with pytest.raises(DutError, match=r"VPP says: error: no such table; `vppctl .* port2` exited"):
        driver.health_check()


def test_systemctl_failure_names_node_command_exit_code_and_logs(csit: Topology) -> None:
    access, clock = RecordingAccess(), Clock()
    access.script(
        ("systemctl", "restart", "vpp"),
        (1, "", "Job for vpp.service failed because the control process exited with error code."),
    )
    access.script(LOG_TAIL, (0, "vlib_plugin_early_init: plugin path /usr/lib/vpp_plugins\n", ""))
    access.script(JOURNAL, (0, "dpdk_config: unknown input `frobnicate'\n", ""))
    driver = make(csit, access, clock)
    driver.configure(plan_dut(csit, "ip4base"))
    access.calls.clear()
    with pytest.raises(DutError) as raised:
        driver.start()
    assert str(raised.value) == (
        "DUT1 (vpp): start: command failed with exit code 1: systemctl restart vpp\n"
        "stderr:\nJob for vpp.service failed because the control process exited with error code."
        "\nVPP log tail (/var/log/vpp/vpp.log):\n"
        "vlib_plugin_early_init: plugin path /usr/lib/vpp_plugins\n"
        "journal tail (vpp):\ndpdk_config: unknown input `frobnicate'"
    )
    assert access.calls == [("systemctl", "restart", "vpp"), LOG_TAIL, JOURNAL]
    with pytest.raises(DutError, match="vpp is not running"):
        driver.health_check()
    access.calls.clear()
    driver.stop()  # never started: nothing to stop
    assert access.calls == []


def test_health_check_gives_up_after_the_timeout_with_the_last_output(csit: Topology) -> None:
    access, clock = RecordingAccess(), Clock()
    access.script(vppctl("show version"), (1, "", "vppctl: cannot connect: Connection refused\n"))
    access.script(LOG_TAIL, (0, "dpdk: EAL: No free hugepages reported\n", ""))
    driver = started(csit, access, clock, start_timeout_s=2.5)
    with pytest.raises(DutError) as raised:
        driver.health_check()
    assert str(raised.value) == (
        "DUT1 (vpp): health check: VPP did not answer within 2.5 s (4 attempts); last "
        "`vppctl -s /run/vpp/cli.sock show version` exited 1; output tail:\n"
        "vppctl: cannot connect: Connection refused\n"
        "VPP log tail (/var/log/vpp/vpp.log):\ndpdk: EAL: No free hugepages reported\n"
        "journal tail (vpp):\n(empty)"
    )
    assert clock.sleeps == [1.0, 1.0, 0.5]  # bounded: never past the deadline
    assert access.calls == [vppctl("show version")] * 4 + [LOG_TAIL, JOURNAL]


def test_a_show_version_without_a_version_is_not_an_answer(csit: Topology) -> None:
    access, clock = RecordingAccess(), Clock()
    access.script(vppctl("show version"), (0, "", ""), (0, VERSION, ""))
    driver = started(csit, access, clock)
    driver.health_check()
    assert access.calls[:2] == [vppctl("show version")] * 2 and clock.sleeps == [1.0]


# -- service: direct ------------------------------------------------------------------------


def test_direct_service_runs_vpp_as_a_background_process(csit: Topology) -> None:
    access, clock = RecordingAccess(), Clock()
    sock = "/run/vpp/dut1.sock"
    access.script(("/opt/vpp/vppctl", "-s", sock, "show", "version"), (0, VERSION, ""))
    driver = make(
        csit, access, clock, service="direct", binary="/opt/vpp/vpp", vppctl="/opt/vpp/vppctl",
        startup_conf="/tmp/ndrpdr/startup.conf", cli_socket=sock,
    )  # fmt: skip
    driver.configure(plan_dut(csit, "l2xc"))
    driver.start()
    driver.health_check()
    assert access.calls[:5] == [
        ("mkdir", "-p", "--", "/tmp/ndrpdr"),
        ("<put_file>", "/tmp/ndrpdr/startup.conf", "644"),
        ("sh", "-c", "command -v /opt/vpp/vpp"),  # systemtools.require
        ("<start>", "/opt/vpp/vpp", "-c", "/tmp/ndrpdr/startup.conf"),
        ("/opt/vpp/vppctl", "-s", sock, "show", "version"),
    ]
    assert access.calls[5] == ("/opt/vpp/vppctl", "-s", sock, "set", "interface", "state",
                               "port1", "up")  # fmt: skip
    assert "cli-listen /run/vpp/dut1.sock" in access.files["/tmp/ndrpdr/startup.conf"].decode()
    telemetry = driver.telemetry()
    assert "pid=4242" in telemetry["state"]
    assert telemetry["output"] == "vpp[4242]: dpdk: EAL init\n"
    access.calls.clear()
    driver.stop()
    assert access.processes[0].stops == 1
    assert access.calls == [("ps", "-o", "stat=", "-p", "4242")]  # not frozen; no systemctl
    assert all(access.sudo)


def test_direct_vpp_that_exits_fails_with_its_output(csit: Topology) -> None:
    access, clock = RecordingAccess(), Clock()
    access.script(vppctl("show version"), (1, "", "vppctl: cannot connect\n"))
    driver = make(csit, access, clock, service="direct")
    driver.configure(plan_dut(csit, "ip4base"))
    driver.start()
    process = access.processes[0]
    process.running = False
    process.log += "vpp[4242]: unknown input `bogus'\n"
    with pytest.raises(DutError) as raised:
        driver.health_check()
    message = str(raised.value)
    assert message.startswith(
        "DUT1 (vpp): health check: /usr/bin/vpp (pid 4242) has exited; its output:\n"
        "vpp[4242]: dpdk: EAL init\nvpp[4242]: unknown input `bogus'\n"
        "VPP log tail (/var/log/vpp/vpp.log):\n(empty)"
    )
    assert "journal" not in message
    telemetry = driver.telemetry()
    assert telemetry["state"].startswith("vpp (/usr/bin/vpp -c /etc/vpp/startup.conf): running "
                                         "pid=4242 (exited)")  # fmt: skip
    assert "unknown input `bogus'" in telemetry["output"]
    driver.stop()
    assert "unknown input `bogus'" in driver.telemetry()["output"]  # kept after stop


def test_a_hanging_vppctl_is_retried(csit: Topology) -> None:
    access, clock = RecordingAccess(), Clock()
    access.script(vppctl("show version"), (0, VERSION, ""))
    access.hang_once.add(vppctl("show version"))
    driver = started(csit, access, clock, start_timeout_s=5)
    driver.health_check()
    assert access.calls[:2] == [vppctl("show version")] * 2 and clock.sleeps == [1.0]


def test_a_hanging_vppctl_is_named_when_time_runs_out(csit: Topology) -> None:
    access, clock = RecordingAccess(), Clock()
    access.hang_once.add(vppctl("show version"))
    access.clock = clock
    driver = started(csit, access, clock, start_timeout_s=0.5)
    with pytest.raises(
        DutError,
        match=r"\(1 attempts\); last DUT1: command failed with exit code "
        r"-9 \(timed out after 0.5 s\): vppctl -s /run/vpp/cli.sock show version",
    ):
        driver.health_check()


# -- no I/O before it is needed ---------------------------------------------------------------


def test_registry_makes_the_vpp_driver_without_io(csit: Topology) -> None:
    access = RecordingAccess()
    driver = make_dut_driver(csit.duts[0], access)
    assert isinstance(driver, VppDriver) and driver.node == "DUT1"
    assert access.calls == []


def test_bad_options_fail_in_the_constructor(csit: Topology) -> None:
    node = dataclasses.replace(csit.duts[0], options={"service": "upstart"})
    with pytest.raises(DutError, match=r"DUT1 \(vpp\): nodes\.DUT1\.options\.service: 'upstart'"):
        make_dut_driver(node, RecordingAccess())


def test_start_before_configure(csit: Topology) -> None:
    access = RecordingAccess()
    with pytest.raises(DutError, match=r"DUT1 \(vpp\): start: configure\(\) was not called"):
        make(csit, access, Clock()).start()
    assert access.calls == []


def test_an_unusable_config_is_refused_before_any_command(csit: Topology) -> None:
    access = RecordingAccess()
    config = plan_dut(csit, "ip4base")
    bad = dataclasses.replace(config.ports[0], pci_address=None)
    with pytest.raises(DutError, match=r"nodes\.DUT1\.interfaces\.port1\.pci_address"):
        make(csit, access, Clock()).configure(DutTestConfig("ip4base", (bad, config.ports[1])))
    assert access.calls == []


def test_a_failed_write_names_the_file(csit: Topology) -> None:
    access = RecordingAccess()
    denied = "DUT1: cannot write /etc/vpp/startup.conf: Permission denied"
    access.put_error = NodeAccessError(denied)
    with pytest.raises(
        DutError,
        match=r"^DUT1 \(vpp\): configure: write /etc/vpp/startup.conf: cannot write "
        r"/etc/vpp/startup.conf: Permission denied$",
    ):
        make(csit, access, Clock()).configure(plan_dut(csit, "l2xc"))
