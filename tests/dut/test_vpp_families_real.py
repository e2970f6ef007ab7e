"""2-node families on the real VPP v26.06: their set-up is in place and frames cross VPP.

VPP from /opt/vpp/v26.06 runs in the DUT namespace of
topologies/local-vpp.yaml (af_packet on veths), configured by the vpp
driver with the family's set-up (``ndrpdr.families``). Each test sends a
short burst per direction from the TG namespace with tcpreplay, built here
from the family's own traffic headers (a few values of every varied
field), and asserts that every frame came back on the other TG port, that
VPP's counters saw them on the family's graph nodes, and that the family's
configuration is what VPP shows (FIB, bridge domain, ACL). Between tests
the same VPP runs on: a test that follows another checks that the undo
lines left nothing behind. Skipped without VPP, root or the tools, unless
NDRPDR_REQUIRE_VPP=1 (then they fail).
"""

from __future__ import annotations

import dataclasses
import ipaddress
import re
import time
from collections.abc import Iterator

import pytest
from dutbed import Bed, local_bed
from scapy.layers.inet import IP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Dot1Q, Ether
from test_vpp_real import close_clean, require_vpp

from ndrpdr.dut.base import DutError, DutTestConfig, FamilySetup
from ndrpdr.dut.plan import plan_dut
from ndrpdr.dut.ports import MAC
from ndrpdr.dut.vpp.driver import VppDriver
from ndrpdr.families import Family, get_family
from ndrpdr.families.kinds.l2.vpp import CSIT_2N_VLANS
from ndrpdr.families.vppip import ip4_base
from ndrpdr.families.vppsetup import VppCommands
from ndrpdr.localbed import read_counters
from ndrpdr.profiles import Headers, write_pcap

pytestmark = pytest.mark.real  # a real system part: tests/testkinds.py

#: Frames per burst and direction, distinct frames among them, and the rate [frames/s].
BURST = 600
DISTINCT = 32
BURST_PPS = 6000
#: Frame size without FCS [B] (64 B frames).
FRAME_B = 60


@pytest.fixture(scope="module")
def bed() -> Iterator[Bed]:
    require_vpp()
    with local_bed("vpp") as made:
        yield made


@pytest.fixture(scope="module")
def vpp(bed: Bed) -> Iterator[VppDriver]:
    """One driver (one VPP) for the module, as a suite has: tests follow each other in it."""
    driver = bed.driver()
    assert isinstance(driver, VppDriver)
    try:
        yield driver
    finally:
        close_clean(bed, driver)


def family_config(bed: Bed, family: Family) -> DutTestConfig:
    """The DUT's test configuration for ``family``, as the active testbed plans it."""
    base = "l2xc" if family.profile.layer == "L2" else "ip4base"
    return dataclasses.replace(plan_dut(bed.topology, base), family=family.setup)


def set_up(vpp: VppDriver, bed: Bed, family: Family) -> DutTestConfig:
    """Configure and start the family on the module's VPP (after the previous test's stop)."""
    config = family_config(bed, family)
    vpp.stop()
    vpp.configure(config)
    vpp.start()
    vpp.health_check()  # IPv6: waits out VPP's MLDv2 reports (VppCommands.settle_s)
    return config


def _value(base: str, offset: int) -> str:
    """``base`` (an IPv4, IPv6 or MAC address) plus ``offset``."""
    if MAC.fullmatch(base):
        raw = f"{int(base.replace(':', ''), 16) + offset:012x}"
        return ":".join(raw[i : i + 2] for i in range(0, 12, 2))
    return str(ipaddress.ip_address(base) + offset)


def frames(headers: Headers, src_mac: str, dst_mac: str) -> list[bytes]:
    """``DISTINCT`` frames of ``headers``: frame i takes value i of every varied field (inc)."""
    out = []
    for index in range(DISTINCT):
        fields = {
            "eth.src": headers.eth_src or src_mac,
            "eth.dst": headers.eth_dst or dst_mac,
            "ip.src": headers.src,
            "ip.dst": headers.dst,
            "udp.sport": headers.sport,
            "udp.dport": headers.dport,
            "vlan.id": headers.vlan,
        }
        for vary in headers.vary:
            step = (index // vary.every % vary.count) * vary.step
            base = fields[vary.field]
            fields[vary.field] = base + step if isinstance(base, int) else _value(str(base), step)
        packet = Ether(src=fields["eth.src"], dst=fields["eth.dst"])
        if fields["vlan.id"] is not None:
            packet = packet / Dot1Q(vlan=int(str(fields["vlan.id"])))
        if headers.ip_version == 4:
            l3 = IP(src=fields["ip.src"], dst=fields["ip.dst"], ttl=64)
        else:
            l3 = IPv6(src=fields["ip.src"], dst=fields["ip.dst"], hlim=64)
        if headers.l4 == "udp":
            packet = packet / l3 / UDP(sport=fields["udp.sport"], dport=fields["udp.dport"])
        elif headers.ip_version == 4:
            l3.proto = headers.l4
            packet = packet / l3
        else:
            l3.nh = headers.l4
            packet = packet / l3
        raw = bytes(packet)
        out.append(raw + bytes(max(0, FRAME_B - len(raw))))
    return out


def send(bed: Bed, family: Family, config: DutTestConfig, direction: int) -> tuple[int, int]:
    """A burst of the family's ``direction`` from its TG port; (sent, received) on the TG ports."""
    tg = bed.topology.tg
    tx_key, rx_key = ("port1", "port2") if direction == 0 else ("port2", "port1")
    tx, rx = tg.interface(tx_key), tg.interface(rx_key)
    assert tx.name and rx.name and tx.mac_address and rx.mac_address
    layer3 = family.profile.layer == "L3"
    dst = config.ports[direction].mac if layer3 else rx.mac_address
    assert dst is not None
    headers = family.profile.directions[direction]
    if family.id.startswith("dot1q") and headers.vlan is None:  # until the traffic has its tags
        headers = dataclasses.replace(headers, vlan=CSIT_2N_VLANS[direction])
    pcap = bed.scratch / f"{family.id}-{direction}.pcap"
    write_pcap(pcap, frames(headers, tx.mac_address, dst))
    namespace = bed.testbed.namespace(tg.key)
    before = read_counters(namespace)
    bed.testbed.access(tg.key).run(
        ["tcpreplay", "-q", "-i", tx.name, f"--pps={BURST_PPS}", f"--limit={BURST}",
         "--loop=0", "--preload-pcap", str(pcap)],
        timeout_s=20.0,
    )  # fmt: skip
    sent = received = 0
    deadline = time.monotonic() + 3.0
    while time.monotonic() < deadline:
        after = read_counters(namespace)
        sent = after[tx.name].tx_packets - before[tx.name].tx_packets
        received = after[rx.name].rx_packets - before[rx.name].rx_packets
        if received >= sent:
            break
        time.sleep(0.05)
    time.sleep(0.2)
    after = read_counters(namespace)
    return sent, after[rx.name].rx_packets - before[rx.name].rx_packets


def check_crossing(bed: Bed, family: Family, config: DutTestConfig, attempts: int = 2) -> None:
    """Every frame of a burst crosses VPP in both directions (a lost burst is sent once more)."""
    for direction in (0, 1):
        for attempt in range(1, attempts + 1):
            sent, received = send(bed, family, config, direction)
            assert sent == BURST, f"{family.id} direction {direction}: tcpreplay sent {sent}"
            assert received <= sent, f"{family.id} direction {direction}: {received} of {sent}"
            if received == sent:
                break
            assert attempt < attempts, f"{family.id} direction {direction}: {received} of {sent}"


def tx_packets(vpp: VppDriver, interface: str) -> int:
    """The tx packets VPP counted on ``interface`` since the test's start (counters cleared)."""
    text = vpp.run_cli(f"show interface {interface}")
    found = re.search(r"tx packets\s+(\d+)", text)
    return int(found.group(1)) if found else 0


def test_ip6base_routes_ipv6_through_vpp(bed: Bed, vpp: VppDriver) -> None:
    family = get_family("ethip6-ip6base")
    config = set_up(vpp, bed, family)
    for port in config.ports:
        fib = vpp.run_cli(f"show ip6 fib {port.routed_prefix6}")
        assert f"{port.routed_prefix6} fib:0" in fib and f"via {port.peer_ip6}" in fib, fib
        assert port.peer_mac.lower() in vpp.run_cli("show ip neighbors")
    check_crossing(bed, family, config)
    runtime = vpp.telemetry()["show_runtime"]
    assert "ip6-lookup" in runtime and "ip6-rewrite" in runtime
    assert tx_packets(vpp, "host-dut-if2") >= BURST and tx_packets(vpp, "host-dut-if1") >= BURST
    assert re.fullmatch(r"\d+ vppctl commands in \d+\.\d{3} s", vpp.telemetry()["setup_time"])


def test_l2bd_learns_the_tg_macs_and_bridges(bed: Bed, vpp: VppDriver) -> None:
    family = get_family("eth-l2bdbasemaclrn")
    config = set_up(vpp, bed, family)
    detail = vpp.run_cli("show bridge-domain 1 detail")
    header, values = detail.splitlines()[:2]
    assert dict(zip(header.split(), values.split(), strict=False))["Learning"] == "on", detail
    assert "host-dut-if1" in detail and "host-dut-if2" in detail
    check_crossing(bed, family, config)
    learned = vpp.run_cli("show l2fib verbose").lower()
    for key in ("port1", "port2"):
        assert str(bed.topology.tg.interface(key).mac_address).lower() in learned, learned
    assert "l2-learn" in vpp.telemetry()["show_runtime"]


def test_acl50_stateful_input_filters_and_forwards(bed: Bed, vpp: VppDriver) -> None:
    family = get_family("ethip4udp-ip4base-iacl50sf-10kflows")
    config = set_up(vpp, bed, family)
    assert " acl_plugin.so " in f" {vpp.run_cli('show plugins')} "
    acl = vpp.run_cli("show acl-plugin acl")
    assert "acl-index 0 count 52" in acl and "applied inbound on sw_if_index" in acl, acl
    assert acl.count("permit+reflect") == 2
    check_crossing(bed, family, config)
    sessions = vpp.run_cli("show acl-plugin sessions")
    total = re.search(r"Sessions total: add (\d+) - del (\d+) = (\d+)", sessions)
    assert total is not None, sessions
    # stateful: a session per flow (each direction's flows enter by their own port)
    assert int(total.group(3)) >= DISTINCT, sessions
    runtime = vpp.telemetry()["show_runtime"]
    assert "acl-plugin-in-ip4-fa" in runtime, runtime


def test_ip4scale20k_has_20k_host_routes_and_routes_through_them(bed: Bed, vpp: VppDriver) -> None:
    family = get_family("ethip4-ip4scale20k")
    config = set_up(vpp, bed, family)
    summary = vpp.run_cli("show ip fib summary")
    host_routes = re.search(r"^\s*32\s+(\d+)\s*$", summary, re.MULTILINE)
    assert host_routes is not None and int(host_routes.group(1)) >= 20_000, summary
    for direction, headers in enumerate(family.profile.directions):
        (vary,) = [v for v in headers.vary if v.field == "ip.dst"]
        last = _value(headers.dst, vary.count - 1)
        fib = vpp.run_cli(f"show ip fib {last}/32")
        assert f"{last}/32" in fib and f"via {config.ports[1 - direction].peer_ip4}" in fib, fib
    check_crossing(bed, family, config)
    seconds = float(vpp.telemetry()["setup_time"].split()[-2])
    assert seconds < 10.0  # 20k routes in one call each way: well under a second here
    # the next test's set-up (the undo) takes the 20k routes away again
    vpp.stop()
    summary = vpp.run_cli("show ip fib summary")
    host_routes = re.search(r"^\s*32\s+(\d+)\s*$", summary, re.MULTILINE)
    assert host_routes is None or int(host_routes.group(1)) < 100, summary


def test_a_plugin_the_family_needs_and_vpp_lacks_fails_naming_both(
    bed: Bed, vpp: VppDriver
) -> None:
    setup = FamilySetup(
        family="ethip4-nosuch",
        modes={},
        vpp=VppCommands(("nosuchthing",), ip4_base),
    )
    config = dataclasses.replace(plan_dut(bed.topology, "ip4base"), family=setup)
    vpp.stop()
    with pytest.raises(DutError) as caught:
        vpp.configure(config)
        vpp.start()
        vpp.health_check()
    message = str(caught.value)
    assert "family ethip4-nosuch needs the VPP plugin(s) nosuchthing (nosuchthing_plugin.so)" in (
        message
    ), message
    assert "/opt/vpp/v26.06/lib/x86_64-linux-gnu/vpp_plugins" in message, message


#: The other 2-node families (not 2M routes or 1M MACs: their tables need a bigger VPP than
#: this machine's af_packet one), in an order that restarts VPP once (the acl plugin).
SMOKE = (
    "ethip4-ip4base",
    "ethip4udp-ip4base",
    "ethip4-ip4scale20k-rnd",
    "ethip6-ip6scale20k",
    "ethip4-ip4base-iacldstbase",
    "ethip6-ip6base-iacldstbase",
    "eth-l2xcbase",
    "eth-l2patch",
    "dot1q-l2bdbasemaclrn",
    "eth-l2bdscale10kmaclrn",
    "ethip4udp-ip4base-iacl50sl-10kflows",
    "ethip4udp-ip4base-oacl50sf-10kflows",
    "ethip4udp-ip4base-oacl50sl-10kflows",
    "ethip4-ip4base-ipolicemarkbase",
    "ethip4-ip4base-adlalwlistbase",
    "ethip6-ip6base-adlalwlistbase",
)

#: A graph node each family's frames must pass (``show runtime``), and a CLI text of its set-up.
EVIDENCE = {
    "ethip4-ip4base": ("ip4-rewrite", "show ip fib 198.18.1.0/24", "via 192.168.20.2"),
    "ethip4udp-ip4base": ("ip4-rewrite", "show ip fib 198.18.0.0/24", "via 192.168.10.2"),
    "ethip4-ip4scale20k-rnd": ("ip4-rewrite", "show ip fib 10.0.39.15/32", "10.0.39.15/32"),
    "ethip6-ip6scale20k": ("ip6-rewrite", "show ip6 fib 2100::270f/128", "2100::270f/128"),
    "ethip4-ip4base-iacldstbase": (
        "ip4-inacl",
        "show classify tables",
        "mask 0000000000000000000000000000ffffff",
    ),
    "ethip6-ip6base-iacldstbase": ("ip6-inacl", "show inacl type ip6", "host-dut-if2"),
    "eth-l2xcbase": ("l2-output", "show mode host-dut-if1", "l2 xconnect"),
    "eth-l2patch": ("l2-patch", "show l2patch", "host-dut-if2"),
    "dot1q-l2bdbasemaclrn": ("l2-learn", "show bridge-domain 1 detail", "pop-1"),
    "eth-l2bdscale10kmaclrn": (
        "l2-learn",
        "show l2fib verbose",
        f"ca:fe:00:00:00:{DISTINCT - 1:02x}",
    ),
    "ethip4udp-ip4base-iacl50sl-10kflows": (
        "acl-plugin-in-ip4-fa",
        "show acl-plugin acl",
        "count 52",
    ),
    "ethip4udp-ip4base-oacl50sf-10kflows": (
        "acl-plugin-out-ip4-fa",
        "show acl-plugin acl",
        "permit+reflect",
    ),
    "ethip4udp-ip4base-oacl50sl-10kflows": (
        "acl-plugin-out-ip4-fa",
        "show acl-plugin acl",
        "applied outbound",
    ),
    "ethip4-ip4base-ipolicemarkbase": (
        "ip4-policer-classify",
        "show policer",
        "exceed action mark-and-transmit AF22",
    ),
    "ethip4-ip4base-adlalwlistbase": (
        "ip4-adl-allowlist",
        "show ip fib table 1 198.18.0.0/24",
        "dpo-receive",
    ),
    "ethip6-ip6base-adlalwlistbase": (
        "ip6-adl-allowlist",
        "show ip6 fib table 1 2001:2::/64",
        "dpo-receive",
    ),
}


#: The ones CI runs (a kind each the tests above do not cover); the rest: tox -e families.
CI_SMOKE = ("eth-l2xcbase", "ethip4-ip4base-iacldstbase")


@pytest.mark.parametrize(
    "family_id",
    [f if f in CI_SMOKE else pytest.param(f, marks=pytest.mark.every_family) for f in SMOKE],
)
def test_every_other_2node_family_sets_up_and_forwards(
    bed: Bed, vpp: VppDriver, family_id: str
) -> None:
    family = get_family(family_id)
    config = set_up(vpp, bed, family)
    if family.profile.layer == "L3":  # one path each: nothing left of an earlier test's routes
        for port in config.ports:
            ip6 = family.profile.directions[0].ip_version == 6
            prefix = port.routed_prefix6 if ip6 else port.routed_prefix
            fib = vpp.run_cli(f"show ip{'6' if ip6 else ''} fib table 0 {prefix}")
            assert fib.count("path:[") == 1, fib
    check_crossing(bed, family, config)
    node, command, text = EVIDENCE[family_id]
    shown = vpp.run_cli(command)
    assert text in shown, shown
    runtime = vpp.telemetry()["show_runtime"]
    assert node in runtime, runtime
