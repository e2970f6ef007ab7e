"""The vpp driver against the real VPP v26.06 on af_packet (and af_xdp) ports of the local testbed.

Real parts only: VPP from /opt/vpp/v26.06 (``../shared/vpp/install``) runs
in the DUT namespace of topologies/local-vpp.yaml, reads the startup.conf
the driver wrote, takes every vppctl command, and forwards real frames
from tcpreplay in the TG namespace. Skipped without VPP, root or the
local testbed's tools, unless NDRPDR_REQUIRE_VPP=1 (then they fail).
The stand-in tests (``test_vpp_driver.py``, ``test_vpp_config.py``) keep
only what cannot run here: VPP's DPDK plugin on PCI NICs, systemd.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from dutbed import (
    BURST,
    Bed,
    check_forwarding,
    local_bed,
    local_topology,
    pid_alive,
    ports_clean,
    require_local,
)

from ndrpdr.dut.base import DutError
from ndrpdr.dut.cores import UnsupportedCoresError
from ndrpdr.dut.vpp.driver import VppDriver
from ndrpdr.localbed import LocalTestbed
from vpp_build import vpp_problem

pytestmark = pytest.mark.real  # a real system part: tests/testkinds.py


def require_vpp() -> None:
    """Skip (or fail, with NDRPDR_REQUIRE_VPP=1) unless VPP is installed; then the bed's needs."""
    text = vpp_problem()
    if text is not None:
        if os.environ.get("NDRPDR_REQUIRE_VPP") == "1":
            pytest.fail(f"NDRPDR_REQUIRE_VPP=1 but {text}")
        pytest.skip(text)
    require_local()


@pytest.fixture(scope="module")
def bed() -> Iterator[Bed]:
    require_vpp()
    with local_bed("vpp") as made:
        yield made


def close_clean(bed: Bed, driver: VppDriver) -> None:
    """Close the driver; its VPP, run directory, shared memory and port set-up must be gone."""
    pid, run_dir = driver.pid, driver.run_dir
    driver.close()
    assert run_dir is not None and not os.path.exists(run_dir)
    assert pid is None or not pid_alive(pid)
    prefix = os.path.basename(run_dir)
    assert [p for p in os.listdir("/dev/shm") if p.startswith(prefix)] == []
    ports_clean(bed)


@pytest.fixture
def vpp(bed: Bed) -> Iterator[VppDriver]:
    """A driver of the bed's DUT; closed (and checked to leave nothing) after the test."""
    driver = bed.driver()
    assert isinstance(driver, VppDriver)
    try:
        yield driver
    finally:
        close_clean(bed, driver)


@pytest.fixture
def vpp_xdp(bed: Bed) -> Iterator[VppDriver]:
    """As ``vpp``, with the ports opened through VPP's af_xdp plugin."""
    driver = bed.driver(port_kind="af_xdp")
    assert isinstance(driver, VppDriver)
    try:
        yield driver
    finally:
        close_clean(bed, driver)


def test_vpp_takes_the_startup_conf_and_forwards_both_modes_in_one_process(
    bed: Bed, vpp: VppDriver
) -> None:
    vpp.configure(bed.config("ip4base"))
    vpp.start()
    vpp.health_check()
    pid, run_dir = vpp.pid, vpp.run_dir
    assert pid is not None and run_dir is not None and pid_alive(pid)
    # VPP itself read the startup.conf: its sockets, log and PID file are where it says.
    for name in ("cli.sock", "api.sock", "stats.sock", "vpp.log", "vpp.pid"):
        assert os.path.exists(f"{run_dir}/{name}"), name
    assert Path(f"{run_dir}/vpp.pid").read_text().strip() == str(pid)
    assert vpp.run_cli("show version").startswith("vpp v26.06")
    plugins = vpp.run_cli("show plugins")
    assert "af_packet_plugin.so" in plugins and "dpdk_plugin.so" not in plugins
    assert "main" in vpp.run_cli("show threads") and "1" in vpp.run_cli("show threads")
    # ip4base: the command list took effect (addresses, static neighbours, routes).
    neighbours = vpp.run_cli("show ip neighbors")
    for port in bed.config("ip4base").ports:
        assert port.peer_mac.lower() in neighbours
        assert port.routed_prefix in vpp.run_cli(f"show ip fib {port.routed_prefix}")
    check_forwarding(bed, "ip4base")
    telemetry = vpp.telemetry()
    assert "af-packet-input" in telemetry["show_runtime"]
    assert "ip4-rewrite" in telemetry["show_runtime"]
    assert "host-dut-if1" in telemetry["show_interface"]
    assert "Linux PACKET socket interface" in telemetry["show_hardware"]
    # The next test's configuration: same VPP process, interfaces made again.
    vpp.stop()
    assert pid_alive(pid) and "host-dut-if1" not in vpp.run_cli("show interface")
    vpp.configure(bed.config("l2xc"))
    vpp.start()
    vpp.health_check()
    assert vpp.pid == pid
    assert "l2 xconnect" in vpp.run_cli("show mode host-dut-if1")
    check_forwarding(bed, "l2xc")
    runtime = vpp.telemetry()["show_runtime"]
    assert "l2-output" in runtime and "ip4-rewrite" not in runtime  # counters of this test only


def test_af_xdp_ports_forward_both_modes(bed: Bed, vpp_xdp: VppDriver) -> None:
    """The same ports through AF_XDP sockets (libxdp's program, generic mode on veths)."""
    vpp_xdp.configure(bed.config("ip4base"))
    vpp_xdp.start()
    vpp_xdp.health_check()
    plugins = vpp_xdp.run_cli("show plugins")
    assert "af_xdp_plugin.so" in plugins and "af_packet_plugin.so" not in plugins
    hardware = vpp_xdp.run_cli("show hardware-interfaces host-dut-if1")
    assert "netdev dut-if1" in hardware, hardware  # an af_xdp interface on the veth
    assert bed.config("ip4base").ports[0].mac.lower() in hardware.lower(), hardware
    check_forwarding(bed, "ip4base")
    assert "af_xdp-input" in vpp_xdp.telemetry()["show_runtime"]
    vpp_xdp.stop()
    assert "host-dut-if1" not in vpp_xdp.run_cli("show interface")
    vpp_xdp.configure(bed.config("l2xc"))
    vpp_xdp.start()
    check_forwarding(bed, "l2xc")
    runtime = vpp_xdp.telemetry()["show_runtime"]
    assert "af_xdp-input" in runtime and "l2-output" in runtime


def test_a_bad_command_is_reported_with_vpps_own_message(bed: Bed, vpp: VppDriver) -> None:
    vpp.configure(bed.config("l2xc"))
    vpp.start()
    vpp.health_check()
    for command, said in (
        ("set interface state host-nosuch up", "unknown interface `host-nosuch up'"),
        ("show interfaz", "unknown input `interfaz'"),
        ("ip route add 198.18.9.0/24 via 1.2.3.4 host-zz", "ip route: parse error"),
        ("set interface ip address host-dut-if1 10.0.0.1/33", "wrong length"),
    ):
        with pytest.raises(DutError) as caught:
            vpp.run_cli(command)
        message = str(caught.value)
        assert message.startswith(f"DUT1 (vpp): cli `{command}`: VPP says: "), message
        assert said in message and "exited 0" in message  # vppctl exits 0: the text tells


def _started_pid(bed: Bed, vpp: VppDriver) -> int:
    """Configure ip4base, start VPP and check it; its pid."""
    vpp.configure(bed.config("ip4base"))
    vpp.start()
    vpp.health_check()
    pid = vpp.pid
    assert pid is not None
    return pid


def test_a_dead_vpp_is_named_restarted_once_then_refused(bed: Bed, vpp: VppDriver) -> None:
    first = _started_pid(bed, vpp)
    os.kill(first, signal.SIGKILL)
    _wait_gone(first)
    with pytest.raises(DutError) as caught:
        vpp.health_check()
    assert f"(pid {first}) has exited, killed by SIGKILL" in str(caught.value)
    assert str(caught.value).startswith("DUT1 (vpp): health check: /opt/vpp/v26.06/bin/vpp")
    # The next test: started once more, saying so with the log tail.
    vpp.stop()
    vpp.configure(bed.config("ip4base"))
    vpp.start()
    vpp.health_check()
    second = vpp.pid
    assert second is not None and second != first and pid_alive(second)
    assert len(vpp.notes) == 1 and f"(pid {first}) had exited, killed by SIGKILL" in vpp.notes[0]
    assert "VPP log tail" in vpp.notes[0] and vpp.telemetry()["notes"] == vpp.notes[0]
    check_forwarding(bed, "ip4base")
    os.kill(second, signal.SIGKILL)
    _wait_gone(second)
    vpp.stop()
    with pytest.raises(DutError, match=r"not started again: it was restarted 1 time"):
        vpp.configure(bed.config("ip4base"))


def test_a_frozen_vpp_is_named_at_once_and_the_next_test_gets_a_fresh_one(
    bed: Bed, vpp: VppDriver
) -> None:
    """SIGSTOP: the health check names it, telemetry and stop ask no vppctl (each would wait
    out its timeout), and the next test's VPP is a new process that forwards."""
    frozen = _started_pid(bed, vpp)
    os.kill(frozen, signal.SIGSTOP)
    started = time.monotonic()
    while Path(f"/proc/{frozen}/stat").read_text().rsplit(")", 1)[1].split()[0] != "T":
        assert time.monotonic() - started < 5.0, "VPP did not stop"  # signals land async
        time.sleep(0.01)
    with pytest.raises(DutError) as caught:
        vpp.health_check()
    assert f"(pid {frozen}) is stopped (SIGSTOP), state T: alive but forwarding nothing" in str(
        caught.value
    )
    telemetry = vpp.telemetry()
    assert telemetry["cli"] == (
        f"not asked: /opt/vpp/v26.06/bin/vpp (pid {frozen}) is stopped (SIGSTOP, state T)"
    )
    assert "show_runtime" not in telemetry
    vpp.stop()
    took = time.monotonic() - started
    assert took < 5.0, took  # vppctl's timeout is 30 s per command
    assert not pid_alive(frozen)
    vpp.configure(bed.config("ip4base"))
    vpp.start()
    vpp.health_check()
    assert vpp.pid not in (None, frozen)
    check_forwarding(bed, "ip4base")


def test_a_host_link_down_and_a_vpp_port_down_are_named(bed: Bed, vpp: VppDriver) -> None:
    """VPP says link up over a Linux link that is down: the health check reads the host link
    too (ndrpdr.dut.vpp.health); a VPP interface set admin down is named as well."""
    _started_pid(bed, vpp)
    bed.dut_run("ip", "link", "set", "dut-if2", "down")
    try:
        with pytest.raises(DutError) as caught:
            vpp.health_check()
    finally:
        bed.dut_run("ip", "link", "set", "dut-if2", "up")
    message = str(caught.value)
    assert message.startswith(
        "DUT1 (vpp): health check: host link dut-if2 under VPP's host-dut-if2 is down "
        "(operstate DOWN"
    ), message
    assert "VPP itself says link up" in message
    vpp.health_check()  # up again: nothing to say
    vpp.run_cli("set interface state host-dut-if1 down")
    with pytest.raises(DutError) as caught:
        vpp.health_check()
    assert str(caught.value) == (
        "DUT1 (vpp): health check: VPP interface host-dut-if1 (on host link dut-if1) is admin "
        "down (show interface): set interface state host-dut-if1 up, and check what set it down"
    )


def test_ports_that_do_not_exist_are_named_before_vpp_starts(bed: Bed, vpp: VppDriver) -> None:
    config = bed.config("ip4base")
    port = config.ports[0]
    bad = type(config)(
        mode=config.mode,
        ports=(type(port)(**{**port.__dict__, "name": "dut-nosuch"}), config.ports[1]),
    )
    with pytest.raises(DutError, match=r"check port port1 \(dut-nosuch\)"):
        vpp.configure(bad)
    assert vpp.pid is None


def _wait_gone(pid: int) -> None:
    deadline = time.monotonic() + 5.0
    while pid_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not pid_alive(pid)


def test_a_startup_conf_vpp_refuses_is_reported_with_its_output(bed: Bed) -> None:
    driver = bed.driver(cpu=97)  # no such CPU here: VPP itself refuses the cpu section
    assert isinstance(driver, VppDriver)
    try:
        driver.configure(bed.config("ip4base"))
        driver.start()
        with pytest.raises(DutError) as caught:
            driver.health_check()
    finally:
        driver.close()
    message = str(caught.value)
    assert message.startswith("DUT1 (vpp): health check: /opt/vpp/v26.06/bin/vpp (pid ")
    assert "has exited" in message and "97" in message, message
    ports_clean(bed)


def _thread_vectors(runtime: str, thread: str, node: str) -> int:
    """Vectors ``node`` handled on ``thread`` ("vpp_wk_0") in a ``show runtime`` text."""
    current = ""
    for line in runtime.splitlines():
        if line.startswith("Thread "):
            current = line.split()[2]
            continue
        words = line.split()
        if current == thread and words and words[0] == node and len(words) >= 4:
            return int(words[3])  # Name State Calls Vectors ... (a node's state is one word)
    return 0


def test_one_core_is_a_worker_that_reads_every_rx_queue_and_forwards(
    bed: Bed, vpp: VppDriver
) -> None:
    """1c: the main thread on CPU 0 (with the TG), the worker on CPU 1 reads both ports' queues."""
    config = dataclasses.replace(bed.config("ip4base"), cores=1)
    vpp.configure(config)
    vpp.start()
    vpp.health_check()
    threads = vpp.run_cli("show threads")
    rows = [line.split() for line in threads.splitlines()[1:] if line.strip()]  # lcore is [-3]
    assert [(row[1], row[-3]) for row in rows] == [("vpp_main", "0"), ("vpp_wk_0", "1")], threads
    placement = vpp.run_cli("show interface rx-placement")
    assert "Thread 0" not in placement and "Thread 1 (vpp_wk_0):" in placement, placement
    for name in ("host-dut-if1", "host-dut-if2"):
        assert f"{name} queue 0 (polling)" in placement, placement
    check_forwarding(bed, "ip4base")
    telemetry = vpp.telemetry()
    runtime = telemetry["show_runtime"]
    assert _thread_vectors(runtime, "vpp_wk_0", "af-packet-input") >= 2 * BURST, runtime
    assert _thread_vectors(runtime, "vpp_wk_0", "ip4-rewrite") >= 2 * BURST, runtime
    assert _thread_vectors(runtime, "vpp_main", "af-packet-input") == 0, runtime
    assert telemetry["cpu_layout"] == (
        "main thread on cpu 0, 1 worker(s) on cpu 1 (1 RX queue(s) per port)"
    )
    assert telemetry["show_rx_placement"] == placement.replace("\r\n", "\n")  # vppctl's CRLF


def test_two_rx_queues_per_port_share_the_flows(bed: Bed) -> None:
    """rx_queues 2: two af_packet sockets per port in a fanout group; the worker reads all four."""
    driver = bed.driver(rx_queues=2)
    assert isinstance(driver, VppDriver)
    try:
        driver.configure(dataclasses.replace(bed.config("l2xc"), cores=1))
        driver.start()
        driver.health_check()
        placement = driver.run_cli("show interface rx-placement")
        worker = placement.split("Thread 1 (vpp_wk_0):")[1]
        for name in ("host-dut-if1", "host-dut-if2"):
            for queue in (0, 1):
                assert f"{name} queue {queue} (polling)" in worker, placement
        assert "fanout-enabled" in driver.run_cli("show hardware-interfaces host-dut-if1")
        check_forwarding(bed, "l2xc")
    finally:
        close_clean(bed, driver)


@pytest.fixture
def two_queue_bed() -> Iterator[Bed]:
    """The vpp bed with rx_queues 2 in the DUT's options: its veths get 2 queues each."""
    require_vpp()
    topology = local_topology("vpp")
    node = topology.duts[0]
    options = {**node.options, "rx_queues": 2, "port_kind": "af_xdp"}
    nodes = {**topology.nodes, node.key: dataclasses.replace(node, options=options)}
    topology = dataclasses.replace(topology, nodes=nodes)
    with LocalTestbed(topology) as testbed, tempfile.TemporaryDirectory() as scratch:
        yield Bed(topology, testbed, Path(scratch))


def test_af_xdp_opens_a_socket_per_veth_queue_and_the_flows_use_both(two_queue_bed: Bed) -> None:
    """rx_queues 2: the local testbed makes 2-queue veths, VPP an AF_XDP socket per queue,
    and the TG's varied flows, hashed over its veth's TX queues, reach both."""
    require_local("ethtool")
    bed = two_queue_bed
    driver = bed.driver()
    assert isinstance(driver, VppDriver)
    try:
        driver.configure(bed.config("ip4base"))
        driver.start()
        driver.health_check()
        placement = driver.run_cli("show interface rx-placement")
        for name in ("host-dut-if1", "host-dut-if2"):
            for queue in (0, 1):
                assert f"{name} queue {queue} (polling)" in placement, placement
        check_forwarding(bed, "ip4base")
        stats = bed.dut_run("ethtool", "-S", "dut-if1")
    finally:
        close_clean(bed, driver)
    per_queue = [_stat(stats, f"rx_queue_{queue}_xdp_redirect") for queue in (0, 1)]
    assert sum(per_queue) >= BURST and min(per_queue) >= BURST // 10, stats


def _stat(text: str, name: str) -> int:
    """The value of ``name`` in ``ethtool -S`` output (0 when absent)."""
    for line in text.splitlines():
        key, _, value = line.strip().partition(":")
        if key == name:
            return int(value)
    return 0


def test_more_af_xdp_queues_than_the_veth_has_is_a_skip(bed: Bed) -> None:
    """The bed's veths have one queue: 2 AF_XDP queues per port cannot be had, so no run."""
    driver = bed.driver(port_kind="af_xdp", rx_queues=2)
    assert isinstance(driver, VppDriver)
    try:
        with pytest.raises(UnsupportedCoresError) as caught:
            driver.configure(bed.config("ip4base"))
    finally:
        driver.close()
    assert str(caught.value) == (
        "DUT1 (vpp) needs 2 RX queues per port for 1 workers and dut-if1 has 1 (an AF_XDP "
        "socket reads one kernel queue)"
    )
    assert driver.pid is None
