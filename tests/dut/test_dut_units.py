"""DUT drivers without a testbed: registry, sim, options, command lines, the l3fwd patch.

A fake NodeAccess records every command, so the drivers' command lines and
their order are checked without root or DPDK.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from ndrpdr.access.base import CommandResult
from ndrpdr.access.processlog import bounded_log, strip_ansi
from ndrpdr.dut.base import DutError, DutPort, DutTestConfig
from ndrpdr.dut.dpdk.eal import vdev_args
from ndrpdr.dut.dpdk.l3fwd import L3fwdDriver
from ndrpdr.dut.dpdk.l3fwd_build import (
    EXAMPLES_DIR,
    PATCH_MARK,
    PatchError,
    ensure_l3fwd,
    patch_main_c,
)
from ndrpdr.dut.dpdk.testpmd import TestpmdDriver
from ndrpdr.dut.handsoff import sink_ruleset
from ndrpdr.dut.nodesteps import NodeSteps
from ndrpdr.dut.ovs import ovs_flows
from ndrpdr.dut.registry import make_dut_driver
from ndrpdr.dut.sim import SimDutDriver
from ndrpdr.topology.model import Interface, NetnsAccess, Node

PORTS = (
    DutPort("port1", "dut-if1", "02:00:00:00:01:02", None, "02:00:00:00:01:01",
            "192.168.10.1/24", "192.168.10.2", "198.18.0.0/24"),
    DutPort("port2", "dut-if2", "02:00:00:00:02:02", None, "02:00:00:00:02:01",
            "192.168.20.1/24", "192.168.20.2", "198.18.1.0/24"),
)  # fmt: skip
IP4 = DutTestConfig(mode="ip4base", ports=PORTS)
L2 = DutTestConfig(mode="l2xc", ports=PORTS)


def node(driver: str, **options: Any) -> Node:
    ifaces = {f"port{i}": Interface(f"port{i}", f"dut-if{i}") for i in (1, 2)}
    return Node("DUT1", "DUT", driver, NetnsAccess("dut"), ifaces, options=options)


class FakeProcess:
    def __init__(self, pid: int, log: str) -> None:
        self.pid = pid
        self.log = log
        self.running = True
        self.signals = 0

    def is_running(self) -> bool:
        return self.running

    def stop(self, timeout_s: float = 10.0) -> int | None:
        self.signals += 1
        self.running = False
        return 0

    def output(self) -> str:
        return self.log


class FakeAccess:
    """Records commands; ``sysctl -n`` answers 1, ``nproc`` answers ``cpus``, an interface
    has one RX and one TX queue."""

    def __init__(self, log: str = "", cpus: int = 2, fail: str = "") -> None:
        self.commands: list[list[str]] = []
        self.started: list[FakeProcess] = []
        self.log = log
        self.cpus = cpus
        self.fail = fail
        self.run_outputs: dict[str, str] = {}

    @property
    def node(self) -> str:
        return "DUT1"

    def run(self, argv: Sequence[str], *, timeout_s: float = 60.0, sudo: bool = False,
            check: bool = True, stdin: str | bytes | None = None,
            env: Mapping[str, str] | None = None) -> CommandResult:  # fmt: skip
        self.commands.append(list(argv))
        out = {"sysctl": "1\n", "nproc": f"{self.cpus}\n"}.get(argv[0], "")
        if argv[0] == "ls" and argv[-1].endswith("/queues"):  # an interface's kernel queues
            out = "rx-0\ntx-0\n"
        out = next((v for k, v in self.run_outputs.items() if k in argv), out)
        code = 1 if self.fail and self.fail in argv else 0
        result = CommandResult("DUT1", tuple(argv), code, out, "boom" if code else "", 0.0)
        if code and check:
            from ndrpdr.access.base import CommandError

            raise CommandError(result)
        return result

    def start(self, argv: Sequence[str], *, sudo: bool = False,
              env: Mapping[str, str] | None = None) -> FakeProcess:  # fmt: skip
        self.commands.append(list(argv))
        process = FakeProcess(1000 + len(self.started), self.log)
        self.started.append(process)
        return process

    def put_file(self, data: bytes, path: str, *, mode: int = 0o644, sudo: bool = False) -> None:
        raise AssertionError("not used")

    def get_file(self, path: str, *, sudo: bool = False) -> bytes:
        raise AssertionError("not used")

    def close(self) -> None:
        pass


# -- registry and sim -----------------------------------------------------------------


@pytest.mark.parametrize("driver", ["linux", "testpmd", "l3fwd", "ovs", "sim"])
def test_registry_makes_every_local_driver_without_io(driver: str) -> None:
    access = FakeAccess()
    made = make_dut_driver(node(driver), access)
    assert made.node == "DUT1"
    assert access.commands == []


def test_registry_makes_vpp_and_refuses_unknown_drivers() -> None:
    access = FakeAccess()
    assert make_dut_driver(node("vpp"), access).node == "DUT1"  # the lab driver, no I/O yet
    assert access.commands == []
    with pytest.raises(
        DutError,
        match="DUT1: unknown DUT driver 'dpdk'; known: sim, linux, testpmd, l3fwd, ovs, vpp",
    ):
        make_dut_driver(node("dpdk"), FakeAccess())


def test_sim_records_state_and_says_it_is_simulated() -> None:
    sim = SimDutDriver(node("sim"))
    with pytest.raises(DutError, match=r"DUT1 \(sim\): start: configure\(\) was not called"):
        sim.start()
    sim.configure(IP4)
    sim.start()
    sim.health_check()
    assert "simulated DUT" in sim.telemetry()["state"]
    assert "running" in sim.telemetry()["state"]
    sim.stop()
    sim.stop()
    with pytest.raises(DutError, match=r"DUT1 \(sim\): health check"):
        sim.health_check()
    assert sim.starts == 1


# -- options --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("driver", "options", "message"),
    [
        ("testpmd", {"pmd": "vfio"}, r"options.pmd: 'vfio' is not one of af_packet, af_xdp"),
        ("testpmd", {"cpu": -1}, r"options.cpu: -1 is not an integer >= 0"),
        ("testpmd", {"forward_mode": "rxonly"}, r"options.forward_mode: 'rxonly'"),
        ("testpmd", {"memory_mb": 16}, r"options.memory_mb: 16 is not an integer >= 64"),
        ("testpmd", {"extra_args": 5}, r"options.extra_args: 5 is not a list of strings"),
        ("l3fwd", {"forward_mode": "io"}, r"options.forward_mode: unknown option"),
        ("ovs", {"pmd": "af_xdp"}, r"options.pmd: unknown option"),
        ("linux", {"cpu": True}, r"options.cpu: True is not an integer"),
    ],
)
def test_bad_options_name_the_node_and_key(driver: str, options: dict[str, Any],
                                           message: str) -> None:  # fmt: skip
    with pytest.raises(DutError, match=rf"DUT1 \({driver}\): {message}"):
        make_dut_driver(node(driver, **options), FakeAccess())


def test_port_names_are_checked_before_any_command() -> None:
    access = FakeAccess()
    comma = DutPort("port2", "a,b", None, None, "02:00:00:00:00:01", "1.1.1.1/24", "1.1.1.2",
                    "1.1.2.0/24")  # fmt: skip
    bad = DutTestConfig("l2xc", (PORTS[0], comma))
    with pytest.raises(DutError, match=r"DUT1 \(testpmd\): configure: ports\[1\] \(port2\)"):
        make_dut_driver(node("testpmd"), access).configure(bad)
    assert access.commands == []


# -- testpmd / l3fwd command lines and lifecycle ---------------------------------------


def test_testpmd_lifecycle_commands() -> None:
    access = FakeAccess(log="io packet forwarding - ports=2 - cores=1\n", cpus=2)
    driver = TestpmdDriver(node("testpmd", cpu=3, pmd="af_xdp", memory_mb=256), access)
    driver.configure(L2)
    driver.start()
    driver.health_check()
    argv = next(c for c in access.commands if "dpdk-testpmd" in c)
    assert argv[:6] == ["taskset", "-c", "1", "stdbuf", "-oL", "-eL"]  # 3 % 2 CPUs
    assert argv[7:10] == ["--lcores", "0@1,1@1", "--no-pci"]
    assert argv[12:15] == ["--no-huge", "-m", "256"]
    assert "net_af_xdp0,iface=dut-if1" in argv and "net_af_xdp1,iface=dut-if2" in argv
    assert "--forward-mode=io" in argv and "--eth-peer=1,02:00:00:00:02:01" in argv
    assert "--total-num-mbufs=32768" in argv
    prefix = driver.file_prefix
    assert prefix is not None and prefix.startswith("ndrpdr-dut1-")
    assert ["sysctl", "-qw", "net.ipv4.ip_forward=0"] in access.commands
    access.commands.clear()
    driver.stop()
    assert access.started[0].signals == 1
    assert ["nft", "delete", "table", "netdev", "ndrpdr_dut_sink"] in access.commands
    assert ["ip", "link", "set", "dev", "dut-if1", "xdp", "off"] in access.commands
    assert ["ip", "link", "set", "dev", "dut-if2", "up", "promisc", "off"] in access.commands
    assert ["sysctl", "-qw", "net.ipv4.ip_forward=1"] in access.commands  # as found
    assert ["rm", "-rf", "--", f"/var/run/dpdk/{prefix}"] in access.commands
    assert driver.telemetry()["state"].endswith("stopped")


class TrackingAccess(FakeAccess):
    """A FakeAccess of a local run: records the paths its crash cleanup would remove."""

    def __init__(self, log: str, fail: str) -> None:
        super().__init__(log=log, fail=fail)
        self.tracked: list[str] = []

    def track_path(self, path: str) -> None:
        self.tracked.append(path)


def test_a_dpdk_stop_undoes_every_step_and_names_each_that_failed() -> None:
    access = TrackingAccess(log="io packet forwarding - ports=2 - cores=1\n", fail="promisc")
    driver = TestpmdDriver(node("testpmd"), access)
    driver.configure(L2)
    driver.start()
    prefix = driver.file_prefix
    assert access.tracked == [f"/var/run/dpdk/{prefix}"]  # a crashed local run removes it too
    access.commands.clear()
    with pytest.raises(DutError) as raised:
        driver.stop()
    message = str(raised.value)
    assert message.startswith("DUT1 (testpmd): stop: ")
    assert "set dut-if1 up, promisc off" in message and "set dut-if2 up, promisc off" in message
    assert ["sysctl", "-qw", "net.ipv4.ip_forward=1"] in access.commands  # later steps still ran
    assert access.commands[-1] == ["rm", "-rf", "--", f"/var/run/dpdk/{prefix}"]
    assert driver.pid is None and driver.file_prefix is None


def test_testpmd_picks_mac_forwarding_for_ip4base() -> None:
    driver = TestpmdDriver(node("testpmd"), FakeAccess())
    assert driver.mode_for(IP4) == "mac" and driver.mode_for(L2) == "io"
    assert TestpmdDriver(node("testpmd", forward_mode="io"), FakeAccess()).mode_for(IP4) == "io"


def test_dpdk_start_timeout_stops_the_app_and_quotes_the_log() -> None:
    access = FakeAccess(log="EAL: still thinking\n")
    driver = TestpmdDriver(node("testpmd", start_timeout_s=0.3), access)
    driver.configure(L2)
    with pytest.raises(DutError, match=r"did not start forwarding within 0.3 s; log tail:\nEAL"):
        driver.start()
    assert access.started[0].signals == 1
    assert driver.pid is None


def test_a_failing_kernel_step_names_the_step() -> None:
    access = FakeAccess(fail="-f")
    driver = TestpmdDriver(node("testpmd"), access)
    driver.configure(L2)
    with pytest.raises(DutError, match=r"DUT1 \(testpmd\): add the kernel sink .*exit code 1"):
        driver.start()
    assert access.started == []


def test_l3fwd_command_line_with_a_given_binary() -> None:
    access = FakeAccess(log="L3FWD: entering main loop on lcore 0\n")
    driver = L3fwdDriver(node("l3fwd", binary="/opt/l3fwd"), access)
    driver.configure(IP4)
    driver.start()
    argv = next(c for c in access.commands if "/opt/l3fwd" in c)
    tail = argv[argv.index("--") :]
    assert tail == ["--", "-p", "0x3", "-P", "--lookup=lpm", "--parse-ptype",
                    "--config=(0,0,0),(1,0,0)", "--eth-dest=0,02:00:00:00:01:01",
                    "--eth-dest=1,02:00:00:00:02:01"]  # fmt: skip
    assert "net_af_packet1,iface=dut-if2,framecnt=16384" in argv
    assert not any("pkg-config" in c for c in access.commands)  # no build
    driver.stop()


def test_vdevs_and_sink_ruleset() -> None:
    assert vdev_args("af_packet", ["a", "b"]) == [
        "--vdev", "net_af_packet0,iface=a,framecnt=16384",
        "--vdev", "net_af_packet1,iface=b,framecnt=16384",
    ]  # fmt: skip
    rules = sink_ruleset(["dut-if1", "dut-if2"])
    assert 'hook ingress device "dut-if2" priority 0; policy accept; counter drop;' in rules
    assert strip_ansi("\x1b[2J\x1b[1;1HPort statistics") == "Port statistics"
    assert strip_ansi("a\x07b\r\nc\rd\x1b(B\te\x00") == "ab\nc\nd\te"  # TRex's screen
    cut = bounded_log("a" * 100 + "b" * 100, limit=80)
    assert cut.startswith("a" * 10) and cut.endswith("b" * 70) and "[... 120 characters cut" in cut


# -- ovs flows ------------------------------------------------------------------------


def test_ovs_flows() -> None:
    assert ovs_flows(L2) == ["in_port=1,actions=output:2", "in_port=2,actions=output:1"]
    first, second = ovs_flows(IP4)
    assert first == (
        "priority=100,ip,in_port=1,nw_dst=198.18.1.0/24,actions=mod_dl_src:02:00:00:00:02:02,"
        "mod_dl_dst:02:00:00:00:02:01,dec_ttl,output:2"
    )
    assert "in_port=2,nw_dst=198.18.0.0/24" in second and "output:1" in second


# -- the l3fwd patch ------------------------------------------------------------------

MAIN_C = """\
\t\tlocal_port_conf.rx_adv_conf.rss_conf.rss_hf &=
\t\t\tdev_info.flow_type_rss_offloads;

\t\t\trxq_conf = dev_info.default_rxconf;
\t\t\trxq_conf.offloads = port_conf.rxmode.offloads;
"""


def test_patch_masks_port_and_queue_offloads_once() -> None:
    patched = patch_main_c(MAIN_C)
    assert "\t\tlocal_port_conf.rxmode.offloads &= dev_info.rx_offload_capa;" in patched
    assert "rxq_conf.offloads = port_conf.rxmode.offloads & dev_info.rx_offload_capa;" in patched
    assert patched.count(PATCH_MARK) == 2
    assert patch_main_c(patched) == patched


@pytest.mark.parametrize("text", ["", MAIN_C + MAIN_C, MAIN_C.replace("rxq_conf.", "q.")])
def test_patch_refuses_unexpected_sources(text: str) -> None:
    with pytest.raises(PatchError, match="expected one"):
        patch_main_c(text)


def test_patch_applies_to_the_installed_example() -> None:
    main_c = Path(EXAMPLES_DIR, "l3fwd", "main.c")
    if not main_c.exists():
        pytest.skip("dpdk-doc is not installed")
    assert patch_main_c(main_c.read_text()).count(PATCH_MARK) == 2


# -- the l3fwd build ------------------------------------------------------------------


def test_a_cached_l3fwd_is_reused_without_building() -> None:
    access = FakeAccess()
    access.run_outputs = {"--modversion": "22.11.11\n"}
    binary = ensure_l3fwd(NodeSteps("DUT1", "l3fwd", access), cache_dir="/c")
    assert binary == "/c/l3fwd-22.11.11/l3fwd/build/l3fwd"
    assert not any(c[0] in ("make", "cp") for c in access.commands)


def test_missing_build_packages_are_named() -> None:
    steps = NodeSteps("DUT1", "l3fwd", FakeAccess(fail="--modversion"))
    with pytest.raises(DutError, match=r"DUT1 \(l3fwd\): build l3fwd: pkg-config finds no libdpdk"
                       r".*apt-get install dpdk-doc libdpdk-dev pkg-config make gcc"):  # fmt: skip
        ensure_l3fwd(steps)


def test_missing_examples_are_named() -> None:
    access = FakeAccess(fail="test")  # nothing cached, no examples
    access.run_outputs = {"--modversion": "22.11.11\n"}
    with pytest.raises(DutError, match=r"main.c is missing: apt-get install dpdk-doc"):
        ensure_l3fwd(NodeSteps("DUT1", "l3fwd", access), examples_dir="/nonexistent")
