"""CSIT's 2-node unidirectional IPsec families (``2n1l-...-udir``): DUT1 alone (no VPP).

The plan comes from topologies/local-vpp.yaml (2-node): DUT1 renders what
DUT1 of a 3-node chain renders for the same set-up (the same tunnels, SAs,
keys, end points and routes), its link port
now facing the TG's second port, whose address and MAC stand for DUT2's
port; the traffic is direction 0 only, CSIT's ``-udir`` profile; a chain
of another length is refused naming the family.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from test_vpp3n_renders import NAMES, configs

from ndrpdr.dut.base import DutError
from ndrpdr.dut.plan import plan_duts
from ndrpdr.families import all_families, get_family
from ndrpdr.families.kinds.ipsec.vpp import IpsecVpp
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.path import compute_path

ROOT = Path(__file__).resolve().parents[2]
UDIR = [
    f.id for f in all_families() if isinstance(f.setup.vpp, IpsecVpp) and f.profile.unidirectional
]


def _dut1(family: str) -> tuple[list[str], tuple[str, str]]:
    topology = load_topology(ROOT / "topologies" / "local-vpp.yaml")
    config = plan_duts(
        topology, compute_path(topology), "ip4base", family=get_family(family).setup
    )["DUT1"]
    vpp = get_family(family).setup.vpp
    assert vpp is not None
    return vpp.commands(config, ("eth0", "eth1")), (
        config.ports[1].peer_ip4,
        config.ports[1].peer_mac,
    )


def test_csits_udir_ids() -> None:
    assert len(UDIR) == 45  # CSIT's 48 but its 3 reconf suites (no NDRPDR)
    for family in UDIR:
        made = get_family(family)
        assert made.duts == (1,) and "UDIR" in made.tags
        assert made.csit_profile is not None and made.csit_profile.endswith("-udir")


#: Lines of the tunnels themselves (none depends on the link's addresses).
TUNNEL_LINES = ("create ipip", "ipsec ", "set interface unnumbered", "ip route add 20.",
                "set interface ip address loop0", "set ipsec async mode on")  # fmt: skip


@pytest.mark.parametrize("family", UDIR)
def test_dut1_is_the_3_node_dut1_towards_the_tgs_second_port(family: str) -> None:
    ours, (tg_ip, tg_mac) = _dut1(family)
    vpp = get_family(family).setup.vpp
    assert isinstance(vpp, IpsecVpp)
    dut1 = configs(family)[0]
    three_node = dataclasses.replace(vpp, udir=False).commands(dut1, NAMES)
    assert [line for line in ours if line.startswith(TUNNEL_LINES)] == [
        line.replace(f" via {dut1.ports[1].peer_ip4} ", f" via {tg_ip} ")
        for line in three_node
        if line.startswith(TUNNEL_LINES)
    ]  # the same tunnels, SAs, keys (the family's), routes: towards the TG, not DUT2
    assert f"set ip neighbor eth1 {tg_ip} {tg_mac.lower()} static" in ours  # the TG, not DUT2
    assert f"ip route add 200.0.0.0/8 via {tg_ip} eth1" in ours
    assert ("set ipsec async mode on" in ours) == ("async" in family)


def test_a_udir_family_runs_on_dut1_of_a_2_node_chain_only() -> None:
    vpp = get_family("ethip4ipsec1tnlsw-ip4base-int-aes256gcm-udir").setup.vpp
    assert vpp is not None
    with pytest.raises(DutError, match=r"-udir: runs on a 2-node chain \(DUT1\); this DUT is"):
        vpp.commands(configs("ethip4ipsec1tnlsw-ip4base-int-aes256gcm-udir")[0], ("a", "b"))


def test_40000_tunnels_ask_twice_the_heap_of_10000() -> None:
    """CSIT's 40000-tunnel -udir suites: a 2 GiB main heap (10000 tunnels used 203 MiB
    here; 40000 cannot be set up here, VPP does not run on this CPU: extrapolated)."""
    heaps = {}
    for tunnels in (1000, 10000, 40000):
        vpp = get_family(f"ethip4ipsec{tunnels}tnlsw-ip4base-int-aes256gcm-udir").setup.vpp
        assert isinstance(vpp, IpsecVpp)
        heaps[tunnels] = vpp.startup
    assert heaps[1000] == ""
    assert "main-heap-size 1024M" in heaps[10000] and "statseg { size 256M }" in heaps[10000]
    assert "main-heap-size 2048M" in heaps[40000] and "statseg { size 256M }" in heaps[40000]
