"""The linux DUT driver on the local testbed: kernel IPv4 forwarding and a tc cross-connect."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import pytest
from dutbed import Bed, check_forwarding, local_bed, require_local

from ndrpdr.dut.base import DutError, ForwardingMode

pytestmark = pytest.mark.real  # a real system part: tests/testkinds.py


@pytest.fixture(scope="module")
def bed() -> Iterator[Bed]:
    require_local()
    with local_bed("linux") as made:
        yield made


@pytest.mark.parametrize("mode", ["ip4base", "l2xc"])
def test_forwards_both_directions_then_undoes_everything(bed: Bed, mode: ForwardingMode) -> None:
    driver = bed.driver()
    driver.configure(bed.config(mode))
    driver.start()
    try:
        driver.health_check()
        check_forwarding(bed, mode)
        telemetry = driver.telemetry()
    finally:
        driver.stop()
    assert {"state", "ip_link", "ip_route", "ip_neigh", "snmp_ip", "nstat", "tc"} <= set(telemetry)
    assert '"ifname":"dut-if1"' in telemetry["ip_link"]
    if mode == "ip4base":
        assert "198.18.1.0/24 via 192.168.20.2 dev dut-if2" in telemetry["ip_route"]
        neighbour = "192.168.10.2 dev dut-if1 lladdr 02:00:00:00:01:01 PERMANENT"
        assert neighbour in telemetry["ip_neigh"]
        assert "ForwDatagrams" in telemetry["snmp_ip"]
        assert "IpForwDatagrams" in telemetry["nstat"]
    else:
        assert "mirred" in telemetry["tc"] and "dut-if2" in telemetry["tc"]
    with pytest.raises(DutError, match=r"DUT1 \(linux\): health check"):
        driver.health_check()
    assert "198.18" not in bed.dut_run("ip", "route")
    assert "PERMANENT" not in bed.dut_run("ip", "neigh")
    assert "inet " not in bed.dut_run("ip", "addr", "show", "dev", "dut-if1")
    assert bed.dut_run("tc", "filter", "show", "dev", "dut-if1", "ingress").strip() == ""
    assert bed.dut_run("sysctl", "-n", "net.ipv4.ip_forward").strip() == "0"
    driver.stop()  # idempotent


def test_link_flap_is_caught_and_a_restart_repairs_it(bed: Bed) -> None:
    """A DPDK app on the same ports sets them down and up: neighbours and routes go."""
    driver = bed.driver()
    driver.configure(bed.config("ip4base"))
    driver.start()
    try:
        for name in ("dut-if1", "dut-if2"):
            bed.dut_run("ip", "link", "set", "dev", name, "down")
            bed.dut_run("ip", "link", "set", "dev", name, "up")
        with pytest.raises(DutError, match=r"DUT1 \(linux\): health check: (no route|neighbour)"):
            driver.health_check()
        driver.stop()
        driver.start()
        driver.health_check()
        check_forwarding(bed, "ip4base")
    finally:
        driver.stop()


def test_a_port_that_does_not_exist_fails_configure(bed: Bed) -> None:
    config = bed.config("ip4base")
    bad = dataclasses.replace(config.ports[0], name="nosuch0")
    driver = bed.driver()
    with pytest.raises(DutError, match=r"DUT1 \(linux\): check port port1 \(nosuch0\)") as info:
        driver.configure(dataclasses.replace(config, ports=(bad, config.ports[1])))
    assert "does not exist" in str(info.value)
    with pytest.raises(DutError, match="configure\\(\\) was not called"):
        driver.start()


def test_a_bad_address_fails_configure(bed: Bed) -> None:
    config = bed.config("ip4base")
    bad = dataclasses.replace(config.ports[1], routed_prefix="198.18.1.0/33")
    with pytest.raises(DutError, match=r"DUT1 \(linux\): configure: ports\[1\] \(port2\)"):
        bed.driver().configure(dataclasses.replace(config, ports=(config.ports[0], bad)))
