"""The NAT44 families: CSIT's ids and traffic, VPP's set-up lines, the session parsers, the sample.

The sample checks follow det44's own mapping (VPP's ``snat_det_forward``
and its in2out port choice): every flow direction 0 sends makes a session
on an outside address and port, and direction 1 must go to exactly those,
or its frames find no session and are dropped.
"""

from __future__ import annotations

import dataclasses
import ipaddress
from pathlib import Path

import pytest
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

from ndrpdr.dut.base import DutError, DutTestConfig
from ndrpdr.dut.plan import plan_dut
from ndrpdr.families import get_family
from ndrpdr.families.kinds.nat.defs import FAMILIES, sample_hosts
from ndrpdr.families.kinds.nat.vpp import (
    NatVpp,
    det44_sessions,
    max_translations_per_thread,
    nat44_udp_sessions,
)
from ndrpdr.families.model import FamilyDefinitionError
from ndrpdr.families.stateful import RampUp
from ndrpdr.profiles import (
    Headers,
    build_frames,
    pcap_flows,
    pcap_profile,
    sample_size,
    stream_frames,
)
from ndrpdr.profiles.variation import base_value, value_index
from ndrpdr.topology.loader import load_topology

ROOT = Path(__file__).resolve().parents[2]
NAMES = ("host-dut-if1", "host-dut-if2")
DET = "ethip4udp-nat44det-h65536-p63-s4128758"
UDIR = "ethip4udp-nat44ed-h65536-p63-s4128768-udir"

#: ``show det44 mappings`` and ``show nat44 summary`` as VPP v26.06 prints them.
DET44_MAPPINGS = """NAT44 deterministic mappings:
 in 192.168.0.0/16 out 68.142.68.0/26
  outside address sharing ratio: 1024
  number of ports per inside host: 63
  sessions number: 64512
"""
NAT44_SUMMARY = """max translations per thread: 5242880 fib 0
total sessions: 64520 (timed out: 8)
tcp sessions:
    total: 0 (timed out: 0)
        established: 0 (timed out: 0)
        transitory: 0 (timed out: 0)
udp sessions:
    total: 64510 (timed out: 6)
icmp sessions:
    total: 10 (timed out: 2)
"""


@pytest.fixture(scope="module")
def plan2() -> DutTestConfig:
    return plan_dut(load_topology(ROOT / "topologies" / "local-vpp.yaml"), "ip4base")


def render(family_id: str, config: DutTestConfig, cores: int = 1) -> list[str]:
    family = get_family(family_id)
    assert family.setup.vpp is not None
    config = dataclasses.replace(config, family=family.setup, cores=cores)
    return family.setup.vpp.commands(config, NAMES)


#: CSIT's suites (tests/vpp/perf/ip4/2n1l-10ge2p1x710-ethip4udp-nat44*): id -> hosts, ports,
#: in_net/in_mask, out_net/out_mask (det44) or out_net - out_net_end (NAT44-ED),
#: heap_size_mult, ramp_up_rate, ramp_up_duration.
CSIT_SCALES = {
    "ethip4udp-nat44det-h1-p1-s1": (1, 1, "20.0.0.0/32", "200.0.0.0/32", 1, 66061, 2.0),
    "ethip4udp-nat44det-h1024-p63-s64512": (1024, 63, "192.168.0.0/22", "68.142.68.0/32", 1,
                                            66061, 2.0),
    "ethip4udp-nat44det-h4096-p63-s258048": (4096, 63, "192.168.0.0/20", "68.142.68.0/30", 1,
                                             66061, 5.0),
    "ethip4udp-nat44det-h16384-p63-s1032192": (16384, 63, "192.168.0.0/18", "68.142.68.0/28",
                                               1, 66061, 16.8),
    DET: (65536, 63, "192.168.0.0/16", "68.142.68.0/26", 2, 66061, 63.9),
    "ethip4udp-nat44det-h262144-p63-s16515072": (262144, 63, "172.16.0.0/14", "68.142.68.0/24",
                                                 7, 66061, 252.3),
    "ethip4udp-nat44ed-h1024-p63-s64512-udir": (1024, 63, "192.168.0.0/22",
                                                "68.142.68.0 - 68.142.68.0", 1, 500000, 1.0),
    "ethip4udp-nat44ed-h4096-p63-s258048-udir": (4096, 63, "192.168.0.0/20",
                                                 "68.142.68.0 - 68.142.68.3", 1, 500000, 1.1),
    "ethip4udp-nat44ed-h16384-p63-s1032192-udir": (16384, 63, "192.168.0.0/18",
                                                   "68.142.68.0 - 68.142.68.15", 1, 500000, 4.5),
    UDIR: (65536, 63, "192.168.0.0/16", "68.142.68.0 - 68.142.68.63", 2, 500000, 18.2),
    "ethip4udp-nat44ed-h262144-p63-s16515072-udir": (262144, 63, "192.168.0.0/14",
                                                     "68.142.68.0 - 68.142.68.255", 7, 500000,
                                                     72.7),
}  # fmt: skip


def test_the_families_are_csits_scales() -> None:
    assert sorted(f.id for f in FAMILIES) == sorted(CSIT_SCALES)


@pytest.mark.parametrize("family_id", sorted(CSIT_SCALES))
def test_each_scale_is_set_up_and_ramped_up_as_csits_suite(
    plan2: DutTestConfig, family_id: str
) -> None:
    hosts, ports, inside, outside, mult, rate, duration = CSIT_SCALES[family_id]
    family = get_family(family_id)
    vpp = family.setup.vpp
    assert isinstance(vpp, NatVpp) and vpp.sessions == hosts * ports
    assert vpp.heap_size_mult == mult
    assert family.ramp_up == RampUp(rate_pps=rate, duration_s=duration)
    assert family.profile.directions[0].flows == hosts * ports
    assert f"HOSTS_{hosts}" in family.tags or (hosts == 1 and "BASE" in family.tags)
    lines = render(family_id, plan2)
    assert f"ip route add {inside} via 10.0.0.2 {NAMES[0]}" in lines
    if "nat44det" in family_id:
        assert lines[-1] == f"det44 add in {inside} out {outside}"
    else:
        per_thread = max_translations_per_thread(hosts * ports, 1)
        assert f"nat44 plugin enable sessions {per_thread}" in lines
        assert lines[-1] == f"nat44 add address {outside}"


@pytest.mark.parametrize(("family_id", "heap"), [
    ("ethip4udp-nat44det-h1024-p63-s64512", "1048M"),
    ("ethip4udp-nat44det-h262144-p63-s16515072", "7168M"),  # 4 x 1.5 GiB + 1 GiB
    ("ethip4udp-nat44ed-h1024-p63-s64512-udir", "1072M"),
    ("ethip4udp-nat44ed-h262144-p63-s16515072-udir", "13312M"),  # 4 x 3 GiB + 1 GiB
])  # fmt: skip
def test_heaps_grow_with_the_session_tables(family_id: str, heap: str) -> None:
    vpp = get_family(family_id).setup.vpp
    assert isinstance(vpp, NatVpp) and f"main-heap-size {heap}" in vpp.startup


@pytest.mark.parametrize("hosts", [1024, 4096, 16384, 262144])
def test_det44_scales_send_back_to_every_outside_address_and_port(hosts: int) -> None:
    family = get_family(next(f for f in CSIT_SCALES if f"nat44det-h{hosts}-" in f))
    inside, outside = family.profile.directions
    first = "172.16.0.0" if hosts == 262144 else "192.168.0.0"
    last = hosts * 63 - 1
    assert inside.src == first and _address(inside, "ip.src", hosts - 1) == str(
        ipaddress.IPv4Address(first) + hosts - 1
    )
    assert _value(inside, "udp.sport", last) == 1086
    addresses = max(1, hosts // 1024)
    assert outside.flows == inside.flows == addresses * 64512
    last_out = str(ipaddress.IPv4Address("68.142.68.0") + addresses - 1)
    if addresses == 1:  # one outside address: only the port varies
        assert outside.dst == last_out and "ip.dst" not in {v.field for v in outside.vary}
    else:
        assert _address(outside, "ip.dst", last) == last_out
    assert _value(outside, "udp.dport", last) == 65535


def test_the_one_host_det44_sends_one_flow_each_way_to_its_translation() -> None:
    family = get_family("ethip4udp-nat44det-h1-p1-s1")
    inside, outside = family.profile.directions
    assert (inside.src, inside.dst, inside.sport, inside.dport) == ("20.0.0.0", "30.0.0.0", 1024,
                                                                    1024)  # fmt: skip
    # det44 gives the one host every port from 1024: its port 1024 goes out as 1024 + 1024
    assert (outside.src, outside.dst, outside.sport, outside.dport) == ("30.0.0.0", "200.0.0.0",
                                                                        1024, 2048)  # fmt: skip
    assert inside.flows == outside.flows == 1 and not family.profile.unidirectional
    assert "ip route add 30.0.0.0/24 via 12.0.0.2 host-dut-if2" in render(family.id, _plan())


def _plan() -> DutTestConfig:
    return plan_dut(load_topology(ROOT / "topologies" / "local-vpp.yaml"), "ip4base")


def test_csit_ids_tags_and_session_counts() -> None:
    det, udir = (get_family(f) for f in (DET, UDIR))
    assert det.duts == udir.duts == (1,)
    assert det.plugins == ("det44",) and udir.plugins == ("nat",)
    assert {"NAT44_DETERMINISTIC", "UDP_BIDIR"} <= set(det.tags)
    assert {"NAT44_ENDPOINT_DEPENDENT", "UDP_UDIR"} <= set(udir.tags)
    assert det.profile.flows_per_direction == udir.profile.directions[0].flows == 65536 * 63
    assert not det.profile.unidirectional and udir.profile.unidirectional
    for family in (det, udir):
        assert isinstance(family.setup.vpp, NatVpp) and family.setup.vpp.fresh
        assert family.ramp_up is not None
        assert not family.setup.runs_on("linux") and "VPP only" in family.setup.why_not("linux")
    # CSIT's ramp-up sends each of the 4128768 flows about once (det44) or twice (NAT44-ED)
    assert det.ramp_up is not None and udir.ramp_up is not None
    assert 1.0 < det.ramp_up.passes(65536 * 63) < 1.05
    assert 2.0 < udir.ramp_up.passes(65536 * 63) < 2.3


def test_det44_traffic_is_csit_65536_hosts_by_63_ports_both_ways() -> None:
    inside, outside = get_family(DET).profile.directions
    last = 65536 * 63 - 1
    sources = {(_value(inside, "ip.src", k), _value(inside, "udp.sport", k)) for k in range(630)}
    assert len(sources) == 630 and {s[1] for s in sources} == {1024}  # the host moves first
    assert (_address(inside, "ip.src", last), _value(inside, "udp.sport", last)) == (
        "192.168.255.255",
        1086,
    )
    assert _value(inside, "udp.sport", 65536) == 1025  # the port moves when the hosts wrap
    assert (_address(outside, "ip.dst", last), _value(outside, "udp.dport", last)) == (
        "68.142.68.63",
        65535,
    )
    dsts = [_address(outside, "ip.dst", k) for k in (0, 1, 63, 64)]
    assert dsts == ["68.142.68.0", "68.142.68.1", "68.142.68.63", "68.142.68.0"]
    assert [_value(outside, "udp.dport", k) for k in (0, 63, 64, 128)] == [1024, 1024, 1025, 1026]


def _stream(family: str, direction: int, count: int) -> list[tuple[str, str, int, int]]:
    """(source, destination, source port, destination port) of the first ``count`` frames."""
    profile = get_family(family).profile
    out = []
    for frame in stream_frames(profile, 64, direction, "02:00:00:00:00:01", "02:00:00:00:00:02",
                               count):  # fmt: skip
        packet = Ether(frame)
        out.append((packet[IP].src, packet[IP].dst, packet[UDP].sport, packet[UDP].dport))
    return out


@pytest.mark.parametrize("family", [DET, UDIR])
def test_the_field_engine_order_is_csits_the_host_every_frame_the_port_when_hosts_wrap(
    family: str,
) -> None:
    """CSIT's trex-stl-ethip4udp-65536u63p[-udir]: sIP (next_var sport) steps every frame."""
    frames = _stream(family, 0, 70)
    assert [f[0] for f in frames] == [f"192.168.0.{k}" for k in range(70)]
    assert {f[2] for f in frames} == {1024}
    if family == UDIR:  # its own var, stepping every frame with the host
        assert [(f[1], f[3]) for f in frames] == [(f"20.0.0.{k}", 8080) for k in range(70)]
    else:
        assert {(f[1], f[3]) for f in frames} == {("20.0.0.0", 1024)}
        back = _stream(family, 1, 70)  # dIP (next_var dport) every frame, the port on its wrap
        assert [f[1] for f in back] == [f"68.142.68.{k % 64}" for k in range(70)]
        assert [f[3] for f in back] == [1024 + k // 64 for k in range(70)]


def _value(headers: Headers, field: str, frame: int) -> int:
    (vary,) = [v for v in headers.vary if v.field == field]
    return base_value(headers, vary.field, "", "") + value_index(vary, frame, 0) * vary.step


def _address(headers: Headers, field: str, frame: int) -> str:
    return str(ipaddress.IPv4Address(_value(headers, field, frame)))


def _det44_out(address: str, sport: int) -> tuple[str, int]:
    """Where VPP's det44 (in 192.168.0.0/16, out 68.142.68.0/26) puts a new session."""
    offset = int(ipaddress.IPv4Address(address)) - int(ipaddress.IPv4Address("192.168.0.0"))
    out = ipaddress.IPv4Address("68.142.68.0") + offset // 1024
    return str(out), 1024 + 63 * (offset % 1024) + sport % 63


@pytest.mark.parametrize("frame_size", [64, 1518, "IMIX"])
def test_the_sample_sends_back_to_exactly_the_sessions_it_makes(frame_size: int | str) -> None:
    profile = get_family(DET).profile
    sample = pcap_profile(profile, frame_size)
    inside, outside = sample.directions
    assert sample.sampler is None and inside.flows == outside.flows
    assert inside.flows == sample_size(inside, frame_size) == pcap_flows(profile, frame_size, 0)
    made = {
        _det44_out(_address(inside, "ip.src", k), _value(inside, "udp.sport", k))
        for k in range(inside.flows)
    }
    back = {(outside.dst, _value(outside, "udp.dport", k)) for k in range(outside.flows)}
    assert len(made) == inside.flows and made == back


def test_a_sample_never_exceeds_one_outside_address_or_the_frame_list() -> None:
    assert sample_hosts(65536) == 1024 and sample_hosts(44208) == 701 and sample_hosts(5) == 1
    profile = get_family(DET).profile
    assert profile.sampler is not None
    assert profile.sampler(200).directions[0].flows == 189  # 3 hosts x 63 ports
    frames = build_frames(profile, 64, 1, "02:00:00:00:00:01", "02:00:00:00:00:02")
    assert len(frames) == 64512  # the sample's frames, not a stride through 4128768


def test_udir_sample_gives_every_flow_its_own_destination() -> None:
    sample = pcap_profile(get_family(UDIR).profile, 64)
    inside = sample.directions[0]
    assert inside.flows == 64512 and inside.dport == 8080
    tuples = {
        (_value(inside, "ip.src", k), _value(inside, "udp.sport", k), _value(inside, "ip.dst", k))
        for k in range(inside.flows)
    }
    assert len(tuples) == inside.flows


def test_det44_setup_routes_csit_networks_and_maps_inside_to_outside(
    plan2: DutTestConfig,
) -> None:
    lines = render(DET, plan2)
    inside, outside = NAMES
    tg1, tg2 = (port.peer_mac.lower() for port in plan2.ports)
    assert lines[:2] == [f"set interface state {inside} up", f"set interface ip address {inside} "
                         "10.0.0.1/24"]  # fmt: skip
    assert f"set ip neighbor {inside} 10.0.0.2 {tg1} static" in lines
    assert f"set ip neighbor {outside} 12.0.0.2 {tg2} static" in lines
    assert f"ip route add 192.168.0.0/16 via 10.0.0.2 {inside}" in lines
    assert f"ip route add 20.0.0.0/24 via 12.0.0.2 {outside}" in lines
    assert lines[-3:] == [
        "det44 plugin enable",
        f"set interface det44 inside {inside} outside {outside}",
        "det44 add in 192.168.0.0/16 out 68.142.68.0/26",
    ]
    # the plan's 192.168.10.0/24 and .20.0/24 lie inside 192.168.0.0/16: not used
    assert not any("192.168.10." in line or "192.168.20." in line for line in lines)


@pytest.mark.parametrize(("cores", "per_thread"), [(1, 655360), (2, 327680), (4, 163840)])
def test_nat44ed_setup_sizes_sessions_per_thread_as_csit(
    plan2: DutTestConfig, cores: int, per_thread: int
) -> None:
    # CSIT: 10 x 2^ceil(log2(sessions / (10 x threads))); 4128768 sessions give 2^19 x 10
    assert max_translations_per_thread(65536 * 63, cores) == 5242880 // cores
    assert max_translations_per_thread(64512 * 10, cores) == per_thread
    lines = render(UDIR, plan2, cores)
    assert f"nat44 plugin enable sessions {5242880 // cores}" in lines
    assert f"set interface nat44 in {NAMES[0]} out {NAMES[1]}" in lines
    assert "nat44 add address 68.142.68.0 - 68.142.68.63" in lines
    assert f"ip route add 20.0.0.0/8 via 12.0.0.2 {NAMES[1]}" in lines


def test_set_ups_ask_for_heaps_that_hold_the_session_tables() -> None:
    det, udir = (get_family(f).setup.vpp for f in (DET, UDIR))
    assert isinstance(det, NatVpp) and isinstance(udir, NatVpp)
    assert "main-heap-size 2560M" in det.startup and "main-heap-size 4096M" in udir.startup


def test_nat_runs_on_a_2node_chain_only(plan2: DutTestConfig) -> None:
    with pytest.raises(DutError, match="2-node chain"):
        render(DET, dataclasses.replace(plan2, chain=2, position=1))


def test_session_parsers_read_vpp_output_and_quote_what_they_cannot() -> None:
    assert det44_sessions(DET44_MAPPINGS) == 64512
    assert det44_sessions(DET44_MAPPINGS + DET44_MAPPINGS.replace("64512", "8")) == 64520
    assert nat44_udp_sessions(NAT44_SUMMARY) == 64504  # total less timed out
    with pytest.raises(ValueError, match=r"no 'sessions number'.*nothing here"):
        det44_sessions("nothing here")
    with pytest.raises(ValueError, match="show nat44 summary"):
        nat44_udp_sessions("tcp sessions:\n    total: 3 (timed out: 0)")
    det, udir = (get_family(f).setup.vpp for f in (DET, UDIR))
    assert isinstance(det, NatVpp) and isinstance(udir, NatVpp)
    assert det.state_check.command == "show det44 mappings"
    assert udir.state_check.parse(NAT44_SUMMARY) == 64504


def test_bad_definitions_name_the_family() -> None:
    with pytest.raises(FamilyDefinitionError, match="fam: mode 'nat64'"):
        NatVpp("nat64", 10, family="fam")
    with pytest.raises(FamilyDefinitionError, match="fam: 0 hosts of 63 ports"):
        NatVpp("det44", 0, family="fam")
    with pytest.raises(FamilyDefinitionError, match=r"fam: 1000 hosts .* power of two"):
        NatVpp("ed", 1000, family="fam")
    with pytest.raises(FamilyDefinitionError, match="rate_pps=0"):
        RampUp(rate_pps=0, duration_s=1.0)
    with pytest.raises(FamilyDefinitionError, match="duration_s=inf"):
        RampUp(rate_pps=1.0, duration_s=float("inf"))


def test_ramp_up_of_a_sample_sends_as_many_frames_per_flow_at_least_a_moment() -> None:
    ramp = RampUp(rate_pps=66061.0, duration_s=63.9)
    full = 65536 * 63
    assert ramp.duration_for(full, full, 66061.0) == pytest.approx(63.9)
    assert ramp.duration_for(full, 64512, 66061.0) == pytest.approx(63.9 * 64512 / full)
    assert ramp.duration_for(full, 64512, 33030.5) == pytest.approx(2 * 63.9 * 64512 / full)
    assert ramp.duration_for(full, 10, 66061.0) == 0.1
