"""The VPP set-ups of the 3-node VXLAN and WireGuard families, rendered for DUT1 and DUT2 (no VPP).

The plans come from topologies/local-vpp-3n.yaml; the checks are what
makes the two DUTs work together: each tunnel's end points mirror each
other, both ends of a WireGuard tunnel hold matching key pairs, every
destination of the traffic rides its own tunnel, and the TG port is tied
to the tunnel (cross-connect or bridge).
"""

from __future__ import annotations

import base64
import dataclasses
import ipaddress
import re

import pytest
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from test_vpp3n_renders import NAMES, configs, render

from ndrpdr.dut.base import DutError
from ndrpdr.families import all_families, get_family
from ndrpdr.families.kinds.vxlan.vpp import VxlanVpp
from ndrpdr.families.kinds.wireguard.vpp import WireguardVpp
from ndrpdr.families.model import FamilyDefinitionError

VXLAN = [f.id for f in all_families() if isinstance(f.setup.vpp, VxlanVpp)]
WIREGUARD = [f.id for f in all_families() if isinstance(f.setup.vpp, WireguardVpp)]


def test_csit_ids_and_counts() -> None:
    assert VXLAN == ["ethip4vxlan-l2xcbase", "ethip4vxlan-l2bdbasemaclrn"]
    assert [
        f"ethip4udpwireguard{n}tnl{mode}-ip4base"
        for mode in ("sw", "hwasync")
        for n in (1, 2, 4, 8, 100, 1000)
    ] == WIREGUARD
    for family in (*VXLAN, *WIREGUARD):
        made = get_family(family)
        assert made.duts == (2,) and made.setup.vpp is not None and made.setup.vpp.fresh
        assert made.plugins == made.setup.vpp.plugins


@pytest.mark.parametrize("family", VXLAN)
def test_vxlan_tunnel_runs_between_the_link_addresses_and_ties_the_tg_port(family: str) -> None:
    one, two = configs(family)
    dut1, dut2 = render(family)
    for lines, config, tg, link in ((dut1, one, "eth0", "eth1"), (dut2, two, "eth1", "eth0")):
        port = config.ports[1 if config.position == 0 else 0]
        mine = port.ip4_address.split("/")[0]
        assert f"create vxlan tunnel src {mine} dst {port.peer_ip4} vni 24" in lines
        assert f"set ip neighbor {link} {port.peer_ip4} {port.peer_mac.lower()} static" in lines
        if family.endswith("l2xcbase"):
            assert f"set interface l2 xconnect {tg} vxlan_tunnel0" in lines
            assert f"set interface l2 xconnect vxlan_tunnel0 {tg}" in lines
        else:
            assert f"set interface l2 bridge {tg} 1" in lines
            assert "set interface l2 bridge vxlan_tunnel0 1" in lines
        assert not any(tg in line and "ip address" in line for line in lines)
    # one DUT's tunnel destination is the other's source
    src1, dst1 = re.findall(r"src (\S+) dst (\S+)", " ".join(dut1))[0]
    src2, dst2 = re.findall(r"src (\S+) dst (\S+)", " ".join(dut2))[0]
    assert (src1, dst1) == (dst2, src2)


def public_of(private_b64: str) -> str:
    key = X25519PrivateKey.from_private_bytes(base64.b64decode(private_b64))
    return base64.b64encode(key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)).decode()


@pytest.mark.parametrize("family", WIREGUARD)
def test_wireguard_tunnels_pair_their_keys_and_carry_each_destination(family: str) -> None:
    vpp = get_family(family).setup.vpp
    assert isinstance(vpp, WireguardVpp)
    dut1, dut2 = render(family)
    made = {}
    for key, lines in (("DUT1", dut1), ("DUT2", dut2)):
        made[key] = re.findall(r"private-key (\S+) src (\S+)", " ".join(lines))
        peers = re.findall(
            r"wireguard peer add (wg\d+) public-key (\S+) endpoint (\S+) allowed-ip (\S+)",
            "\n".join(lines),
        )
        assert len(made[key]) == len(peers) == vpp.tunnels
        made[key + "peers"] = peers
    keys = set()
    for i in range(vpp.tunnels):
        (private1, src1), (private2, src2) = made["DUT1"][i], made["DUT2"][i]
        tunnel1, public_for1, endpoint1, allowed1 = made["DUT1peers"][i]
        tunnel2, public_for2, endpoint2, allowed2 = made["DUT2peers"][i]
        assert tunnel1 == tunnel2 == f"wg{i}"
        assert public_for1 == public_of(private2) and public_for2 == public_of(private1)
        assert (endpoint1, endpoint2) == (src2, src1)
        keys |= {private1, private2}
        # the traffic's i-th destination of each direction lies in that tunnel's allowed /24
        for allowed, direction in ((allowed1, 0), (allowed2, 1)):
            headers = get_family(family).profile.directions[direction]
            step = headers.vary[1].step
            destination = ipaddress.IPv4Address(headers.dst) + i * step
            assert destination in ipaddress.IPv4Network(allowed)
            gateway = ipaddress.IPv4Address(allowed.split("/")[0]) + 1
            lines = dut1 if direction == 0 else dut2
            assert f"ip route add {allowed} via {gateway} wg{i}" in lines
    assert len(keys) == 2 * vpp.tunnels  # every end of every tunnel has its own key


def test_wireguard_dut1_returns_direction_1_to_its_tg() -> None:
    one, _ = configs(WIREGUARD[0])
    dut1, dut2 = render(WIREGUARD[0])
    assert f"ip route add 10.0.0.0/8 via {one.ports[0].peer_ip4} eth0" in dut1
    assert any(line.startswith("ip route add 20.0.0.0/8 via ") for line in dut2)


@pytest.mark.parametrize("family", ["ethip4vxlan-l2xcbase", "ethip4udpwireguard1tnlsw-ip4base"])
def test_a_tunnel_family_on_another_chain_names_the_family(family: str) -> None:
    one, _ = configs(family)
    vpp = get_family(family).setup.vpp
    assert vpp is not None
    with pytest.raises(DutError, match=f"family {family}: runs on a 3-node chain"):
        vpp.commands(dataclasses.replace(one, chain=1), NAMES)


def test_a_wrong_tunnel_set_up_names_the_family_and_the_field() -> None:
    with pytest.raises(FamilyDefinitionError, match="family f1: mode 'l3' is not one of"):
        VxlanVpp("l3", family="f1")
    with pytest.raises(FamilyDefinitionError, match="family f2: 0 tunnels; give 1 to 65535"):
        WireguardVpp(0, family="f2")
