"""The VPP set-ups of the 2-node families: the vppctl lines each renders, from the plan and traffic.

Addresses, MACs and prefixes come from the plan of a real topology
(topologies/local-vpp.yaml for 2-node, labbox-3n-vpp.yaml for 3-node) and
destinations from the family's own traffic headers, so a line that drifts
from either fails here. The CLI syntax itself was run against VPP v26.06
(tests/dut/test_vpp_families_real.py runs families end to end).
"""

from __future__ import annotations

import dataclasses
import ipaddress
from pathlib import Path

import pytest

from ndrpdr.dut.base import DutError, DutTestConfig
from ndrpdr.dut.plan import plan_dut, plan_duts
from ndrpdr.families import Family, FamilyDefinitionError, all_families, get_family
from ndrpdr.families.kinds.acl.vpp import NO_HIT_RULES, classify_mask
from ndrpdr.families.kinds.l2.vpp import CSIT_2N_VLANS, DUT_LINK_VLAN, Dot1qBridge, source_macs
from ndrpdr.families.vppip import HostRoutes
from ndrpdr.profiles import Headers, Vary
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.path import compute_path

ROOT = Path(__file__).resolve().parents[2]
NAMES = ("host-dut-if1", "host-dut-if2")

#: The 2-node families whose VPP set-up this module covers.
TWO_NODE = (
    "ethip4-ip4base",
    "ethip4udp-ip4base",
    "ethip4-ip4scale20k",
    "ethip4-ip4scale20k-rnd",
    "ethip4-ip4scale2m-rnd",
    "ethip6-ip6base",
    "ethip6-ip6scale20k",
    "ethip6-ip6scale20k-rnd",
    "ethip6-ip6scale2m-rnd",
    "eth-l2xcbase",
    "eth-l2patch",
    "eth-l2bdbasemaclrn",
    "dot1q-l2bdbasemaclrn",
    "eth-l2bdscale10kmaclrn",
    "eth-l2bdscale1mmaclrn",
    "ethip4udp-ip4base-iacl50sf-10kflows",
    "ethip4udp-ip4base-iacl50sl-10kflows",
    "ethip4udp-ip4base-oacl50sf-10kflows",
    "ethip4udp-ip4base-oacl50sl-10kflows",
    "ethip4-ip4base-iacldstbase",
    "ethip6-ip6base-iacldstbase",
)


@pytest.fixture(scope="module")
def plan2() -> DutTestConfig:
    return plan_dut(load_topology(ROOT / "topologies" / "local-vpp.yaml"), "ip4base")


@pytest.fixture(scope="module")
def plan3() -> tuple[DutTestConfig, DutTestConfig]:
    topology = load_topology(ROOT / "topologies" / "labbox-3n-vpp.yaml")
    path = compute_path(topology)
    configs = plan_duts(topology, path, "ip4base")
    return configs[path.duts[0]], configs[path.duts[1]]


def render(family: Family, config: DutTestConfig) -> tuple[list[str], list[str]]:
    """(set-up lines, undo lines) of ``family`` on ``config``'s DUT."""
    vpp = family.setup.vpp
    assert vpp is not None, family.id
    config = dataclasses.replace(config, family=family.setup)
    return vpp.commands(config, NAMES), vpp.undo_commands(config, NAMES)


def test_every_2node_family_runs_on_vpp_and_renders_lines(plan2: DutTestConfig) -> None:
    for family_id in TWO_NODE:
        family = get_family(family_id)
        assert family.setup.runs_on("vpp"), family_id
        commands, undo = render(family, plan2)
        assert commands and all(line.strip() == line and line for line in commands), family_id
        assert f"set interface state {NAMES[0]} up" in commands, family_id
        assert len(set(commands)) == len(commands), family_id
        assert all(line not in commands for line in undo), family_id


def test_only_the_acl_families_need_a_plugin() -> None:
    for family in all_families():
        if family.setup.vpp is None or family.id not in TWO_NODE:
            continue
        expected = ("acl",) if "acl50" in family.id else ()
        assert tuple(family.setup.vpp.plugins) == expected, family.id


def test_ip4base_routes_each_direction_prefix_via_the_tg(plan2: DutTestConfig) -> None:
    commands, undo = render(get_family("ethip4-ip4base"), plan2)
    for name, port in zip(NAMES, plan2.ports, strict=True):
        assert f"set interface ip address {name} {port.ip4_address}" in commands
        assert f"set ip neighbor {name} {port.peer_ip4} {port.peer_mac} static" in commands
        assert f"ip route add {port.routed_prefix} via {port.peer_ip4} {name}" in commands
    assert undo == [line.replace(" add ", " del ", 1) for line in commands if "ip route" in line]


def test_every_route_a_family_adds_its_undo_deletes(plan2: DutTestConfig) -> None:
    """Routes outlive deleted interfaces in VPP and would take the next test's frames astray."""
    for family_id in TWO_NODE:
        commands, undo = render(get_family(family_id), plan2)
        added = [line for line in commands if line.startswith("ip route add ")]
        deleted = [line for line in undo if line.startswith("ip route del ")]
        assert sorted(deleted) == sorted(line.replace(" add ", " del ", 1) for line in added), (
            family_id
        )


def _destinations(headers: Headers) -> tuple[str, int]:
    (vary,) = [v for v in headers.vary if v.field == "ip.dst"]
    return headers.dst, vary.count


@pytest.mark.parametrize(
    ("family_id", "per_direction", "length"),
    [
        ("ethip4-ip4scale20k", 10_000, 32),
        ("ethip4-ip4scale20k-rnd", 10_000, 32),
        ("ethip4-ip4scale2m-rnd", 1_000_000, 32),
        ("ethip4-ip4scale60k-rnd", 10_000, 32),  # CSIT's 60k suite: 2 TG ports, 2 x 10k
        ("ethip6-ip6scale20k", 10_000, 128),
        ("ethip6-ip6scale2m-rnd", 1_000_000, 128),
    ],
)
def test_scale_families_add_a_host_route_per_destination_via_the_egress_peer(
    plan2: DutTestConfig, family_id: str, per_direction: int, length: int
) -> None:
    family = get_family(family_id)
    commands, undo = render(family, plan2)
    counted = [line for line in commands if " count " in line]
    assert len(counted) == 2
    for direction, line in enumerate(counted):
        first, count = _destinations(family.profile.directions[direction])
        assert count == per_direction
        egress = plan2.ports[1 - direction]
        via = egress.peer_ip4 if length == 32 else egress.peer_ip6
        assert (
            line == f"ip route add count {count} {first}/{length} via {via} {NAMES[1 - direction]}"
        )
    assert undo[:2] == [line.replace("ip route add ", "ip route del ", 1) for line in counted]
    total = sum(int(line.split()[4]) for line in counted)
    assert total == 2 * per_direction


def test_host_routes_refuse_destinations_that_are_not_consecutive() -> None:
    stepped = Headers(4, "10.0.0.1", "20.0.0.0", 61, vary=(Vary("ip.dst", 100, step=2),))
    single = Headers(4, "20.0.0.1", "10.0.0.0", 61)
    with pytest.raises(FamilyDefinitionError, match=r"family my-scale: direction 0: .*steps by 2"):
        HostRoutes("my-scale", (stepped, single))
    assert HostRoutes("my-scale", (single, single)).count == 2  # one destination each


def test_ip6base_addresses_neighbours_routes_and_no_router_advertisements(
    plan2: DutTestConfig,
) -> None:
    commands, _ = render(get_family("ethip6-ip6base"), plan2)
    for name, port in zip(NAMES, plan2.ports, strict=True):
        address = f"set interface ip address {name} {port.ip6_address}"
        assert address in commands
        assert commands.index(f"ip6 nd {name} ra-suppress") > commands.index(address)
        assert f"set ip neighbor {name} {port.peer_ip6} {port.peer_mac} static" in commands
        assert f"ip route add {port.routed_prefix6} via {port.peer_ip6} {name}" in commands
    assert not any(".".join(("192", "168")) in line for line in commands)  # IPv6 only


def test_ip6_without_addresses_names_the_port(plan2: DutTestConfig) -> None:
    port = dataclasses.replace(plan2.ports[1], ip6_address=None)
    config = dataclasses.replace(plan2, ports=(plan2.ports[0], port))
    with pytest.raises(DutError, match=rf"port {port.key}: no ip6_address"):
        render(get_family("ethip6-ip6base"), config)


def test_l2patch_patches_both_ways_and_undoes_it(plan2: DutTestConfig) -> None:
    commands, undo = render(get_family("eth-l2patch"), plan2)
    a, b = NAMES
    assert commands[-2:] == [f"test l2patch rx {a} tx {b}", f"test l2patch rx {b} tx {a}"]
    assert undo == [f"{line} del" for line in commands[-2:]]


def test_l2bd_bridges_both_ports_with_learning(plan2: DutTestConfig) -> None:
    commands, undo = render(get_family("eth-l2bdbasemaclrn"), plan2)
    assert "create bridge-domain 1 learn 1 forward 1 uu-flood 1 flood 1 arp-term 0" in commands
    assert [line for line in commands if "l2 bridge" in line] == [
        f"set interface l2 bridge {name} 1" for name in NAMES
    ]
    assert not any("learn-limit" in line for line in commands)
    assert undo == [*(f"set interface l3 {name}" for name in NAMES), "create bridge-domain 1 del"]


def test_l2bd_scale_learns_the_macs_its_traffic_carries() -> None:
    assert source_macs(get_family("eth-l2bdscale10kmaclrn").profile.directions) == 10_000
    assert source_macs(get_family("eth-l2bdscale1mmaclrn").profile.directions) == 1_000_000
    assert source_macs(get_family("eth-l2bdbasemaclrn").profile.directions) == 2


def test_dot1q_subinterfaces_pop_the_tag_on_each_tg_port(plan2: DutTestConfig) -> None:
    family = get_family("dot1q-l2bdbasemaclrn")
    commands, undo = render(family, plan2)
    vlans = [h.vlan or CSIT_2N_VLANS[d] for d, h in enumerate(family.profile.directions)]
    for name, vlan in zip(NAMES, vlans, strict=True):
        sub = f"{name}.{vlan}"
        assert f"create sub-interfaces {name} {vlan} dot1q {vlan} exact-match" in commands
        assert f"set interface l2 tag-rewrite {sub} pop 1" in commands
        assert f"set interface l2 bridge {sub} 1" in commands
        assert f"delete sub-interface {sub}" in undo
    assert undo.index("create bridge-domain 1 del") < undo.index(
        f"delete sub-interface {NAMES[0]}.{vlans[0]}"
    )


def test_dot1q_takes_the_vlans_the_traffic_carries(plan2: DutTestConfig) -> None:
    tagged = (
        Headers(4, "198.18.0.1", "198.18.1.1", 61, vlan=300),
        Headers(4, "198.18.1.1", "198.18.0.1", 61, vlan=400),
    )
    assert Dot1qBridge(tagged).vlans(plan2) == (300, 400)


def test_dot1q_on_3_nodes_tags_the_dut_link_with_vlan_10(
    plan3: tuple[DutTestConfig, DutTestConfig],
) -> None:
    directions = get_family("dot1q-l2bdbasemaclrn").profile.directions
    bridge = Dot1qBridge(directions)
    first, second = (h.vlan or CSIT_2N_VLANS[d] for d, h in enumerate(directions))
    assert bridge.vlans(plan3[0]) == (first, DUT_LINK_VLAN)
    assert bridge.vlans(plan3[1]) == (DUT_LINK_VLAN, second)


@pytest.mark.parametrize(("side", "kind"), [("i", "sf"), ("i", "sl"), ("o", "sf"), ("o", "sl")])
def test_acl50_has_50_misses_then_the_action_for_both_directions(
    plan2: DutTestConfig, side: str, kind: str
) -> None:
    family = get_family(f"ethip4udp-ip4base-{side}acl50{kind}-10kflows")
    commands, undo = render(family, plan2)
    (acl,) = [line for line in commands if line.startswith("set acl-plugin acl ")]
    rules = acl.removeprefix("set acl-plugin acl ").split(", ")
    assert len(rules) == NO_HIT_RULES + 2
    action = "permit+reflect" if kind == "sf" else "permit"
    sources = [str(ipaddress.ip_network(p.routed_prefix)) for p in plan2.ports]
    assert rules[-2:] == [f"{action} src {source} dst 0.0.0.0/0" for source in sources]
    for k, rule in enumerate(rules[:NO_HIT_RULES]):
        # CSIT's no-hit rules: protocol 0 (its rules name none), source and destination port
        assert rule == (
            f"permit src 30.30.30.{1 + k}/32 dst 40.40.40.{1 + k}/32 proto 0 "
            f"sport {1000 + k} dport {1000 + k}"
        )
    # the traffic's own sources are in the hit rules' prefixes, never in a miss rule's
    for direction, headers in enumerate(family.profile.directions):
        assert ipaddress.ip_address(headers.src) in ipaddress.ip_network(sources[direction])
    where = "input" if side == "i" else "output"
    applied = [f"set acl-plugin interface {name} {where} acl 0" for name in NAMES]
    assert commands[-2:] == applied
    assert commands.index(acl) < commands.index(applied[0])
    assert undo[:3] == [f"{line} del" for line in applied] + ["delete acl-plugin acl index 0"]


def test_acl50_on_3_nodes_only_dut1_filters(plan3: tuple[DutTestConfig, DutTestConfig]) -> None:
    family = get_family("ethip4udp-ip4base-iacl50sf-10kflows")
    first, first_undo = render(family, plan3[0])
    second, second_undo = render(family, plan3[1])
    assert any("acl-plugin" in line for line in first) and first_undo
    assert not any("acl-plugin" in line for line in second)
    assert all(line.startswith("ip route del ") for line in second_undo)
    assert any(line.startswith("ip route add") for line in second)


def test_classify_mask_covers_the_destination_prefix_only() -> None:
    for version, offset, length, bits in ((4, 30, 4, 24), (6, 38, 16, 112)):
        mask = bytes.fromhex(classify_mask(version))
        assert len(mask) % 16 == 0
        ones = [i for i, byte in enumerate(mask) if byte]
        assert ones[0] == offset and ones[-1] < offset + length
        assert sum(bin(byte).count("1") for byte in mask) == bits


@pytest.mark.parametrize("version", [4, 6])
def test_iacldstbase_classifies_each_direction_destination_on_input(
    plan2: DutTestConfig, version: int
) -> None:
    family = get_family(f"ethip{version}-ip{version}base-iacldstbase")
    commands, undo = render(family, plan2)
    assert f"classify table mask hex {classify_mask(version)} buckets 2 memory-size 2M" in commands
    sessions = [line for line in commands if line.startswith("classify session")]
    for direction, headers in enumerate(family.profile.directions):
        network = ipaddress.ip_address(sessions[direction].split()[-1])  # port d: direction d
        length = 24 if version == 4 else 112
        assert ipaddress.ip_address(headers.dst) in ipaddress.ip_network(f"{network}/{length}")
    tables = [f"set interface input acl intfc {name} ip{version}-table 0" for name in NAMES]
    assert commands[-2:] == tables
    assert undo[:3] == [f"{line} del" for line in tables] + ["classify table table 0 del"]


def test_iacldstbase_on_3_nodes_classifies_on_the_tg_ports(
    plan3: tuple[DutTestConfig, DutTestConfig],
) -> None:
    family = get_family("ethip4-ip4base-iacldstbase")
    first, _ = render(family, plan3[0])
    second, _ = render(family, plan3[1])
    assert [line for line in first if "input acl" in line] == [
        f"set interface input acl intfc {NAMES[0]} ip4-table 0"
    ]
    assert [line for line in second if "input acl" in line] == [
        f"set interface input acl intfc {NAMES[1]} ip4-table 0"
    ]
    # DUT1 classifies direction 0 (towards TG port B), DUT2 direction 1
    assert first[-2].endswith(
        str(ipaddress.ip_network(plan3[0].ports[1].routed_prefix).network_address)
    )
    assert second[-2].endswith(
        str(ipaddress.ip_network(plan3[1].ports[0].routed_prefix).network_address)
    )


def test_jumbo_frames_set_the_mtu_before_the_ports_come_up(plan2: DutTestConfig) -> None:
    jumbo = dataclasses.replace(plan2, max_frame_size_b=9018)
    for family_id in ("ethip6-ip6base", "eth-l2bdbasemaclrn", "eth-l2patch"):
        commands, _ = render(get_family(family_id), jumbo)
        assert commands[:2] == [f"set interface mtu 9000 {name}" for name in NAMES], family_id


def test_ports_come_from_the_plan_not_the_render(plan2: DutTestConfig) -> None:
    """A different plan (other next hops) changes the lines: nothing is fixed in the renders."""
    moved = tuple(
        dataclasses.replace(p, peer_ip4=str(ipaddress.ip_address(p.peer_ip4) + 5))
        for p in plan2.ports
    )
    config = dataclasses.replace(plan2, ports=(moved[0], moved[1]))
    commands, _ = render(get_family("ethip4-ip4scale20k"), config)
    for port in moved:
        assert sum(f"via {port.peer_ip4} " in line for line in commands) == 2  # prefix + hosts
