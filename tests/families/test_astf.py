"""The stateful (TRex ASTF) families: their transactions, table rows, VPP set-ups and sim cost.

Facts checked against CSIT's suites and TrafficGenerator (see
``ndrpdr.profiles.transactions``): 65536 x 63 = 4128768 transactions a
trial; TCP cps 7 packets (4 + 3), UDP cps 2; tput 5 data frames each way.
The address ranges, VPP set-ups, ramp-ups and resets are read from CSIT's
git directory at run time (skipped without it): each suite's variables and
``${traffic_profile}``. The real VPP cannot run here (SIGILL), so the
set-up is checked as the vppctl lines it renders for a planned DUT.
"""

from __future__ import annotations

import ipaddress
import re
from pathlib import Path

import pytest

from csit_schema_source import csit_git_or_skip, git_show
from csit_suites import csit_profiles, suites_of
from ndrpdr.dut.plan import plan_duts
from ndrpdr.families import get_family
from ndrpdr.families.kinds.astf import defs
from ndrpdr.families.kinds.nat.vpp import max_translations_per_thread
from ndrpdr.profiles import ProfileError, Transactions
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.path import compute_path

ROOT = Path(__file__).resolve().parents[2]
NAMES = ("eth0", "eth1")
IDS = [
    f"ethip4{proto}-{feature}-h65536-p63-s4128768-{kind}"
    for feature in ("ip4base", "nat44ed")
    for proto in ("tcp", "udp")
    for kind in ("cps", "tput")
]


def test_csits_eight_ids_are_stateful_families() -> None:
    assert [f.id for f in defs.FAMILIES] == IDS
    for family_id in IDS:
        family = get_family(family_id)
        stateful = family.profile.transactions
        assert stateful is not None
        assert stateful.scale == 4128768 == int(family_id.split("-s")[1].split("-")[0])
        proto, kind = stateful.protocol.upper(), stateful.kind.upper()
        assert f"{proto}_{kind}" in family.tags  # CSIT's TCP_CPS, UDP_TPUT...
        assert ("NAT44" in family.tags) == ("nat44ed" in family_id)
        # CSIT's tags: its nat44ed cps suites are a FEATURE and NAT44_ENDPOINT_DEPENDENT, tput not
        endpoint_dependent = "nat44ed" in family_id and kind == "CPS"
        assert ("NAT44_ENDPOINT_DEPENDENT" in family.tags) == endpoint_dependent
        assert family.setup.vpp is not None
        for driver in ("linux", "testpmd", "l3fwd", "ovs"):
            assert not family.setup.runs_on(driver)
            assert f"the {driver} driver" in family.setup.why_not(driver)
            assert "stateful" in family.setup.why_not(driver)


@pytest.mark.parametrize(
    ("kind", "protocol", "client", "server", "expected"),
    [
        ("cps", "udp", 1, 1, 4128768),
        ("cps", "tcp", 4, 3, 4128768),
        ("tput", "udp", 5, 5, 4128768 * 10),
        ("tput", "tcp", 9, 8, 4128768 * 17),
    ],
)
def test_packets_per_transaction_and_what_a_trial_attempts(
    kind: str, protocol: str, client: int, server: int, expected: int
) -> None:
    traffic = Transactions(kind, protocol, 65536, 63)  # type: ignore[arg-type]
    assert (traffic.packets_client, traffic.packets_server) == (client, server)
    assert traffic.expected() == expected
    assert traffic.transaction_type == f"{protocol}_{'cps' if kind == 'cps' else 'pps'}"
    assert traffic.duration_s(expected / 2) == pytest.approx(2.0)


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        ({"kind": "pps"}, "kind 'pps'"),
        ({"protocol": "sctp"}, "protocol 'sctp'"),
        ({"hosts": 0}, "hosts 0"),
        ({"data_frames": True}, "data_frames True"),
    ],
)
def test_a_bad_transaction_field_is_named(fields: dict[str, object], named: str) -> None:
    args: dict[str, object] = {"kind": "cps", "protocol": "udp", "hosts": 1, "ports": 1}
    with pytest.raises(ProfileError, match=named):
        Transactions(**{**args, **fields})  # type: ignore[arg-type]


def test_a_trial_duration_needs_a_positive_load() -> None:
    with pytest.raises(ProfileError, match="load 0"):
        Transactions("cps", "udp", 1, 1).duration_s(0)


def _rendered(family_id: str) -> tuple[list[str], list[str]]:
    loaded = load_topology(ROOT / "topologies" / "local-vpp.yaml")
    setup = get_family(family_id).setup
    assert setup.vpp is not None
    (config,) = plan_duts(loaded, compute_path(loaded), "ip4base", family=setup).values()
    return setup.vpp.commands(config, NAMES), setup.vpp.undo_commands(config, NAMES)


def _suite(family_id: str) -> str:
    git_dir = csit_git_or_skip()
    (path,) = suites_of(git_dir, family_id)
    return git_show(git_dir, path)


def _variables(text: str) -> dict[str, str]:
    """The suite's ``| ${name}= | value`` variables (``${16}`` read as 16)."""
    found = re.findall(r"^\| \$\{(\w+)\}= \| (.+?)\s*$", text, re.M)
    return {name: value.strip("${}").replace("_", "") for name, value in found}


def _macs(family_id: str) -> tuple[str, str]:
    loaded = load_topology(ROOT / "topologies" / "local-vpp.yaml")
    setup = get_family(family_id).setup
    (config,) = plan_duts(loaded, compute_path(loaded), "ip4base", family=setup).values()
    first, second = (port.peer_mac.lower() for port in config.ports)
    return first, second


@pytest.mark.parametrize("family_id", IDS)
def test_traffic_is_the_csit_profiles_ranges_and_limit(family_id: str) -> None:
    """The clients and servers of the suite's ``${traffic_profile}`` (CSIT's git directory)."""
    git_dir = csit_git_or_skip()
    family = get_family(family_id)
    traffic = family.profile.transactions
    assert traffic is not None
    (profile,) = csit_profiles(git_dir, family_id)
    assert profile == family.csit_profile
    text = git_show(git_dir, f"GPL/traffic_profiles/trex/{profile}.py")
    ip = dict(re.findall(r'(p1_(?:src|dst)_(?:start|end)_ip) = u?"([0-9.]+)"', text))
    for network, side in ((traffic.clients, "src"), (traffic.servers, "dst")):
        ours = ipaddress.IPv4Network(network)
        theirs = (ip[f"p1_{side}_start_ip"], ip[f"p1_{side}_end_ip"])
        assert (str(ours[0]), str(ours[-1])) == theirs
    assert f"limit={traffic.scale}" in text
    directions = family.profile.directions
    assert {h.src for h in directions} | {h.dst for h in directions} == {"192.168.0.0", "20.0.0.0"}


def test_ip4base_vpp_is_csits_ipv4_forwarding_of_the_two_16s() -> None:
    """CSIT's ``Initialize IPv4 forwarding in circular topology | 192.168.0.0 | 20.0.0.0 |
    ${16}`` (2-node): its neighbours, addresses and routes, in its order."""
    for family_id in IDS[:4]:
        suite = _suite(family_id)
        call = r"Initialize IPv4 forwarding in circular topology\s*\n\| \| \.\.\. \| "
        assert re.search(call + r"192\.168\.0\.0 \| 20\.0\.0\.0 \| \$\{16\}", suite)
        assert "ramp_up_rate" not in suite and "resetter" not in suite
        first, second = _macs(family_id)
        lines, undo = _rendered(family_id)
        assert lines == [
            "set interface state eth0 up",
            "set interface state eth1 up",
            f"set ip neighbor eth0 10.10.10.2 {first} static",
            f"set ip neighbor eth1 20.20.20.2 {second} static",
            "set interface ip address eth0 10.10.10.1/24",
            "set interface ip address eth1 20.20.20.1/24",
            "ip route add 192.168.0.0/16 via 10.10.10.2 eth0",
            "ip route add 20.0.0.0/16 via 20.20.20.2 eth1",
        ]
        assert undo == [
            "ip route del 192.168.0.0/16 via 10.10.10.2 eth0",
            "ip route del 20.0.0.0/16 via 20.20.20.2 eth1",
        ]
        family = get_family(family_id)
        assert family.ramp_up is None and family.setup.vpp is not None
        assert family.setup.vpp.trial_reset is None and family.setup.vpp.state_check is None
    keyword = git_show(csit_git_or_skip(), "resources/libraries/robot/ip/ip4.robot")
    for fact in ("10.10.10.2", "20.20.20.2", "10.10.10.1 | 24", "20.20.20.1 | 24"):
        assert fact in keyword


@pytest.mark.parametrize("family_id", IDS[4:])
def test_nat44ed_vpp_ramp_up_and_reset_are_the_suites(family_id: str) -> None:
    """The suite's variables in CSIT's NAT44 keywords' lines; its ramp-up rate (tput) or,
    without one, its resetter (nat.robot sets it only then): the pool deleted and added."""
    suite = _suite(family_id)
    var = _variables(suite)
    first, second = _macs(family_id)
    lines, _ = _rendered(family_id)
    pool = f"{var['out_net']} - {var['out_net_end']}"
    per_thread = max_translations_per_thread(int(var["n_hosts"]) * int(var["n_ports"]), 1)
    assert lines == [
        "set interface state eth0 up",
        f"set interface ip address eth0 {var['dut1_if1_ip4']}/{var['dut1_if1_mask']}",
        f"set ip neighbor eth0 {var['tg_if1_ip4']} {first} static",
        "set interface state eth1 up",
        f"set interface ip address eth1 {var['dut1_if2_ip4']}/{var['dut1_if2_mask']}",
        f"set ip neighbor eth1 {var['tg_if2_ip4']} {second} static",
        f"ip route add {var['in_net']}/{var['in_mask']} via {var['tg_if1_ip4']} eth0",
        f"ip route add {var['dest_net']}/{var['dest_mask']} via {var['tg_if2_ip4']} eth1",
        f"nat44 plugin enable sessions {per_thread}",
        "set interface nat44 in eth0 out eth1",
        f"nat44 add address {pool}",
    ]
    family = get_family(family_id)
    vpp, traffic = family.setup.vpp, family.profile.transactions
    assert vpp is not None and traffic is not None
    assert vpp.heap_size_mult == int(var["heap_size_mult"]) and vpp.fresh
    rate = var.get("ramp_up_rate")
    if rate is None:
        assert family.ramp_up is None and traffic.kind == "cps"
        assert vpp.trial_reset is not None
        assert vpp.trial_reset.commands == (f"nat44 add address {pool} del",
                                            f"nat44 add address {pool}")  # fmt: skip
        return
    assert vpp.trial_reset is None and traffic.kind == "tput"
    ramp = family.ramp_up
    assert ramp is not None and not ramp.per_direction
    assert ramp.rate_pps == float(rate) * traffic.packets_aggregated  # tps in our pps unit
    assert ramp.duration_s == pytest.approx(traffic.scale / float(rate))  # the whole scale
    protocol = traffic.protocol.upper()
    assert f"Verify NAT44 {protocol} sessions number on DUT1 node" in suite
    assert vpp.state_check is not None and protocol in vpp.state_check.what
    summary = ("tcp sessions:\n    total: 9 (timed out: 2)\n"
               "udp sessions:\n    total: 5 (timed out: 1)\n")  # fmt: skip
    assert vpp.state_check.parse(summary) == (7 if protocol == "TCP" else 4)


def test_sim_cost_a_connection_is_its_frames_plus_a_session() -> None:
    def one_core(family_id: str) -> float:
        return get_family(family_id).profile.cost.capacity_pps(64, 1)

    udp_routed = one_core("ethip4udp-ip4base-h65536-p63-s4128768-cps")
    tcp_routed = one_core("ethip4tcp-ip4base-h65536-p63-s4128768-cps")
    udp_frames = one_core("ethip4udp-ip4base-h65536-p63-s4128768-tput")
    assert udp_routed == pytest.approx(udp_frames / 2)  # 2 frames a UDP connection
    assert tcp_routed == pytest.approx(udp_frames / 7)  # 7 frames a TCP connection
    assert one_core("ethip4udp-nat44ed-h65536-p63-s4128768-cps") < udp_routed / 4  # the session
    assert one_core("ethip4udp-nat44ed-h65536-p63-s4128768-tput") < udp_frames
