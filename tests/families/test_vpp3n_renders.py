"""The VPP set-ups of the 3-node IPsec and SRv6 families, rendered for DUT1 and DUT2 (no VPP).

The plans come from topologies/local-vpp-3n.yaml (``plan_duts``); the
checks are what makes the two DUTs work together: tunnel and SA counts,
each SA's SPI and keys the same on both DUTs, the key lengths VPP v26.06
expects for each algorithm (a wrong one crashes it), routes of every
destination into its own tunnel, SIDs one DUT sends to being the other's
local SIDs.
"""

from __future__ import annotations

import dataclasses
import functools
import ipaddress
import re
from collections.abc import Sequence
from pathlib import Path

import pytest

from ndrpdr.dut.base import DutError, DutTestConfig
from ndrpdr.dut.plan import plan_duts
from ndrpdr.dut.vpp import family as vpp_family
from ndrpdr.dut.vpp.afpacket import create_commands
from ndrpdr.families import all_families, get_family
from ndrpdr.families.kinds.ipsec.vpp import IpsecVpp
from ndrpdr.families.kinds.srv6.vpp import Srv6Vpp
from ndrpdr.families.model import FamilyDefinitionError
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.path import compute_path

ROOT = Path(__file__).resolve().parents[2]
NAMES = ("eth0", "eth1")
IPSEC = [
    f.id
    for f in all_families()
    if isinstance(f.setup.vpp, IpsecVpp) and not f.profile.unidirectional  # 3-node ones
]
SRV6 = [f.id for f in all_families() if isinstance(f.setup.vpp, Srv6Vpp)]
#: Key bytes VPP v26.06 takes for each algorithm, from the algorithm's own name.
CLI_WORDS = {
    "aes256gcm": ("aes-gcm-256", None),
    "aes128gcm": ("aes-gcm-128", None),
    "aes128cbc-hmac512sha": ("aes-cbc-128", "sha-512-256"),
    "aes128cbc-hmac256sha": ("aes-cbc-128", "sha-256-128"),
    "aes128cbc-hmac96sha": ("aes-cbc-128", "sha1-96"),
    "aes256cbc-hmac256sha": ("aes-cbc-256", "sha-256-128"),
    "aes256cbc-hmac96sha": ("aes-cbc-256", "sha1-96"),
    "aes128ctr-hmac256sha": ("aes-ctr-128", "sha-256-128"),
    "aes128ctr-hmac96sha": ("aes-ctr-128", "sha1-96"),
    "aes128nullgmac": ("aes-null-gmac-128", None),
    "aes256nullgmac": ("aes-null-gmac-256", None),
    "none-hmac96sha": (None, "sha1-96"),
}
KEY_BYTES = {"128": 16, "256": 32, "sha1-96": 20, "sha-256-128": 32, "sha-512-256": 64}


def configs(family: str) -> tuple[DutTestConfig, DutTestConfig]:
    topology = load_topology(ROOT / "topologies" / "local-vpp-3n.yaml")
    planned = plan_duts(
        topology, compute_path(topology), "ip4base", family=get_family(family).setup
    )
    return planned["DUT1"], planned["DUT2"]


@functools.cache
def render(family: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """DUT1's and DUT2's lines, rendered once per family: three tests read each (10000 tunnels
    take a second to render)."""
    vpp = get_family(family).setup.vpp
    assert vpp is not None
    one, two = configs(family)
    return tuple(vpp.commands(one, NAMES)), tuple(vpp.commands(two, NAMES))


def sas(lines: Sequence[str]) -> dict[int, str]:
    """``ipsec sa add`` lines by SA id (the rest of the line)."""
    out = {}
    for line in lines:
        if line.startswith("ipsec sa add "):
            sa_id, rest = line[len("ipsec sa add ") :].split(" ", 1)
            out[int(sa_id)] = rest
    return out


def test_every_ipsec_and_srv6_family_has_a_vpp_set_up() -> None:
    assert len(IPSEC) == 32 and len(SRV6) == 3
    for family in (*IPSEC, *SRV6):
        assert get_family(family).setup.runs_on("vpp")
        assert get_family(family).setup.vpp.fresh  # type: ignore[union-attr]


@pytest.mark.parametrize("family", IPSEC)
def test_ipsec_duts_hold_one_sa_pair_per_tunnel_with_the_same_spis_and_keys(family: str) -> None:
    vpp = get_family(family).setup.vpp
    assert isinstance(vpp, IpsecVpp)
    dut1, dut2 = render(family)
    sa1, sa2 = sas(dut1), sas(dut2)
    expected = {
        *(100000 + i for i in range(vpp.tunnels)),
        *(200000 + i for i in range(vpp.tunnels)),
    }
    assert set(sa1) == set(sa2) == expected
    for sa_id, rest in sa1.items():
        assert _same_keys(rest, sa2[sa_id]), sa_id
        assert f"spi {sa_id} " in rest
        assert ("udp-encap" in rest) == ("-udp-" in family)
        assert ("use-anti-replay" in rest) == ("-udp-ar-" in family)


def _same_keys(one: str, two: str) -> bool:
    keys = re.compile(r"(crypto-alg \S+ crypto-key \S+|integ-alg \S+ integ-key \S+)")
    return keys.findall(one) == keys.findall(two) and bool(keys.findall(one))


@pytest.mark.parametrize("family", IPSEC)
def test_ipsec_keys_have_the_length_vpp_expects_and_differ_per_tunnel(family: str) -> None:
    dut1, _ = render(family)
    seen: set[str] = set()
    for rest in sas(dut1).values():
        assert _same_keys(rest, rest)
        for alg, key in re.findall(r"(?:crypto|integ)-alg (\S+) (?:crypto|integ)-key (\S+)", rest):
            bytes_ = KEY_BYTES.get(alg) or KEY_BYTES[alg.rsplit("-", 1)[-1]]
            assert len(key) == 2 * bytes_, f"{alg}: {key}"
            assert key not in seen
            seen.add(key)
    # the family id's algorithm, in VPP's words (CSIT's encr / auth table, section 7.2)
    name = family.removesuffix("-reassembly").rsplit("-", 2 if "-hmac" in family else 1)
    algorithm = "-".join(name[1:])
    crypto, integ = CLI_WORDS[algorithm]
    for rest in sas(dut1).values():
        assert (f"crypto-alg {crypto} " in rest) if crypto else "crypto-alg" not in rest
        assert (f"integ-alg {integ} " in rest) if integ else "integ-alg" not in rest


@pytest.mark.parametrize(
    "family",
    [f for f in IPSEC if "-int-" in f],
)
def test_route_based_ipsec_routes_each_destination_into_its_own_protected_tunnel(
    family: str,
) -> None:
    vpp = get_family(family).setup.vpp
    assert isinstance(vpp, IpsecVpp)
    for lines, first, out_base, in_base in (
        (render(family)[0], "20.0.0.0", 100000, 200000),
        (render(family)[1], "10.0.0.0", 200000, 100000),
    ):
        tunnels = [line for line in lines if line.startswith("create ipip tunnel ")]
        assert len(tunnels) == vpp.tunnels
        for i in (0, vpp.tunnels - 1):
            dst = ipaddress.IPv4Address(first) + i
            assert f"ip route add {dst}/32 via ipip{i}" in lines
            assert (
                f"ipsec tunnel protect ipip{i} sa-out {out_base + i} sa-in {in_base + i}" in lines
            )
            assert f"set interface state ipip{i} up" in lines


def test_the_tunnel_end_points_mirror_each_other() -> None:
    dut1, dut2 = render("ethip4ipsec40tnlsw-ip4base-int-aes256gcm")
    ends1 = [line.split()[4:7:2] for line in dut1 if line.startswith("create ipip tunnel ")]
    ends2 = [line.split()[4:7:2] for line in dut2 if line.startswith("create ipip tunnel ")]
    assert ends1 == [[b, a] for a, b in ends2]
    assert len({a for a, _ in ends1}) == 40  # DUT1: one end point per tunnel
    assert {f"set interface ip address loop0 {a}/32" for a, _ in ends1} <= set(dut1)
    assert "set interface ip address loop0 200.0.0.102/32" in dut2
    # each routes the other's end points over the DUT - DUT link, to the link's far address
    one, two = configs("ethip4ipsec40tnlsw-ip4base-int-aes256gcm")
    assert f"ip route add 200.0.0.0/8 via {one.ports[1].peer_ip4} {NAMES[1]}" in dut1
    assert f"ip route add 100.0.0.0/8 via {two.ports[0].peer_ip4} {NAMES[0]}" in dut2
    assert one.ports[1].peer_ip4 == two.ports[0].ip4_address.split("/")[0]


def test_policy_ipsec_protects_each_destination_through_spd_1_on_the_link() -> None:
    family = "ethip4ipsec4tnlsw-ip4base-policy-aes256gcm"
    dut1, dut2 = render(family)
    assert f"set interface ipsec spd {NAMES[1]} 1" in dut1
    assert f"set interface ipsec spd {NAMES[0]} 1" in dut2
    protect = [line for line in dut1 if "outbound action protect" in line]
    assert [line.split()[-1] for line in protect] == [f"20.0.0.{i}" for i in range(4)]
    assert not any(line.startswith("create ipip") for line in (*dut1, *dut2))
    assert sum("action bypass protocol 50" in line for line in dut1) == 2
    assert get_family(family).setup.vpp.startup == ""  # type: ignore[union-attr]
    flow = get_family("ethip4ipsec10000tnlsw-ip4base-policy-flow-cache-aes256gcm").setup.vpp
    assert "ipv4-outbound-spd-flow-cache on" in flow.startup  # type: ignore[union-attr]
    assert "statseg { size 256M }" in flow.startup  # type: ignore[union-attr]


def test_reassembly_lowers_the_link_mtu_and_turns_reassembly_on_at_both_ends() -> None:
    dut1, dut2 = render("ethip4ipsec1000tnlsw-ip4base-int-aes256gcm-reassembly")
    assert "set interface mtu packet 1043 eth1" in dut1
    assert "set interface reassembly eth1 on" in dut1
    assert "set interface mtu packet 1043 eth0" in dut2
    assert "set interface reassembly eth0 on" in dut2
    plain, _ = render("ethip4ipsec1000tnlsw-ip4base-int-aes256gcm")
    assert not any("mtu" in line or "reassembly" in line for line in plain)


@pytest.mark.parametrize("family", ["ethip4ipsec4tnlsw-ip4base-int-aes256gcm", SRV6[0]])
def test_a_3_node_family_on_another_chain_names_the_family(family: str) -> None:
    one, _ = configs(family)
    vpp = get_family(family).setup.vpp
    assert vpp is not None
    with pytest.raises(DutError, match=f"family {family}: runs on a 3-node chain"):
        vpp.commands(dataclasses.replace(one, chain=1), NAMES)


@pytest.mark.parametrize("family", SRV6)
def test_srv6_duts_send_to_each_others_local_sids_and_steer_their_direction(family: str) -> None:
    vpp = get_family(family).setup.vpp
    assert isinstance(vpp, Srv6Vpp)
    one, two = configs(family)
    dut1, dut2 = render(family)
    for lines, mine, other, steered in (
        (dut1, dut1, dut2, one.ports[1].routed_prefix6),
        (dut2, dut2, dut1, two.ports[0].routed_prefix6),
    ):
        policy = next(line for line in lines if line.startswith("sr policy add "))
        targets = re.findall(r"next (\S+)", policy)
        assert len(targets) == vpp.sids
        bsid = policy.split()[4]
        assert f"sr steer l3 {steered} via bsid {bsid}" in lines
        far = [line.split()[3] for line in other if line.startswith("sr localsid address ")]
        assert far[0] == targets[0]
        if vpp.decap:
            assert far == targets
        assert sum(line.startswith("set sr encaps source addr ") for line in mine) == 1
    # the last local SID decapsulates towards the TG (End.DX6) or, -nodecaps, is routed there
    tg_if, tg_peer = NAMES[1], two.ports[1].peer_ip6
    last = [line for line in dut2 if line.startswith("sr localsid")][-1]
    if vpp.sids == 1 or vpp.decap:
        assert last.endswith(f"behavior end.dx6 {tg_if} {tg_peer}")
    else:
        assert last.endswith("behavior end")
        assert f"ip route add 2002:3::/64 via {tg_peer} {tg_if}" in dut2


def test_a_wrong_set_up_names_the_family_and_the_field() -> None:
    with pytest.raises(FamilyDefinitionError, match="family f1: algorithm 'aes512' unknown"):
        IpsecVpp(4, "aes512", family="f1")
    with pytest.raises(FamilyDefinitionError, match="family f2: kind 'spd' is neither"):
        IpsecVpp(4, "aes256gcm", kind="spd", family="f2")
    with pytest.raises(FamilyDefinitionError, match="family f3: 70000 tunnels do not fit"):
        IpsecVpp(70000, "aes256gcm", family="f3")
    with pytest.raises(FamilyDefinitionError, match="family f4: 3 SIDs"):
        Srv6Vpp(3, family="f4")


def test_async_ipsec_hands_crypto_to_the_workers_but_the_data_plane_one() -> None:
    family = "ethip4ipsec8tnlswasync-scheduler-ip4base-int-aes256gcm"
    vpp = get_family(family).setup.vpp
    assert vpp is not None and vpp.plugins == ("crypto_sw_scheduler",)
    one, _ = configs(family)
    single = vpp.commands(one, NAMES)
    assert single[0] == "set ipsec async mode on"
    assert not [line for line in single if "sw_scheduler" in line]  # one worker does both
    two = dataclasses.replace(one, cores=2)
    assert vpp.commands(two, NAMES)[:2] == [
        "set ipsec async mode on",
        "set sw_scheduler worker 0 crypto off",
    ]
    assert vpp.commands(two, NAMES)[2:] == single[1:]  # the tunnels as the synchronous family's
    assert vpp_family.rx_workers(two, (2, 3, 4)) == 1  # RX queues on the data-plane worker only
    assert vpp_family.rx_workers(two, ()) == 0
    plain, _ = configs("ethip4ipsec4tnlsw-ip4base-int-aes256gcm")
    assert vpp_family.rx_workers(plain, (2, 3, 4)) == 3


def test_async_ipsec_ports_are_read_by_the_data_plane_worker_alone() -> None:
    """af_packet ports of a 2-worker VPP: every RX queue on worker 0 (the others do crypto)."""
    family = "ethip4ipsec1tnlswasync-scheduler-ip4base-int-aes256gcm"
    one = dataclasses.replace(configs(family)[0], cores=2)
    commands = create_commands(one, "interrupt", workers=2, rx_queues=2)
    placement = [c for c in commands if "rx-placement" in c]
    assert len(placement) == 4 and all(c.endswith("worker 0") for c in placement)
    plain = dataclasses.replace(configs("ethip4ipsec4tnlsw-ip4base-int-aes256gcm")[0], cores=2)
    spread = [c for c in create_commands(plain, workers=2, rx_queues=2) if "rx-placement" in c]
    assert [c.rsplit(" ", 1)[1] for c in spread] == ["0", "1", "0", "1"]
