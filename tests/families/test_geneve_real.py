"""The GENEVE families on the real VPP v26.06: topologies/local-vpp.yaml (2-node).

The TG sends the family's own frames (``build_frames``, as the local TG's
pcap and TRex's field engine): direction 0 plain IPv4 to N x 256
destinations, direction 1 GENEVE-encapsulated (outer IPv4/UDP 6081, a VNI
per tunnel, the inner Ethernet addressed to that tunnel's MAC). What is
sent must come out at the other TG port; VPP must have encapsulated every
frame of direction 0 into a GENEVE tunnel and decapsulated every frame of
direction 1 (its geneve nodes count them), each tunnel carrying its share.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from familybed import FamilyBed, family_bed, node_vectors, require_vpp
from scapy.contrib.geneve import GENEVE
from scapy.layers.l2 import Ether

from ndrpdr.families import get_family
from ndrpdr.profiles import build_frames

pytestmark = pytest.mark.real  # a real system part: tests/testkinds.py


@pytest.fixture(scope="module")
def bed() -> Iterator[FamilyBed]:
    require_vpp()
    with family_bed("vpp") as made:
        yield made


def tunnel_rx(show_interface: str) -> dict[str, int]:
    """rx packets of each geneve_tunnel<i> in a ``show interface`` text."""
    out: dict[str, int] = {}
    for block in re.finditer(r"^(geneve_tunnel\d+)\s.*?(?=^\S|\Z)", show_interface, re.M | re.S):
        counted = re.search(r"rx packets\s+(\d+)", block.group(0))
        out[block.group(1)] = int(counted.group(1)) if counted else 0
    return out


@pytest.mark.parametrize(
    ("tunnels", "frames"),
    [(4, 1024), pytest.param(256, 2048, marks=pytest.mark.every_family)],
)
def test_geneve_frames_are_encapsulated_and_decapsulated(
    bed: FamilyBed, tunnels: int, frames: int
) -> None:
    family = f"ethip4--ethip4udpgeneve-{tunnels}tun-ip4base"
    profile = get_family(family).profile
    drivers = bed.configure(family)
    try:
        sent_frames = {}
        for direction in (0, 1):
            tx = "port1" if direction == 0 else "port2"
            built = build_frames(profile, 64, direction, bed.tg_mac(tx), bed.entry_mac(direction))
            sent_frames[direction] = built[:frames]
            sent, received = bed.send(direction, sent_frames[direction])
            assert sent >= frames and received == sent, (
                f"direction {direction}: sent {sent}, received {received}\n"
                + drivers["DUT1"].run_cli("show errors")
            )
        encapsulated = Ether(sent_frames[1][300])
        # CSIT's GENEVE profiles pad the encapsulated frame to 110 B before the frame size
        assert encapsulated[GENEVE].vni == 2 and len(sent_frames[1][300]) == 110  # 114 B, FCS
        runtime = drivers["DUT1"].telemetry()["show_runtime"]
        assert node_vectors(runtime, "geneve4-encap") >= frames, runtime
        assert node_vectors(runtime, "geneve4-input") >= frames, runtime
        shares = tunnel_rx(drivers["DUT1"].run_cli("show interface"))
        used = min(tunnels, frames // 256)  # frames k = 256 i + j ride tunnel i
        assert [shares.get(f"geneve_tunnel{i}") for i in range(used)] == [256] * used, shares
    finally:
        bed.stop()
