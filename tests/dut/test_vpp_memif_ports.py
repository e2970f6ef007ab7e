"""The vpp driver's memif ports (``port_kind: memif``): startup.conf and the CLI set-up.

Pure: labbox-2n-vpp-memif.yaml with its sockets as a lab in a box gives
them. The real VPP connecting to the real TRex runs in
``tests/acceptance/test_labbox_memif.py``.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from ndrpdr.dut.base import DutError, DutTestConfig
from ndrpdr.dut.plan import plan_dut
from ndrpdr.dut.vpp.afpacket import VppRunPaths, create_commands, delete_commands, startup_conf
from ndrpdr.dut.vpp.config import parse_options
from ndrpdr.dut.vpp.driver import DESCRIPTION
from ndrpdr.dut.vpp.memifports import BUFFERS_PER_NUMA, RING_SIZE
from ndrpdr.labbox.memif import with_memif_sockets
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.model import Topology

ROOT = Path(__file__).resolve().parents[2]
RUN_DIR = Path("/run/ndrpdr/labbox-1234-abcd")


@pytest.fixture(scope="module")
def memif() -> Topology:
    topology = load_topology(ROOT / "topologies" / "labbox-2n-vpp-memif.yaml")
    return with_memif_sockets(topology, RUN_DIR)


@pytest.fixture(scope="module")
def config(memif: Topology) -> DutTestConfig:
    return plan_dut(memif, "ip4base")


def test_the_plan_gives_each_port_its_links_socket(config: DutTestConfig) -> None:
    assert [p.memif_socket for p in config.ports] == [
        f"{RUN_DIR}/memif-link1.sock",
        f"{RUN_DIR}/memif-link2.sock",
    ]


def test_each_port_is_a_memif_client_of_its_socket_named_as_the_other_kinds(
    config: DutTestConfig,
) -> None:
    commands = create_commands(config, "polling", "memif", workers=1, rx_queues=(2, 2))
    assert commands == [
        f"create memif socket id 101 filename {RUN_DIR}/memif-link1.sock",
        f"create interface memif id 0 socket-id 101 ring-size {RING_SIZE} "
        "hw-addr 02:00:00:00:01:02 slave rx-queues 2 tx-queues 2",
        "set interface name memif101/0 host-dut1-p1",
        f"create memif socket id 102 filename {RUN_DIR}/memif-link2.sock",
        f"create interface memif id 0 socket-id 102 ring-size {RING_SIZE} "
        "hw-addr 02:00:00:00:02:02 slave rx-queues 2 tx-queues 2",
        "set interface name memif102/0 host-dut1-p2",
    ]  # no rx-mode / rx-placement: the queues exist once connected
    assert delete_commands(config, "memif") == [
        "delete interface memif host-dut1-p1",
        "delete interface memif host-dut1-p2",
        "delete memif socket id 101",
        "delete memif socket id 102",
    ]


def test_startup_conf_loads_the_memif_plugin_with_buffers_for_its_rings(
    memif: Topology, config: DutTestConfig
) -> None:
    node = memif.nodes["DUT1"]
    text = startup_conf(node, config, parse_options(node), VppRunPaths("/tmp/x"))
    assert "plugin memif_plugin.so { enable }" in text
    assert "plugin dpdk_plugin.so { disable }" in text and "af_packet_plugin" not in text
    assert "buffers-per-numa 215040" in text  # CSIT's (SMT unknown: its labs' value)
    assert BUFFERS_PER_NUMA >= 2 * 2 * 2 * RING_SIZE  # lent to 2 ports' 2 rings, as many spare
    # scaled to a small node, the rings still get theirs: never below BUFFERS_PER_NUMA
    options = dataclasses.replace(parse_options(node), memory_mb=256)
    small = startup_conf(node, config, options, VppRunPaths("/tmp/x"))
    assert f"buffers-per-numa {BUFFERS_PER_NUMA}" in small
    assert DESCRIPTION.port_driver is not None and DESCRIPTION.port_driver(node) == "memif"


def test_a_port_without_a_socket_is_named(config: DutTestConfig) -> None:
    ports = (config.ports[0], dataclasses.replace(config.ports[1], memif_socket=None))
    broken = dataclasses.replace(config, ports=ports)
    with pytest.raises(DutError, match=r"port port2 has no memif socket.*interfaces\.port2\.model"):
        create_commands(broken, "polling", "memif")
