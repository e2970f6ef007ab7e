"""The stateful (TRex ASTF) families: their transactions, table rows, VPP set-ups and sim cost.

Facts checked against CSIT's suites and TrafficGenerator (see
``ndrpdr.profiles.transactions``): 65536 x 63 = 4128768 transactions a
trial; TCP cps 7 packets (4 + 3), UDP cps 2; tput 5 data frames each way.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ndrpdr.dut.plan import plan_duts
from ndrpdr.families import get_family
from ndrpdr.families.kinds.astf import defs
from ndrpdr.families.kinds.astf import vpp as astf
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


def test_vpp_routes_clients_and_servers_to_the_ports_facing_them() -> None:
    lines, undo = _rendered(IDS[0])
    client = next(line for line in lines if line.startswith(f"ip route add {astf.CLIENTS}"))
    server = next(line for line in lines if line.startswith(f"ip route add {astf.SERVERS}"))
    assert client.endswith(" eth0") and server.endswith(" eth1")
    assert f"ip route del {astf.CLIENTS}" in " | ".join(undo)
    assert not any("nat44" in line for line in lines)


def test_vpp_nat44ed_inside_on_the_client_port_with_room_for_every_session() -> None:
    lines, undo = _rendered("ethip4udp-nat44ed-h65536-p63-s4128768-cps")
    assert "nat44 plugin enable sessions 4128768" in lines
    assert "set interface nat44 in eth0 out eth1" in lines
    assert "nat44 add address 68.142.68.0 - 68.142.68.63" in lines
    assert lines.index("nat44 plugin enable sessions 4128768") > max(
        i for i, line in enumerate(lines) if line.startswith("ip route add")
    )
    assert undo[0] == "nat44 plugin disable"
    assert get_family("ethip4udp-nat44ed-h65536-p63-s4128768-cps").plugins == ("nat",)


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
