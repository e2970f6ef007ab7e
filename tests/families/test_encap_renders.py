"""The VPP set-ups of the GTP-U, GENEVE, SRv6 proxy and LACP families, rendered (no VPP).

The plans come from topologies/local-vpp-3n.yaml (local-vpp.yaml for the
2-node GENEVE families); the checks are what makes the DUTs (and the TG's
frames) work together: tunnel end points that mirror each other, routes
into the tunnel of the prefix the other side's TG owns, one DUT's SIDs
being the other's local SIDs.
"""

from __future__ import annotations

import ipaddress
import re

import pytest
from test_vpp3n_renders import NAMES, ROOT, configs, render

from ndrpdr.dut.base import DutError
from ndrpdr.dut.plan import plan_duts
from ndrpdr.families import get_family
from ndrpdr.families.kinds.gtpu.vpp import GtpuVpp
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.path import compute_path

GTPU = ["ethip4gtpusw-ip4base", "ethip4gtpusw-ip4base-reassembly"]


@pytest.mark.parametrize("family", GTPU)
def test_gtpu_tunnel_runs_between_the_link_addresses_and_carries_the_far_prefix(
    family: str,
) -> None:
    made = get_family(family)
    assert isinstance(made.setup.vpp, GtpuVpp) and made.duts == (2,)
    assert made.plugins == made.setup.vpp.plugins == ("gtpu",)
    one, two = configs(family)
    dut1, dut2 = render(family)
    for lines, config, tg, link in (
        (dut1, one, NAMES[0], NAMES[1]),
        (dut2, two, NAMES[1], NAMES[0]),
    ):
        tg_port, link_port = (
            (config.ports[0], config.ports[1]) if config.position == 0 else config.ports[::-1]
        )
        mine = link_port.ip4_address.split("/")[0]
        assert f"create gtpu tunnel src {mine} dst {link_port.peer_ip4} teid 10 decap-next ip4" in (
            lines
        )
        assert f"ip route add {link_port.routed_prefix} via gtpu_tunnel0" in lines
        assert f"ip route add {tg_port.routed_prefix} via {tg_port.peer_ip4} {tg}" in lines
        mtu = [line for line in lines if "mtu" in line]
        assert mtu == ([f"set interface mtu packet 1043 {link}"] if "reassembly" in family else [])
    src1, dst1 = re.findall(r"src (\S+) dst (\S+)", " ".join(dut1))[0]
    src2, dst2 = re.findall(r"src (\S+) dst (\S+)", " ".join(dut2))[0]
    assert (src1, dst1) == (dst2, src2)
    assert "REASSEMBLY" in made.tags if "reassembly" in family else "REASSEMBLY" not in made.tags


def test_lacp_bonds_the_dut_link_alone_and_cross_connects_the_tg_port() -> None:
    family = get_family("eth-l2xcbase-1lbvpplacp")
    assert family.duts == (2,) and family.profile.layer == "L2"
    assert {"LBOND_1L", "LBOND_MODE_LACP", "LBOND_LB_L34"} <= set(family.tags)
    assert family.setup.modes["sim"] == "l2xc"
    vpp = family.setup.vpp
    assert vpp is not None and vpp.plugins == ("lacp",) and vpp.settle_s > 0
    dut1, dut2 = render(family.id)
    for lines, tg, link in ((dut1, NAMES[0], NAMES[1]), (dut2, NAMES[1], NAMES[0])):
        assert lines[:2] == (
            "create bond mode lacp load-balance l34",
            f"bond add BondEthernet0 {link}",
        )
        assert [line for line in lines if line.startswith("bond add")] == [lines[1]]  # one link
        assert f"set interface l2 xconnect {tg} BondEthernet0" in lines
        assert f"set interface l2 xconnect BondEthernet0 {tg}" in lines
        assert not [line for line in lines if "ip address" in line]


PROXIES = {"dyn": "end.ad", "masq": "end.am", "stat": "end.as"}


@pytest.mark.parametrize("behaviour", PROXIES)
def test_srv6_proxy_sids_one_dut_sends_to_are_the_other_duts_proxies(behaviour: str) -> None:
    family = get_family(f"ethip6srhip6-ip6base-srv6proxy-{behaviour}")
    vpp = family.setup.vpp
    assert vpp is not None and family.plugins == vpp.plugins
    assert vpp.plugins == (
        "memif",
        {"dyn": "srv6ad", "masq": "srv6am", "stat": "srv6as"}[behaviour],
    )
    peer = getattr(vpp, "peer_commands", ())
    assert any("slave" in line for line in peer) and any("xconnect" in line for line in peer)
    lines = dict(zip(("DUT1", "DUT2"), render(family.id), strict=True))
    policies = {
        k: re.findall(r"sr policy add bsid \S+ (.*) encap", " ".join(v)) for k, v in lines.items()
    }
    proxies = {
        k: re.findall(rf"sr localsid address (\S+) behavior {PROXIES[behaviour]} ", " ".join(v))
        for k, v in lines.items()
    }
    for me, other in (("DUT1", "DUT2"), ("DUT2", "DUT1")):
        (policy,) = policies[me]
        sids = policy.replace("next ", "").split()
        assert len(sids) == 3 and proxies[other] == [sids[0]]  # the other DUT proxies it
        # the other DUT routes the way out to its TG, and (static) re-encapsulates with it
        assert any(line.startswith(f"ip route add {sids[1]}/64 via ") for line in lines[other])
        proxy = next(line for line in lines[other] if " behavior " in line)
        assert "oif memif1/1 iif memif1/2" in proxy
        assert (f"next {sids[1]} next {sids[2]}" in proxy) == (behaviour == "stat")
    # the proxy's next hop is memif1/2's MAC on memif1/1: what the function returns is the DUT's
    for text in lines.values():
        hop = next(line for line in text if line.startswith("set ip neighbor memif1/1"))
        assert hop.endswith("02:fe:00:00:00:02 static")


@pytest.mark.parametrize("tunnels", [1, 4, 16, 64, 256, 1024])
def test_geneve_routes_each_tunnels_prefixes_in_and_out_of_it(tunnels: int) -> None:
    family = get_family(f"ethip4--ethip4udpgeneve-{tunnels}tun-ip4base")
    assert family.duts == (1,) and family.plugins == ("geneve",)
    assert f"GENEVE4_{tunnels}TUN" in family.tags
    topology = load_topology(ROOT / "topologies" / "local-vpp.yaml")
    config = plan_duts(topology, compute_path(topology), "ip4base", family=family.setup)["DUT1"]
    vpp = family.setup.vpp
    assert vpp is not None
    lines = vpp.commands(config, NAMES)
    one, two = config.ports
    created = [line for line in lines if line.startswith("create geneve tunnel")]
    assert len(created) == tunnels
    for i in range(tunnels):
        assert created[i] == (
            f"create geneve tunnel local 1.1.1.2 remote 1.1.1.1 vni {1 + i} l3-mode "
            "decap-next node ethernet-input"
        )
        into = ipaddress.IPv4Address("10.0.1.0") + 256 * i
        out = ipaddress.IPv4Address("10.128.1.0") + 256 * i
        assert f"ip route add {into}/24 via {two.peer_ip4} geneve_tunnel{i}" in lines
        assert f"ip route add {out}/24 via {one.peer_ip4} {NAMES[0]}" in lines
    assert "set interface ip address loop0 1.1.1.2/32" in lines
    assert f"ip route add 1.1.1.1/32 via {two.peer_ip4} {NAMES[1]}" in lines
    # what the TG sends in direction 1 is addressed to the DUT's tunnel end point and VNIs
    tunnel = family.profile.directions[1].tunnel
    assert tunnel is not None and (tunnel.src, tunnel.dst, tunnel.vni) == ("1.1.1.1", "1.1.1.2", 1)
    three_node = configs("ethip4gtpusw-ip4base")[0]
    with pytest.raises(DutError, match="runs on a 2-node chain"):
        vpp.commands(three_node, NAMES)
