"""The memif families' VPP set-ups (no VPP), and what the vpp driver reads of a set-up.

The DUT's lines come from a 2-node plan of topologies/local-vpp.yaml:
two master memifs on one socket, forwarded to the ports as the family
says; the second VPP's lines make the slave side and cross-connect it.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from ndrpdr.dut.base import DutError, DutTestConfig
from ndrpdr.dut.plan import plan_dut
from ndrpdr.dut.smt import ThreadPlan, Worker
from ndrpdr.dut.vpp.family import (
    EXEC_THRESHOLD,
    exec_error,
    needs_fresh_vpp,
    peer_commands,
    script,
    startup_section,
)
from ndrpdr.dut.vpp.memory import size_peer, size_startup
from ndrpdr.dut.vpp.peer import PeerPlan, memif_socket, startup_conf
from ndrpdr.families import get_family
from ndrpdr.families.kinds.memif.vpp import MEMIF_MACS, MEMIFS, SOCKET
from ndrpdr.topology.loader import load_topology

ROOT = Path(__file__).resolve().parents[2]
NAMES = ("host-a", "host-b")
MEMIF_FAMILIES = (
    "eth-l2xcbase-eth-2memif-1dcr",
    "eth-l2bdbasemaclrn-eth-2memif-1dcr",
    "ethip4-ip4base-eth-2memif-1dcr",
)


def config(family: str) -> DutTestConfig:
    topology = load_topology(ROOT / "topologies" / "local-vpp.yaml")
    return dataclasses.replace(plan_dut(topology, "ip4base"), family=get_family(family).setup)


def render(family: str) -> list[str]:
    vpp = get_family(family).setup.vpp
    assert vpp is not None
    return vpp.commands(config(family), NAMES)


@pytest.mark.parametrize("family", MEMIF_FAMILIES)
def test_the_dut_holds_two_master_memifs_and_the_second_vpp_two_slaves(family: str) -> None:
    lines = render(family)
    assert lines[0] == f"create memif socket id 1 filename {SOCKET}"
    masters = [line for line in lines if line.startswith("create interface memif ")]
    assert len(masters) == 2 and all(" master " in line for line in masters)
    for mac in MEMIF_MACS:
        assert sum(line.endswith(f"hw-addr {mac}") for line in masters) == 1
    for name in (*NAMES, *MEMIFS):
        assert f"set interface state {name} up" in lines
    cfg = config(family)
    assert get_family(family).setup.vpp.plugins == ("memif",)  # type: ignore[union-attr]
    assert needs_fresh_vpp(cfg)
    peer = peer_commands(cfg)
    assert peer[0] == "create memif socket id 1 filename {socket}"
    slaves = [line for line in peer if line.startswith("create interface memif ")]
    assert len(slaves) == 2 and all(" slave " in line for line in slaves)
    # the driver fills in the queue count (one per DUT worker) on both sides
    assert all(" rx-queues {queues} tx-queues {queues} " in line for line in (*masters, *slaves))
    assert not set(MEMIF_MACS) & {line.split()[-1] for line in slaves}
    assert f"set interface l2 xconnect {MEMIFS[0]} {MEMIFS[1]}" in peer
    assert f"set interface l2 xconnect {MEMIFS[1]} {MEMIFS[0]}" in peer


def test_l2xc_connects_port1_to_memif1_and_memif2_to_port2_both_ways() -> None:
    lines = render(MEMIF_FAMILIES[0])
    xconnects = [line.split()[-2:] for line in lines if " l2 xconnect " in line]
    assert sorted(xconnects) == sorted(
        [[NAMES[0], MEMIFS[0]], [MEMIFS[0], NAMES[0]], [MEMIFS[1], NAMES[1]], [NAMES[1], MEMIFS[1]]]
    )


def test_l2bd_puts_each_port_in_a_bridge_with_its_memif() -> None:
    lines = render(MEMIF_FAMILIES[1])
    bridges = {line.split()[-2]: line.split()[-1] for line in lines if " l2 bridge " in line}
    assert bridges == {NAMES[0]: "1", MEMIFS[0]: "1", MEMIFS[1]: "2", NAMES[1]: "2"}


def test_ip4_routes_each_direction_twice_through_two_vrfs() -> None:
    family = MEMIF_FAMILIES[2]
    lines, cfg = render(family), config(family)
    one, two = cfg.ports
    assert f"set interface ip table {NAMES[0]} 10" in lines
    assert f"set interface ip table {MEMIFS[0]} 10" in lines
    assert f"set interface ip table {NAMES[1]} 11" in lines
    assert f"set interface ip table {MEMIFS[1]} 11" in lines
    # direction 0: port 1 (VRF 10) -> memif1 -> second VPP -> memif2 (VRF 11) -> port 2
    assert f"ip route add table 10 {two.routed_prefix} via 31.31.31.2 {MEMIFS[0]}" in lines
    assert f"ip route add table 11 {two.routed_prefix} via {two.peer_ip4} {NAMES[1]}" in lines
    assert f"ip route add table 11 {one.routed_prefix} via 32.32.32.2 {MEMIFS[1]}" in lines
    assert f"ip route add table 10 {one.routed_prefix} via {one.peer_ip4} {NAMES[0]}" in lines
    # what leaves memif1 is addressed to memif2, so it comes back to the DUT (and vice versa)
    assert f"set ip neighbor {MEMIFS[0]} 31.31.31.2 {MEMIF_MACS[1]} static" in lines
    assert f"set ip neighbor {MEMIFS[1]} 32.32.32.2 {MEMIF_MACS[0]} static" in lines
    # the table exists before an interface is put in it, and before its address
    assert lines.index("ip table add 10") < lines.index(f"set interface ip table {NAMES[0]} 10")
    assert lines.index(f"set interface ip table {NAMES[0]} 10") < next(
        i for i, line in enumerate(lines) if line.startswith(f"set interface ip address {NAMES[0]}")
    )


def test_a_family_without_extras_asks_nothing_more_of_the_driver() -> None:
    plain = dataclasses.replace(
        config(MEMIF_FAMILIES[0]), family=get_family("ethip4-ip4base").setup
    )
    assert startup_section(plain) == ""
    assert not needs_fresh_vpp(plain) and peer_commands(plain) == ()
    assert not needs_fresh_vpp(None)


def test_exec_scripts_and_their_errors() -> None:
    assert EXEC_THRESHOLD > 10
    assert script(["a b", "c"]) == b"a b\nc\n"
    assert exec_error(["a"], "ipip0\nloop0\npolicy-index:3\n") is None
    said = exec_error(["a", "b"], "ipip0\nexec: CLI line error: nosuch up\n")
    assert said is not None and "nosuch up" in said and "2 commands" in said


def test_the_memif_socket_is_read_from_show_memif() -> None:
    text = (
        "sockets\n  id  listener    filename\n  0   no          /run/vpp/memif.sock\n"
        "  1   yes (2)     /tmp/run-x/ndrpdr-memif.sock\n"
    )
    assert memif_socket(text) == "/tmp/run-x/ndrpdr-memif.sock"
    with pytest.raises(DutError, match="listens on no memif socket"):
        memif_socket("sockets\n  0   no          /run/vpp/memif.sock\n")


def test_the_second_vpp_keeps_every_file_in_its_run_directory() -> None:
    threads = ThreadPlan(3, (Worker(4, 4, 0),))
    sizing = size_peer(size_startup(None, lab_nics=False, smt=False))
    text = startup_conf("/tmp/peer-1", "peer-1", PeerPlan(threads, 1, sizing))
    for line in (
        "runtime-dir /tmp/peer-1",
        "cli-listen /tmp/peer-1/cli.sock",
        "socket-name /tmp/peer-1/api.sock",
        "socket-name /tmp/peer-1/stats.sock",
        "main-core 3",
        "corelist-workers 4",
    ):
        assert line in text
    assert "plugin memif_plugin.so { enable }" in text
    assert "plugin default { disable }" in text
    assert "poll-sleep-usec" not in text
