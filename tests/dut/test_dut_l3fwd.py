"""The l3fwd DUT driver on the local testbed (built from Debian's dpdk-doc on first use)."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from dutbed import Bed, check_forwarding, local_bed, pid_alive, ports_clean, require_local

from ndrpdr.dut.base import DutError
from ndrpdr.dut.dpdk.l3fwd import L3fwdDriver
from ndrpdr.dut.dpdk.l3fwd_build import EXAMPLES_DIR

pytestmark = pytest.mark.real  # a real system part: tests/testkinds.py


def require_l3fwd() -> None:
    """Skip unless the local testbed's needs, a C toolchain and DPDK's l3fwd sources are here."""
    require_local("pkg-config", "make", "cc")
    if not Path(EXAMPLES_DIR, "l3fwd", "main.c").exists():
        pytest.skip(f"{EXAMPLES_DIR}/l3fwd is missing: apt-get install dpdk-doc")


@pytest.fixture(scope="module")
def bed() -> Iterator[Bed]:
    require_l3fwd()
    with local_bed("l3fwd") as made:
        yield made


def test_routes_both_directions_then_leaves_nothing(bed: Bed) -> None:
    driver = bed.driver()
    assert isinstance(driver, L3fwdDriver)
    driver.configure(bed.config("ip4base"))
    driver.start()
    pid, prefix = driver.pid, driver.file_prefix
    assert pid is not None and prefix is not None
    try:
        driver.health_check()
        check_forwarding(bed, "ip4base")
        telemetry = driver.telemetry()
    finally:
        driver.stop()
    assert driver.binary.startswith("/var/cache/ndrpdr/l3fwd-")
    assert not pid_alive(pid)
    assert not os.path.exists(f"/var/run/dpdk/{prefix}")
    ports_clean(bed)
    with pytest.raises(DutError, match=r"DUT1 \(l3fwd\): health check: l3fwd is not running"):
        driver.health_check()
    assert set(telemetry) == {"state", "cpu_layout", "log", "ip_link"}
    assert telemetry["cpu_layout"] == (
        f"1 forwarding lcore(s) on cpu {driver.cpu}, 1 RX queue(s) per port"
    )
    assert "LPM: Adding route 198.18.1.0 / 24 (1)" in telemetry["log"]
    assert "Destination:02:00:00:00:02:01" in telemetry["log"]
    assert "entering main loop on lcore 0" in telemetry["log"]


def test_l2xc_is_refused(bed: Bed) -> None:
    with pytest.raises(DutError, match=r"DUT1 \(l3fwd\): configure: l3fwd only routes"):
        bed.driver().configure(bed.config("l2xc"))


def test_a_prefix_outside_the_builtin_routes_is_refused(bed: Bed) -> None:
    config = bed.config("ip4base")
    bad = dataclasses.replace(config.ports[0], routed_prefix="10.0.0.0/8")
    with pytest.raises(DutError, match=r"outside l3fwd's built-in route 198.18.0.0/24"):
        bed.driver().configure(dataclasses.replace(config, ports=(bad, config.ports[1])))


def test_a_port_that_does_not_exist_fails_configure(bed: Bed) -> None:
    config = bed.config("ip4base")
    bad = dataclasses.replace(config.ports[0], name="nosuch0")
    with pytest.raises(DutError, match=r"DUT1 \(l3fwd\): check port port1 \(nosuch0\)"):
        bed.driver().configure(dataclasses.replace(config, ports=(bad, config.ports[1])))
