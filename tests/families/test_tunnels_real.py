"""3-node tunnel and bond families (VXLAN, WireGuard, GTP-U, LACP) on the real VPP v26.06.

DUT1 and DUT2 of topologies/local-vpp-3n.yaml each run VPP (af_packet
ports) with the family's set-up; the TG sends the family's frames from
both ports. What is sent must come
out at the other TG port, unchanged where the family switches at L2, and
the tunnel's own graph nodes must have handled every frame on both DUTs
(encapsulated by one, decapsulated by the other), not plain forwarding.
WireGuard families first send the frames once, uncounted: a tunnel whose
handshake did not complete during the set-up starts it on them.
"""

from __future__ import annotations

import ipaddress
import re
import time
from collections.abc import Iterator

import pytest
from familybed import FamilyBed, every_family, node_vectors, three_node_bed
from scapy.layers.inet import IP
from scapy.layers.l2 import Ether

from ndrpdr.families import get_family

pytestmark = pytest.mark.real  # a real system part: tests/testkinds.py

#: Frames per direction.
FRAMES = 400
#: Seconds for the handshakes the warm-up frames start [s].
WARM_UP_S = 2.0


@pytest.fixture(scope="module")
def bed() -> Iterator[FamilyBed]:
    yield from three_node_bed()


def family_frames(bed: FamilyBed, family_id: str, direction: int, size_b: int = 64) -> list[bytes]:
    """``FRAMES`` frames of ``size_b`` of the family's direction: its varied addresses in turn.

    L2 families address the far TG port, L3 ones the DUT port they enter.
    """
    profile = get_family(family_id).profile
    headers = profile.directions[direction]
    far = bed.tg_mac("port2" if direction == 0 else "port1")
    dst_mac = far if profile.layer == "L2" else bed.entry_mac(direction)
    eth = Ether(src=bed.tg_mac("port1" if direction == 0 else "port2"), dst=dst_mac)
    frames = []
    for n in range(FRAMES):
        address = {"ip.src": headers.src, "ip.dst": headers.dst}
        for vary in headers.vary:
            step = n % vary.count * vary.step
            address[vary.field] = str(ipaddress.IPv4Address(address[vary.field]) + step)
        packet = eth / IP(src=address["ip.src"], dst=address["ip.dst"], proto=61, ttl=64)
        frames.append(bytes(packet / bytes(max(0, size_b - 4 - len(packet)))))
    return frames


@pytest.mark.parametrize(
    ("family", "encap", "decap"),
    [
        ("ethip4vxlan-l2bdbasemaclrn", "vxlan4-encap", "vxlan4-input"),
        every_family("ethip4vxlan-l2xcbase", "vxlan4-encap", "vxlan4-input"),
        every_family("ethip4udpwireguard1tnlsw-ip4base", "wg4-output-tun", "wg4-input"),
        every_family("ethip4udpwireguard8tnlsw-ip4base", "wg4-output-tun", "wg4-input"),
        every_family("ethip4udpwireguard1000tnlsw-ip4base", "wg4-output-tun", "wg4-input"),
        every_family("ethip4gtpusw-ip4base", "gtpu4-encap", "gtpu4-input"),
        every_family("eth-l2xcbase-1lbvpplacp", "BondEthernet0-tx", "bond-input"),
    ],
)
def test_tunnel_family_frames_cross_the_tunnel_and_are_delivered(
    bed: FamilyBed, family: str, encap: str, decap: str
) -> None:
    drivers = bed.configure(family)
    try:
        if "WIREGUARD" in get_family(family).tags:  # the first frames start a handshake still due
            for direction in (0, 1):
                bed.send(direction, family_frames(bed, family, direction), attempts=1)
            time.sleep(WARM_UP_S)
        for direction in (0, 1):
            sent, received = bed.send(direction, family_frames(bed, family, direction))
            assert sent >= FRAMES, f"direction {direction}: tcpreplay sent {sent}"
            assert received == sent, (
                f"direction {direction}: sent {sent}, received {received}\n"
                + "\n".join(
                    f"{k} show errors:\n{d.run_cli('show errors')}" for k, d in drivers.items()
                )
            )
        for key, driver in drivers.items():
            if "LBOND" in get_family(family).tags:  # LACP agreed: the one member is active
                bond = driver.run_cli("show bond")
                assert re.search(r"BondEthernet0\s+\d+\s+lacp\s+l34\s+1\s+1", bond), bond
            runtime = driver.telemetry()["show_runtime"]
            assert node_vectors(runtime, encap) >= FRAMES, f"{key}:\n{runtime}"
            assert node_vectors(runtime, decap) >= FRAMES, f"{key}:\n{runtime}"
    finally:
        bed.stop()


@pytest.mark.every_family
def test_gtpu_reassembly_frames_cross_the_link_in_fragments(bed: FamilyBed) -> None:
    family = "ethip4gtpusw-ip4base-reassembly"
    drivers = bed.configure(family)
    try:
        for direction in (0, 1):
            sent, received = bed.send(direction, family_frames(bed, family, direction, 1518))
            assert sent >= FRAMES and received == sent, f"direction {direction}: {sent}, {received}"
        for key, driver in drivers.items():  # each 1554 B tunnel packet left in two fragments
            runtime = driver.telemetry()["show_runtime"]
            assert node_vectors(runtime, "ip4-frag") >= FRAMES, f"{key}:\n{runtime}"
            assert node_vectors(runtime, "ip4-local-full-reassembly") >= 2 * FRAMES, runtime
            assert node_vectors(runtime, "gtpu4-input") >= FRAMES, f"{key}:\n{runtime}"
    finally:
        bed.stop()
