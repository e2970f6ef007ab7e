"""The memif families on the real VPP v26.06: topologies/local-vpp.yaml and a second VPP.

The DUT's VPP (af_packet ports) holds two master memifs; the driver starts
the second VPP (FD.io CSIT's container: as many workers as the DUT's on
CPUs of its own, polling) in a network namespace of its own on the DUT's
host, which cross-connects its two slave memifs. The bed lists the
machine's CPUs as the DUTs' ``worker_cores`` (``familybed.with_worker_cores``);
a machine with too few for both VPPs skips, naming them. Each frame crosses both VPPs: what
is sent must come out at the other TG port, both memifs of both VPPs must
count the frames, and the second VPP, its namespace and its run directory
must be gone after the test (process, run directory, shared memory).
"""

from __future__ import annotations

import ipaddress
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from familybed import FamilyBed, family_bed, pid_alive, require_vpp
from scapy.layers.inet import IP
from scapy.layers.l2 import Ether

from ndrpdr.dut.vpp.layout import thread_plan
from ndrpdr.families.kinds.memif.vpp import MEMIFS

pytestmark = pytest.mark.real  # a real system part: tests/testkinds.py

#: Frames per direction.
FRAMES = 400


@pytest.fixture(scope="module")
def bed() -> Iterator[FamilyBed]:
    require_vpp()
    with family_bed("vpp") as made:
        yield made


def frames(bed: FamilyBed, direction: int, layer: str) -> list[bytes]:
    """ip4src254: 254 sources of one prefix to host 1 of the other, proto 61."""
    config = bed.configs["DUT1"]
    prefixes = [str(port.routed_prefix).split("/")[0] for port in config.ports]
    src_prefix, dst_prefix = prefixes[direction], prefixes[1 - direction]
    tx, rx = ("port1", "port2") if direction == 0 else ("port2", "port1")
    dst_mac = bed.tg_mac(rx) if layer == "L2" else bed.entry_mac(direction)
    eth = Ether(src=bed.tg_mac(tx), dst=dst_mac)
    dst = str(ipaddress.IPv4Address(dst_prefix) + 1)
    out = []
    for n in range(FRAMES):
        src = str(ipaddress.IPv4Address(src_prefix) + 1 + n % 254)
        packet = eth / IP(src=src, dst=dst, proto=61, ttl=64)
        out.append(bytes(packet / bytes(max(0, 64 - 4 - len(packet)))))
    return out


def rx_packets(show_interface: str, name: str) -> int:
    """The rx packets of interface ``name`` in a ``show interface`` text (0 if none)."""
    block = re.search(rf"^{re.escape(name)}\s.*?(?=^\S|\Z)", show_interface, re.M | re.S)
    if block is None:
        return 0
    counted = re.search(r"rx packets\s+(\d+)", block.group(0))
    return int(counted.group(1)) if counted else 0


@pytest.mark.parametrize(
    ("family", "layer"),
    [
        ("eth-l2xcbase-eth-2memif-1dcr", "L2"),
        pytest.param("eth-l2bdbasemaclrn-eth-2memif-1dcr", "L2", marks=pytest.mark.every_family),
        pytest.param("ethip4-ip4base-eth-2memif-1dcr", "L3", marks=pytest.mark.every_family),
    ],
)
def test_memif_frames_cross_both_vpps_and_the_second_vpp_goes_with_the_test(
    bed: FamilyBed, family: str, layer: str
) -> None:
    drivers = bed.configure(family)
    driver = drivers["DUT1"]
    peer = driver.peer
    assert peer is not None and peer.pid is not None
    pid, run_dir = peer.pid, peer.run_dir
    plan = peer.plan  # 1c: one worker each, one memif queue each way, CPUs of its own
    assert plan.threads.threads == 1 and plan.queues == 1
    assert plan.threads.main is not None and driver.pid is not None
    conf = Path(run_dir, "startup.conf").read_text()
    assert "poll-sleep-usec" not in conf
    assert f"corelist-workers {plan.threads.cpus[0]}" in conf
    own = thread_plan(bed.topology.nodes["DUT1"], bed.configs["DUT1"])
    assert not {own.main, *own.cpus} & {plan.threads.main, *plan.threads.cpus}
    own_netns = os.readlink(f"/proc/{pid}/ns/net")
    assert own_netns != os.readlink(f"/proc/{driver.pid}/ns/net")  # a namespace of its own
    try:
        for direction in (0, 1):
            sent, received = bed.send(direction, frames(bed, direction, layer))
            assert sent >= FRAMES, f"direction {direction}: tcpreplay sent {sent}"
            assert received == sent, (
                f"direction {direction}: sent {sent}, received {received}\n"
                f"{driver.telemetry().get('show_errors')}\n{peer.telemetry()}"
            )
        telemetry = driver.telemetry()
        for name in MEMIFS:  # each frame came back from the second VPP
            assert rx_packets(telemetry["show_interface"], name) >= FRAMES, telemetry
            peer_text = telemetry["peer_show_interface"]
            assert rx_packets(peer_text, name) >= FRAMES, peer_text
    finally:
        bed.stop()
    assert not pid_alive(pid)
    assert not os.path.exists(run_dir)
    prefix = os.path.basename(run_dir)
    assert [p for p in os.listdir("/dev/shm") if p.startswith(prefix)] == []


@pytest.mark.every_family
def test_memif_on_a_3_node_chain_gives_each_dut_its_own_second_vpp() -> None:
    """CSIT runs eth-l2xcbase-eth-2memif-1dcr on 3-node too: two DUTs, two second VPPs."""
    require_vpp()
    with family_bed("vpp-3n") as bed:
        drivers = bed.configure("eth-l2xcbase-eth-2memif-1dcr")
        peers = [d.peer for d in drivers.values()]
        assert all(p is not None and p.pid is not None for p in peers)
        pids = {p.pid for p in peers if p is not None}
        assert len(pids) == 2
        try:
            for direction in (0, 1):
                sent, received = bed.send(direction, frames(bed, direction, "L2"))
                assert sent >= FRAMES and received == sent, (direction, sent, received)
            for key, driver in drivers.items():
                text = driver.telemetry()["peer_show_interface"]
                for name in MEMIFS:
                    assert rx_packets(text, name) >= FRAMES, f"{key}:\n{text}"
        finally:
            bed.stop()
        assert not any(pid_alive(pid) for pid in pids if pid is not None)
