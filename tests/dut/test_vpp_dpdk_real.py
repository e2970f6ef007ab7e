"""The vpp driver's dpdk_vdev ports against the real VPP v26.06 and its DPDK plugin.

Real parts only: VPP from /opt/vpp/v26.06 (``../shared/vpp/install``) runs
in the DUT namespace of topologies/local-vpp-dpdk.yaml with the ``dpdk``
section the lab's writer makes (``dev default``, here ``vdev
net_af_xdp0,iface=dut-if1`` ... instead of ``dev <pci>``), and forwards
real frames from tcpreplay through ``dpdk-input``. Skipped without VPP,
root or the local testbed's tools, unless NDRPDR_REQUIRE_VPP=1 (then they
fail).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator

import pytest
from dutbed import Bed, check_forwarding, local_bed, pid_alive
from test_vpp_real import close_clean, require_vpp

from ndrpdr.dut.dpdk.eal import DPDK_RUNTIME_ROOT
from ndrpdr.dut.vpp.driver import VppDriver
from ndrpdr.dut.vpp.vdev import hardware_devargs

pytestmark = pytest.mark.real  # a real system part: tests/testkinds.py

#: What each poll mode driver's device arguments add to ``iface=`` (one queue pair).
QUEUE_ARGS = {"af_xdp": "", "af_packet": ",framecnt=16384"}


@pytest.fixture(scope="module")
def bed() -> Iterator[Bed]:
    require_vpp()
    with local_bed("vpp-dpdk") as made:
        yield made


@pytest.mark.parametrize(
    ("vdev", "pmd"), [("af_xdp", "net_af_xdp"), ("af_packet", "net_af_packet")]
)
def test_dpdk_vdev_ports_are_dpdk_ports_and_forward(bed: Bed, vdev: str, pmd: str) -> None:
    """1c ip4base, then l2xc in a fresh VPP: the DPDK plugin's ports on the veths forward
    every frame, show hardware shows them as DPDK ports, and nothing is left."""
    driver = bed.driver(vdev=vdev)
    assert isinstance(driver, VppDriver)
    try:
        driver.configure(dataclasses.replace(bed.config("ip4base"), cores=1))
        driver.start()
        driver.health_check()
        conf = driver.startup_conf_text
        assert f"  vdev {pmd}0,iface=dut-if1" in conf and "  dev default {" in conf, conf
        plugins = driver.run_cli("show plugins")
        assert "dpdk_plugin.so" in plugins and "af_packet_plugin.so" not in plugins
        check_forwarding(bed, "ip4base")
        telemetry = driver.telemetry()
        hardware = telemetry["show_hardware"]
        ports = bed.config("ip4base").ports
        assert hardware_devargs(hardware) == {  # Devargs: only a DPDK port has them
            "Ethernet0": (f"iface=dut-if1{QUEUE_ARGS[vdev]}", str(ports[0].mac).lower()),
            "Ethernet1": (f"iface=dut-if2{QUEUE_ARGS[vdev]}", str(ports[1].mac).lower()),
        }, hardware
        assert "rx: queues 1" in hardware and "desc 1024" in hardware, hardware
        eal = telemetry["show_dpdk_version"]
        assert f"--vdev {pmd}0,iface=dut-if1" in eal and "--no-pci" in eal, eal
        assert "--no-huge" in eal and f"--file-prefix {driver._file_prefix}" in eal, eal
        runtime = telemetry["show_runtime"]
        assert "dpdk-input" in runtime and "Ethernet1-tx" in runtime, runtime
        assert "ip4-rewrite" in runtime and "Thread 1 vpp_wk_0" in runtime, runtime
        assert "Ethernet0 queue 0 (polling)" in telemetry["show_rx_placement"]
        first = driver.pid
        assert first is not None
        driver.stop()  # the ports exist from VPP's start: each test has a VPP of its own
        assert not pid_alive(first)
        assert "xdp" not in bed.dut_run("ip", "-d", "link", "show", "dut-if1")
        driver.configure(bed.config("l2xc"))
        driver.start()
        driver.health_check()
        assert driver.pid not in (None, first)
        check_forwarding(bed, "l2xc")
        runtime = driver.telemetry()["show_runtime"]
        assert "dpdk-input" in runtime and "l2-output" in runtime and "ip4-rewrite" not in runtime
    finally:
        close_clean(bed, driver)
    # only this driver's DPDK runtime directory: another run's may come and go meanwhile
    assert driver._file_prefix is not None
    assert not os.path.exists(f"{DPDK_RUNTIME_ROOT}/{driver._file_prefix}")
