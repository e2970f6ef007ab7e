"""VPP's dpdk startup section, written by one writer for the lab's NICs and for vdevs on veths.

``port_kind: dpdk`` (a lab: ``dev <pci> { name ... }``) and ``port_kind:
dpdk_vdev`` (``vdev net_af_xdp0,iface=...`` with no PCI and no hugepages)
share ``dev default`` (RX queues per worker, descriptors). The vdev form's
whole startup.conf is checked against ``expected/vpp_startup_dpdk_vdev_1c.conf``,
written and reviewed by hand against VPP v26.06's ``dpdk_config``
(``src/plugins/dpdk/device/init.c``); ``test_vpp_dpdk_real.py`` runs it.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

import pytest
from test_vpp_cores import node as cores_node

from example_topologies import filled
from ndrpdr.dut.base import DutError, DutTestConfig
from ndrpdr.dut.plan import plan_dut
from ndrpdr.dut.vpp.afpacket import VppRunPaths
from ndrpdr.dut.vpp.config import parse_options
from ndrpdr.dut.vpp.driver import DESCRIPTION
from ndrpdr.dut.vpp.startup import startup_conf
from ndrpdr.dut.vpp.vdev import hardware_devargs, hardware_problem, interface_names
from ndrpdr.dut.vpp.vdev import startup_conf as vdev_startup_conf
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.model import Node, Topology

ROOT = Path(__file__).resolve().parents[2]
EXPECTED = Path(__file__).resolve().parent / "expected"
LOCAL = load_topology(ROOT / "topologies" / "local-vpp-dpdk.yaml")
CSIT = load_topology(filled("csit-2n-example.yaml"))
PATHS = VppRunPaths("/tmp/ndrpdr-vpp-dut1-0a1b2c3d")
PREFIX = "ndrpdr-dut1-0a1b2c3d"


def node(topology: Topology = LOCAL, **options: Any) -> Node:
    """The topology's DUT with ``options`` added."""
    return cores_node(topology, **options)


def dpdk_section(text: str) -> list[str]:
    """The lines of startup.conf's dpdk section, without its braces."""
    lines = text.splitlines()
    start = lines.index("dpdk {")
    return lines[start + 1 : lines.index("}", start)]


def vdev_conf(config: DutTestConfig, queues: int = 1, **options: Any) -> str:
    dut = node(**options)
    return vdev_startup_conf(
        dut, config, parse_options(dut), PATHS, file_prefix=PREFIX, queues=queues
    )


def test_vdev_startup_conf_matches_the_expected_file() -> None:
    config = dataclasses.replace(plan_dut(LOCAL, "ip4base"), cores=1)
    text = vdev_conf(config)
    assert text == (EXPECTED / "vpp_startup_dpdk_vdev_1c.conf").read_text()


@pytest.mark.parametrize(
    ("vdev", "queues", "lines"),
    [
        ("af_xdp", 1, ["vdev net_af_xdp0,iface=dut-if1", "vdev net_af_xdp1,iface=dut-if2"]),
        ("af_xdp", 2, ["vdev net_af_xdp0,iface=dut-if1,queue_count=2",
                       "vdev net_af_xdp1,iface=dut-if2,queue_count=2"]),
        ("af_packet", 1, ["vdev net_af_packet0,iface=dut-if1,framecnt=16384",
                          "vdev net_af_packet1,iface=dut-if2,framecnt=16384"]),
        ("af_packet", 2, ["vdev net_af_packet0,iface=dut-if1,framecnt=16384,qpairs=2",
                          "vdev net_af_packet1,iface=dut-if2,framecnt=16384,qpairs=2"]),
    ],
)  # fmt: skip
def test_each_port_is_a_vdev_of_the_chosen_pmd_with_its_queues(
    vdev: str, queues: int, lines: list[str]
) -> None:
    section = [
        line.strip() for line in dpdk_section(vdev_conf(plan_dut(LOCAL, "l2xc"), queues, vdev=vdev))
    ]
    assert section[:3] == ["no-hugetlb", "no-pci", f"file-prefix {PREFIX}"]
    assert section[-2:] == lines
    assert f"num-rx-queues {queues}" in section
    assert not [line for line in section if line.startswith("dev 0")]  # no PCI device


def test_lab_and_vdev_forms_share_dev_default_with_queues_and_descriptors() -> None:
    """The same writer: dev default { num-rx-queues, num-rx-desc, num-tx-desc } in both."""
    descriptors = {"rx_descriptors": 2048, "tx_descriptors": 512}
    lab_node = node(CSIT, **descriptors)
    lab = dpdk_section(
        startup_conf(lab_node, plan_dut(CSIT, "l2xc", cores=2), parse_options(lab_node))
    )
    vdev = dpdk_section(vdev_conf(plan_dut(LOCAL, "l2xc"), 2, **descriptors))
    default = [
        "  dev default {",
        "    num-rx-queues 2",
        "    num-rx-desc 2048",
        "    num-tx-desc 512",
        "  }",
    ]
    for section in (lab, vdev):
        start = section.index("  dev default {")
        assert section[start : start + 5] == default
    assert "  dev 0000:17:00.0 {" in lab and "    name port1" in lab
    assert not [line for line in lab if "vdev" in line or "no-pci" in line]
    assert "  no-multi-seg" in lab and "  no-multi-seg" in vdev


def test_vdev_startup_loads_the_dpdk_plugin_and_not_the_af_packet_one() -> None:
    text = vdev_conf(plan_dut(LOCAL, "l2xc"), plugins=["ping"])
    plugins = text[text.index("plugins {") :]
    assert "plugin dpdk_plugin.so { enable }" in plugins
    assert "disable" not in plugins.replace("plugin default { disable }", "")
    assert "af_packet_plugin.so" not in plugins and "ping_plugin.so { enable }" in plugins
    assert "page-size 4k" in text and "main-heap-page-size 4k" in text  # no hugepages


def test_the_vdev_pmd_gives_the_drv_tag() -> None:
    assert DESCRIPTION.port_driver is not None
    assert DESCRIPTION.port_driver(node()) == "af_xdp"
    assert DESCRIPTION.port_driver(node(vdev="af_packet")) == "af_packet"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"vdev": "af_unix"}, r"options\.vdev: 'af_unix' is not one of af_xdp, af_packet"),
        ({"rx_descriptors": 0}, r"options\.rx_descriptors: 0 is not an integer >= 1"),
        ({"service": "systemd"}, r"options\.service: 'systemd': with port_kind dpdk_vdev"),
        (
            {"rx_mode": "interrupt"},
            r"options\.rx_mode: 'interrupt': with port_kind dpdk_vdev VPP "
            r"polls the ports \(DPDK's af_xdp virtual devices have no RX interrupts\)",
        ),
    ],
)
def test_bad_vdev_options_name_the_field(options: dict[str, Any], message: str) -> None:
    with pytest.raises(DutError, match=rf"^DUT1 \(vpp\): nodes\.DUT1\.{message}"):
        parse_options(node(**options))


#: ``show hardware`` of VPP v26.06 with two net_af_xdp vdevs (trimmed), as the real one prints.
SHOW_HARDWARE = """\
              Name                Idx   Link  Hardware
Ethernet0                          1     up   Ethernet0
  Link speed: 10.000000 Gbps
  Ethernet address 02:00:00:00:01:02
  ### UNKNOWN ###
    carrier up full duplex max-frame-size 3560
    flags: admin-up
    Devargs: iface=dut-if1
    rx: queues 1 (max 1), desc 1024 (min 0 max 65535 align 1)
Ethernet1                          2     up   Ethernet1
  Link speed: 10.000000 Gbps
  Ethernet address 02:00:00:00:02:02
  ### UNKNOWN ###
    flags: admin-up
    Devargs: iface=dut-if2
local0                             0    down  local0
  Link speed: unknown
  local
"""


def test_show_hardware_gives_each_dpdk_port_its_devargs_and_mac() -> None:
    assert hardware_devargs(SHOW_HARDWARE) == {
        "Ethernet0": ("iface=dut-if1", "02:00:00:00:01:02"),
        "Ethernet1": ("iface=dut-if2", "02:00:00:00:02:02"),
    }
    config = plan_dut(LOCAL, "ip4base")
    assert interface_names(config) == ["Ethernet0", "Ethernet1"]
    assert hardware_problem(SHOW_HARDWARE, config) is None


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("Devargs: iface=dut-if2", "Devargs: iface=dut-if9"),
         "VPP's Ethernet1 is not on dut-if2: its devargs are 'iface=dut-if9'"),
        (("02:00:00:00:01:02", "02:aa:00:00:01:02"),
         "VPP's Ethernet0 has MAC 02:aa:00:00:01:02, not dut-if1's 02:00:00:00:01:02"),
        (("    Devargs: iface=dut-if1\n", ""),
         "VPP has no DPDK port Ethernet0 for dut-if1; its DPDK ports: Ethernet1 (iface=dut-if2)"),
    ],
)  # fmt: skip
def test_ports_that_are_not_the_tests_interfaces_are_named(
    change: tuple[str, str], message: str
) -> None:
    text = SHOW_HARDWARE.replace(*change)
    problem = hardware_problem(text, plan_dut(LOCAL, "ip4base"))
    assert problem is not None and problem.startswith(message), problem
    assert re.search(r"dut-if\d", problem)
