"""The OVS DUT driver on the local testbed: a private userspace (netdev) datapath."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator

import pytest
from dutbed import Bed, check_forwarding, local_bed, pid_alive, ports_clean, require_local

from ndrpdr.dut.base import DutError, ForwardingMode
from ndrpdr.dut.ovs import OvsDriver

pytestmark = pytest.mark.real  # a real system part: tests/testkinds.py

#: OVS's netdev datapath polls AF_PACKET sockets from its main thread: keep the burst slow.
OVS_PPS = 2000
#: The OVS programs the driver runs.
OVS_TOOLS = ("ovs-vswitchd", "ovsdb-server", "ovsdb-tool", "ovs-vsctl", "ovs-ofctl")


@pytest.fixture(scope="module")
def bed() -> Iterator[Bed]:
    require_local(*OVS_TOOLS)
    with local_bed("ovs") as made:
        yield made


@pytest.mark.parametrize("mode", ["ip4base", "l2xc"])
def test_forwards_both_directions_then_leaves_nothing(bed: Bed, mode: ForwardingMode) -> None:
    driver = bed.driver()
    assert isinstance(driver, OvsDriver)
    driver.configure(bed.config(mode))
    driver.start()
    pids = driver.pids
    state = ""
    try:
        driver.health_check()
        state = driver.telemetry()["state"]
        check_forwarding(bed, mode, pps=OVS_PPS)
        telemetry = driver.telemetry()
    finally:
        driver.stop()
    assert len(pids) == 2
    assert not any(pid_alive(pid) for pid in pids)
    directory = state.split("dir=")[1].split(":")[0]
    assert directory.startswith("/tmp/ndrpdr-ovs-") and not os.path.exists(directory)
    assert "ndrpdr-br" not in bed.dut_run("ip", "link")
    ports_clean(bed)
    with pytest.raises(DutError, match=r"DUT1 \(ovs\): health check: OVS is not running"):
        driver.health_check()
    driver.stop()  # idempotent
    assert {
        "state", "ip_link", "ovs_ports", "ovs_flows", "dpctl_flows",
        "ovsdb-server_log", "ovs-vswitchd_log",
    } <= set(telemetry)  # fmt: skip
    assert "port  1: rx pkts=" in telemetry["ovs_ports"]
    assert "n_packets=1000" in telemetry["ovs_flows"]
    assert "in_port(" in telemetry["dpctl_flows"]
    assert "ovs-vswitchd (Open vSwitch)" in telemetry["ovs-vswitchd_log"]
    if mode == "ip4base":
        assert "mod_dl_dst:02:00:00:00:02:01" in telemetry["ovs_flows"]
        assert "dec_ttl" in telemetry["ovs_flows"]
    stopped = driver.telemetry()
    assert stopped["state"].endswith("stopped") and "ovs-vswitchd_log" in stopped


def test_a_port_that_does_not_exist_fails_configure(bed: Bed) -> None:
    config = bed.config("l2xc")
    bad = dataclasses.replace(config.ports[0], name="nosuch0")
    with pytest.raises(DutError, match=r"DUT1 \(ovs\): check port port1 \(nosuch0\)"):
        bed.driver().configure(dataclasses.replace(config, ports=(bad, config.ports[1])))


def test_a_bad_schema_fails_start_and_cleans_up(bed: Bed) -> None:
    driver = bed.driver(schema="/nonexistent/vswitch.ovsschema")
    driver.configure(bed.config("l2xc"))
    with pytest.raises(DutError, match=r"DUT1 \(ovs\): create the OVS database"):
        driver.start()
    ports_clean(bed)
