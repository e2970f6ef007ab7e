"""3-node IPsec and SRv6 (proxy) families on the real VPP v26.06: topologies/local-vpp-3n.yaml.

DUT1 and DUT2 each run VPP (af_packet ports) with the family's set-up;
the TG sends the family's kind of frames from both ports. What is sent
must come out at the other TG port, and the feature's own counters must
show that the frames took the feature's path (ESP SAs counted, SR
policies and local SIDs counted), not plain forwarding.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterator

import pytest
from familybed import FamilyBed, every_family, node_vectors, three_node_bed
from scapy.layers.inet import IP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Ether

from ndrpdr.dut.vpp.driver import VppDriver
from ndrpdr.families import get_family

pytestmark = pytest.mark.real  # a real system part: tests/testkinds.py

#: Frames per direction; tunnels whose SA counters a test reads.
FRAMES = 400
SHOWN_TUNNELS = 8


@pytest.fixture(scope="module")
def bed() -> Iterator[FamilyBed]:
    yield from three_node_bed()


def sa_packets(text: str) -> dict[int, int]:
    """Packets each SA counted, by SA id, from ``show ipsec sa <index>`` texts."""
    out: dict[int, int] = {}
    sa = None
    for line in text.splitlines():
        head = re.match(r"\[\d+\] sa (\d+) ", line)
        if head:
            sa = int(head.group(1))
        counted = re.search(r"tx/rx:\[packets:(\d+)", line)
        if counted and sa is not None:
            out[sa] = int(counted.group(1))
    return out


def ipsec_frames(bed: FamilyBed, direction: int, tunnels: int, size: int) -> list[bytes]:
    """The family's traffic: one source, ``tunnels`` destinations in turn, proto 61."""
    src, first = ("10.0.0.1", "20.0.0.0") if direction == 0 else ("20.0.0.1", "10.0.0.0")
    eth = Ether(
        src=bed.tg_mac("port1" if direction == 0 else "port2"), dst=bed.entry_mac(direction)
    )
    frames = []
    for n in range(FRAMES):
        packet = eth / IP(
            src=src, dst=str(ipaddress.IPv4Address(first) + n % tunnels), proto=61, ttl=64
        )
        frames.append(bytes(packet / bytes(max(0, size - 4 - len(packet)))))
    return frames


def first_sas(driver: VppDriver, tunnels: int) -> str:
    """``show ipsec sa <index>`` of the first (up to 8) tunnels' SAs (two per tunnel, in order).

    (``vppctl exec`` would do all in one call but prints nothing of what it runs.)
    """
    count = 2 * min(tunnels, SHOWN_TUNNELS)
    return "\n".join(driver.run_cli(f"show ipsec sa {i}") for i in range(count))


@pytest.mark.parametrize(
    ("family", "tunnels", "size"),
    [
        ("ethip4ipsec4tnlsw-ip4base-int-aes256gcm", 4, 64),
        every_family(
            "ethip4ipsec40tnlsw-ip4base-int-aes128cbc-hmac512sha",
            40,
            64,
        ),
        every_family("ethip4ipsec4tnlsw-ip4base-policy-aes256gcm", 4, 64),
        every_family(
            "ethip4ipsec1000tnlsw-ip4base-int-aes256gcm-reassembly",
            1000,
            1518,
        ),
        ("ethip4ipsec10000tnlsw-udp-ar-ip4base-int-aes128cbc-hmac96sha", 10000, 64),
        every_family(
            "ethip4ipsec10000tnlsw-udp-ip4base-int-aes256gcm",
            10000,
            64,
        ),
        every_family("ethip4ipsec1tnlswasync-scheduler-ip4base-int-aes256gcm", 1, 64),
        every_family("ethip4ipsec8tnlswasync-scheduler-ip4base-int-aes128cbc-hmac512sha", 8, 64),
        # (not -flow-cache-: v26.06 takes ~15.5 ms per SPD entry with the flow cache on, about
        # 5 min per DUT for 10000 tunnels; the family's note says so)
        every_family(
            "ethip4ipsec10000tnlsw-ip4base-policy-aes256gcm",
            10000,
            64,
        ),
    ],
)
def test_ipsec_frames_are_encrypted_between_the_duts_and_delivered(
    bed: FamilyBed, family: str, tunnels: int, size: int
) -> None:
    drivers = bed.configure(family)
    try:
        for direction in (0, 1):
            sent, received = bed.send(direction, ipsec_frames(bed, direction, tunnels, size))
            assert sent >= FRAMES, f"direction {direction}: tcpreplay sent {sent}"
            assert received == sent, (
                f"direction {direction}: sent {sent}, received {received}\n"
                + "\n".join(
                    f"{k} show errors:\n{d.run_cli('show errors')}" for k, d in drivers.items()
                )
            )
        dut1, dut2 = first_sas(drivers["DUT1"], tunnels), first_sas(drivers["DUT2"], tunnels)
        counts1, counts2 = sa_packets(dut1), sa_packets(dut2)
        # each tunnel carried its share both ways (SA 100000+i: DUT1 -> DUT2, 200000+i back)
        share = FRAMES // min(tunnels, FRAMES)
        for i in range(min(tunnels, SHOWN_TUNNELS)):
            for sa in (100000 + i, 200000 + i):
                assert counts1.get(sa) == share, f"DUT1 SA {sa}: {counts1.get(sa)}, not {share}"
                assert counts2.get(sa) == share, f"DUT2 SA {sa}: {counts2.get(sa)}, not {share}"
        # and every frame was encrypted by one DUT and decrypted by the other
        for key, driver in drivers.items():
            runtime = driver.telemetry()["show_runtime"]  # run_cli takes "error-drop" for an error
            assert node_vectors(runtime, "esp4-encrypt") >= FRAMES, f"{key}:\n{runtime}"
            assert node_vectors(runtime, "esp4-decrypt") >= FRAMES, f"{key}:\n{runtime}"
            if "ASYNC" in get_family(family).tags:  # each ESP packet went through async crypto
                assert node_vectors(runtime, "crypto-enq") >= 2 * FRAMES, f"{key}:\n{runtime}"
                assert node_vectors(runtime, "esp4-encrypt-tun-post") >= FRAMES, runtime
            if family.endswith("-reassembly"):  # each ESP packet crossed the link in fragments
                assert node_vectors(runtime, "ip4-frag") >= FRAMES, f"{key}:\n{runtime}"
                assert node_vectors(runtime, "ip4-full-reassembly") >= 2 * FRAMES, runtime
        telemetry = drivers["DUT1"].telemetry()
        took = re.fullmatch(r"\d+ vppctl commands in (\d+\.\d{3}) s", telemetry["setup_time"])
        assert took is not None and float(took.group(1)) > 0, telemetry["setup_time"]
    finally:
        bed.stop()


def srv6_frames(bed: FamilyBed, direction: int) -> list[bytes]:
    """The SRv6 families' traffic (ip6src253): 253 sources of one prefix to host 2 of the other."""
    config = bed.configs["DUT1"]
    prefixes = [str(port.routed_prefix6).split("/")[0] for port in config.ports]
    src_prefix, dst_prefix = prefixes[direction], prefixes[1 - direction]
    eth = Ether(
        src=bed.tg_mac("port1" if direction == 0 else "port2"), dst=bed.entry_mac(direction)
    )
    dst = str(ipaddress.IPv6Address(dst_prefix) + 2)
    frames = []
    for n in range(FRAMES):
        src = str(ipaddress.IPv6Address(src_prefix) + 2 + n % 253)
        packet = eth / IPv6(src=src, dst=dst, nh=59, hlim=64)
        frames.append(bytes(packet / bytes(max(0, 78 - 4 - len(packet)))))
    return frames


def localsid_packets(text: str) -> dict[str, int]:
    """Good packets of each local SID, by address, from ``show sr localsids``."""
    out: dict[str, int] = {}
    address = None
    for line in text.splitlines():
        head = re.search(r"Address:\s+(\S+)/128", line)
        if head:
            address = head.group(1)
        good = re.search(r"Good traffic:\s+\[(\d+) packets", line)
        if good and address is not None:
            out[address] = int(good.group(1))
    return out


@pytest.mark.parametrize(
    ("family", "ends"),
    [
        ("ethip6ip6-ip6base-srv6enc1sid", {"DUT1": ["2003:2::"], "DUT2": ["2002:2::"]}),
        every_family(
            "ethip6srhip6-ip6base-srv6enc2sids",
            {"DUT1": ["2003:2::", "2003:3::"], "DUT2": ["2002:2::", "2002:3::"]},
        ),
        every_family(
            "ethip6srhip6-ip6base-srv6enc2sids-nodecaps",
            {"DUT1": ["2003:2::"], "DUT2": ["2002:2::"]},
        ),
        *(
            every_family(
                f"ethip6srhip6-ip6base-srv6proxy-{proxy}",
                {"DUT1": ["2003:2::"], "DUT2": ["2002:2::"]},
            )
            for proxy in ("dyn", "masq", "stat")
        ),
    ],
)
def test_srv6_frames_are_encapsulated_between_the_duts_and_delivered(
    bed: FamilyBed, family: str, ends: dict[str, list[str]]
) -> None:
    drivers = bed.configure(family)
    try:
        for direction in (0, 1):
            sent, received = bed.send(direction, srv6_frames(bed, direction))
            assert sent >= FRAMES, f"direction {direction}: tcpreplay sent {sent}"
            assert received == sent, (
                f"direction {direction}: sent {sent}, received {received}\n"
                + "\n".join(f"{k}:\n{d.run_cli('show errors')}" for k, d in drivers.items())
            )
        for key, driver in drivers.items():
            text = driver.run_cli("show sr localsids")
            counts = localsid_packets(text)
            for sid in ends[key]:  # the far DUT's frames ended here, each of them
                assert counts.get(sid) == FRAMES, f"{key} local SID {sid}:\n{text}"
            runtime = driver.telemetry()["show_runtime"]  # run_cli takes "error-drop" for an error
            assert node_vectors(runtime, "sr-pl-rewrite-encaps") >= FRAMES, f"{key}:\n{runtime}"
            if "SRv6_PROXY" in get_family(family).tags:  # each came back from the service function
                assert node_vectors(runtime, "memif-input") >= FRAMES, f"{key}:\n{runtime}"
    finally:
        bed.stop()
