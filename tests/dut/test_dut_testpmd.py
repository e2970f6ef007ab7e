"""The testpmd DUT driver on the local testbed: AF_PACKET (mac and io forwarding) and AF_XDP."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from dutbed import (
    Bed,
    check_forwarding,
    local_bed,
    pid_alive,
    ports_clean,
    require_local,
)

from ndrpdr.dut.base import DutError, ForwardingMode
from ndrpdr.dut.cores import UnsupportedCoresError
from ndrpdr.dut.dpdk.testpmd import TestpmdDriver

pytestmark = pytest.mark.real  # a real system part: tests/testkinds.py

#: Enough for testpmd's 32768 mbufs and quicker to set up than the default 1024 MiB
#: (one test keeps the default).
FAST_MEMORY_MB = 256


@pytest.fixture(scope="module")
def bed() -> Iterator[Bed]:
    require_local("dpdk-testpmd")
    with local_bed("testpmd") as made:
        yield made


@pytest.fixture(scope="module")
def afxdp_bed() -> Iterator[Bed]:
    require_local("dpdk-testpmd")
    with local_bed("testpmd-afxdp") as made:
        yield made


def run_and_check(bed: Bed, mode: ForwardingMode, **options: object) -> dict[str, str]:
    """configure, start, forward both ways, stop; check nothing is left; the telemetry."""
    driver = bed.driver(**options)
    assert isinstance(driver, TestpmdDriver)
    driver.configure(bed.config(mode))
    driver.start()
    pid, prefix = driver.pid, driver.file_prefix
    assert pid is not None and prefix is not None
    try:
        driver.health_check()
        assert os.path.isdir(f"/var/run/dpdk/{prefix}")
        assert bed.dut_run("sysctl", "-n", "net.ipv4.ip_forward").strip() == "0"
        check_forwarding(bed, mode)
        telemetry = driver.telemetry()
    finally:
        driver.stop()
    assert not pid_alive(pid)
    assert not os.path.exists(f"/var/run/dpdk/{prefix}")
    ports_clean(bed)
    with pytest.raises(DutError, match=r"DUT1 \(testpmd\): health check: testpmd is not running"):
        driver.health_check()
    driver.stop()  # idempotent
    assert set(telemetry) == {"state", "cpu_layout", "log", "ip_link"}
    assert telemetry["cpu_layout"] == (
        f"1 forwarding lcore(s) on cpu {driver.cpu}, 1 RX queue(s) per port"
    )
    assert f"running pid={pid}" in telemetry["state"]
    assert "packet forwarding - ports=2" in telemetry["log"]
    assert "\x1b[" not in telemetry["log"]
    assert '"ifname":"dut-if2"' in telemetry["ip_link"]
    stopped = driver.telemetry()
    assert "Accumulated forward statistics" in stopped["log"]
    return telemetry


def test_af_packet_ip4base_forwards_with_mac_rewrite(bed: Bed) -> None:
    telemetry = run_and_check(bed, "ip4base", forward_mode="mac")
    assert "mac packet forwarding - ports=2" in telemetry["log"]
    assert "peer=02:00:00:00:02:01" in telemetry["log"]


def test_af_packet_l2xc_forwards_untouched(bed: Bed) -> None:
    telemetry = run_and_check(bed, "l2xc", memory_mb=FAST_MEMORY_MB)
    assert "io packet forwarding - ports=2" in telemetry["log"]


def test_the_topology_forward_mode_wins_over_the_mode(bed: Bed) -> None:
    assert bed.dut_node.options.get("forward_mode") == "io"  # local-testpmd.yaml
    telemetry = run_and_check(bed, "ip4base", memory_mb=FAST_MEMORY_MB)
    assert "io packet forwarding - ports=2" in telemetry["log"]


def test_af_xdp_forwards(afxdp_bed: Bed) -> None:
    telemetry = run_and_check(afxdp_bed, "l2xc", memory_mb=FAST_MEMORY_MB)
    assert "pmd=af_xdp" in telemetry["state"]
    assert "xsk_def_prog" in telemetry["ip_link"]


def test_a_port_that_does_not_exist_fails_configure(bed: Bed) -> None:
    config = bed.config("l2xc")
    bad = dataclasses.replace(config.ports[1], name="nosuch1")
    with pytest.raises(DutError, match=r"DUT1 \(testpmd\): check port port2 \(nosuch1\)"):
        bed.driver().configure(dataclasses.replace(config, ports=(config.ports[0], bad)))


def test_a_failing_start_reports_the_log_and_cleans_up(bed: Bed) -> None:
    driver = bed.driver(extra_args=["--no-such-testpmd-option"])
    driver.configure(bed.config("l2xc"))
    with pytest.raises(DutError, match=r"DUT1 \(testpmd\): start testpmd: .*exited") as info:
        driver.start()
    assert "no-such-testpmd-option" in str(info.value)  # the log tail
    ports_clean(bed)
    assert bed.dut_run("sysctl", "-n", "net.ipv4.ip_forward").strip() == "0"


def test_a_missing_binary_fails_start(bed: Bed) -> None:
    driver = bed.driver(binary="/nonexistent/dpdk-testpmd")
    driver.configure(bed.config("l2xc"))
    with pytest.raises(DutError, match=r"DUT1 \(testpmd\): start testpmd"):
        driver.start()
    ports_clean(bed)


def test_two_cores_are_two_forwarding_lcores_on_two_cpus_with_two_queue_pairs(bed: Bed) -> None:
    """worker_cores [1, 0] (CPU 0 shared with the TG: a functional check, not a benchmark)."""
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("needs two CPUs")
    driver = bed.driver(worker_cores=[1, 0], memory_mb=FAST_MEMORY_MB)
    assert isinstance(driver, TestpmdDriver)
    driver.configure(dataclasses.replace(bed.config("l2xc"), cores=2))
    driver.start()
    try:
        tasks = Path(f"/proc/{driver.pid}/task")
        allowed = set()
        for task in tasks.iterdir():  # EAL pins each lcore's thread to its CPU
            status = (task / "status").read_text().splitlines()
            allowed |= {ln.split()[1] for ln in status if ln.startswith("Cpus_allowed_list")}
        assert {"0", "1"} <= allowed, allowed
        check_forwarding(bed, "l2xc")
        telemetry = driver.telemetry()
    finally:
        driver.stop()
    ports_clean(bed)
    assert "io packet forwarding - ports=2 - cores=2 - streams=4" in telemetry["log"], telemetry[
        "log"
    ]
    assert telemetry["cpu_layout"] == "2 forwarding lcore(s) on cpu 1,0, 2 RX queue(s) per port"


def test_more_lcores_than_af_xdp_queues_is_a_skip(afxdp_bed: Bed) -> None:
    """DPDK's af_xdp vdev reads one queue of a veth: 2 lcores cannot be fed, so no run."""
    driver = afxdp_bed.driver(worker_cores=[1, 0], memory_mb=FAST_MEMORY_MB)
    assert isinstance(driver, TestpmdDriver)
    with pytest.raises(UnsupportedCoresError) as caught:
        driver.configure(dataclasses.replace(afxdp_bed.config("l2xc"), cores=2))
    assert str(caught.value) == (
        "DUT1 (testpmd) needs 2 RX queues per port for 2 lcores and dut-if1 has 1 (an AF_XDP "
        "socket reads one kernel queue)"
    )
    assert driver.pid is None
