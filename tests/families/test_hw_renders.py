"""The hardware families' VPP set-ups against CSIT's suites (no VPP, no device).

Each of CSIT's 12 daily hardware ids is a family of ours, the software
family's set-up plus CSIT's additions: async mode first (CSIT enables it
before the tunnels), the SPD fast path's startup section, GTP-U's RX
offload on the port facing the other DUT (with CSIT's jumbo MTU), memif
copies by DMA with its plugin and heap; each names the device it needs
(``ndrpdr.dut.accel``), which the software families do not. The real VPP
cannot run here (and no node of this machine has a QAT, a DSA or an
offloading NIC): the lines are checked, not run.
"""

from __future__ import annotations

import dataclasses

import pytest
from test_vpp3n_renders import ROOT, configs, render

from ndrpdr.dut.accel import DsaDma, FlowOffload, QatCrypto
from ndrpdr.dut.plan import plan_dut
from ndrpdr.families import all_families, get_family
from ndrpdr.families.kinds.ipsec.vpp import IpsecVpp
from ndrpdr.families.kinds.memif.vpp import MemifVpp
from ndrpdr.families.model import FamilyDefinitionError
from ndrpdr.topology.loader import load_topology

#: The words a key follows in a line (keys derive from the family's id, so they differ).
KEY_WORDS = ("crypto-key", "integ-key", "private-key", "public-key")
#: CSIT's daily ids that need hardware (its job specifications' ipsec-hw, wireguard-hw,
#: gtpu-hw and container-memif-hw groups).
HARDWARE_IDS = (
    "ethip4ipsec4tnlhwasync-ip4base-int-aes256gcm",
    "ethip4ipsec4tnlhwasync-ip4base-policy-aes256gcm",
    "ethip4ipsec10000tnlhwasync-ip4base-int-aes256gcm",
    "ethip4ipsec10000tnlhwasync-ip4base-policy-fastpath-aes256gcm",
    *(f"ethip4udpwireguard{n}tnlhwasync-ip4base" for n in (1, 2, 4, 8, 100, 1000)),
    "ethip4gtpuhw-ip4base",
    "eth-l2bdbasemaclrn-eth-2memif-dma-1dcr",
)


def _software(family: str) -> str:
    """The software family a hardware one extends."""
    return (
        family.replace("tnlhwasync", "tnlsw")
        .replace("gtpuhw", "gtpusw")
        .replace("-policy-fastpath-", "-policy-")
        .replace("-dma-", "-")
    )


def test_every_hardware_id_is_a_family_naming_its_device() -> None:
    needs = {f.id: f.setup.vpp.hardware for f in all_families() if f.setup.vpp is not None}
    hardware = sorted(k for k, v in needs.items() if v is not None and not k.endswith("-udir"))
    assert hardware == sorted(HARDWARE_IDS)
    udir = [k for k, v in needs.items() if k.endswith("-udir") and v is not None]
    assert udir and all("tnlhwasync" in k and isinstance(needs[k], QatCrypto) for k in udir)
    kinds = {family: type(needs[family]) for family in HARDWARE_IDS}
    assert {k for k, v in kinds.items() if v is QatCrypto} == set(HARDWARE_IDS[:10])
    assert kinds["ethip4gtpuhw-ip4base"] is FlowOffload
    assert kinds["eth-l2bdbasemaclrn-eth-2memif-dma-1dcr"] is DsaDma
    for family in HARDWARE_IDS:
        made = get_family(family)
        assert made.setup.runs_on("sim") and made.setup.runs_on("vpp")
        assert made.csit_profile == get_family(_software(family)).csit_profile
        assert made.profile.directions == get_family(_software(family)).profile.directions


@pytest.mark.parametrize("family", HARDWARE_IDS[:10])
def test_async_crypto_is_switched_on_first_then_the_software_set_up(family: str) -> None:
    ours, theirs = render(family), render(_software(family))
    async_line = "set ipsec async mode on" if "ipsec" in family else "set wireguard async mode on"
    for dut in (0, 1):
        assert ours[dut][0] == async_line
        assert _without_keys(ours[dut][1:]) == _without_keys(theirs[dut])
    vpp = get_family(family).setup.vpp
    assert vpp is not None and vpp.rx_workers is None  # every worker reads the ports
    assert "crypto_sw_scheduler" not in get_family(family).plugins
    assert "sw_scheduler" not in " ".join(ours[0])


def _without_keys(lines: list[str]) -> list[list[str]]:
    """Each line's words but the keys."""
    out = []
    for line in lines:
        words = line.split()
        out.append([w for i, w in enumerate(words) if i == 0 or words[i - 1] not in KEY_WORDS])
    return out


def test_the_fast_path_family_has_csits_startup_and_heap() -> None:
    vpp = get_family("ethip4ipsec10000tnlhwasync-ip4base-policy-fastpath-aes256gcm").setup.vpp
    assert vpp is not None
    section = vpp.startup.split("}\n", 1)[0].splitlines()
    assert section == [
        "ipsec {",
        "  ipv4-outbound-spd-flow-cache off",
        "  ipv4-inbound-spd-flow-cache off",
        "  ipv4-outbound-spd-fast-path on",
        "  ipv4-inbound-spd-fast-path on",
        "  spd-fast-path-num-buckets 100000",
    ]  # CSIT: Enable IPsec SPD Fast Path IPv4 Inbound and Outbound | ${${n_tunnels}*10}
    assert vpp.heap_size_mult == 2  # the suite's ${heap_size_mult}
    other = get_family("ethip4ipsec10000tnlhwasync-ip4base-int-aes256gcm").setup.vpp
    assert other is not None and "spd-fast-path" not in other.startup


def test_gtpu_offload_asks_the_port_facing_the_other_dut_after_the_routes() -> None:
    family = "ethip4gtpuhw-ip4base"
    ours, theirs = render(family), render("ethip4gtpusw-ip4base")
    for dut, link in ((0, "eth1"), (1, "eth0")):  # DUT1's second port, DUT2's first (CSIT's)
        assert ours[dut] == (*theirs[dut], f"set flow-offload gtpu hw {link} rx gtpu_tunnel0")
    vpp = get_family(family).setup.vpp
    assert vpp is not None
    jumbo = dataclasses.replace(configs(family)[0], max_frame_size_b=9018)
    assert vpp.commands(jumbo, ("eth0", "eth1"))[-2:] == [
        "set interface mtu packet 9145 eth1",  # CSIT's increase_protocol_mtus_if_jumbo
        "set flow-offload gtpu hw eth1 rx gtpu_tunnel0",
    ]


def test_memif_dma_copies_on_the_masters_memifs_with_the_dma_plugin() -> None:
    family = get_family("eth-l2bdbasemaclrn-eth-2memif-dma-1dcr")
    software = get_family("eth-l2bdbasemaclrn-eth-2memif-1dcr")
    assert family.duts == (1,) and family.plugins == ("memif", "dma_intel")
    assert "DMA" in family.tags and "DMA" not in software.tags
    vpp, plain = family.setup.vpp, software.setup.vpp
    assert vpp is not None and plain is not None
    config = plan_dut(load_topology(ROOT / "topologies" / "local-vpp.yaml"), "l2xc")
    ours, theirs = vpp.commands(config, ("a", "b")), plain.commands(config, ("a", "b"))
    created = [line for line in ours if line.startswith("create interface memif")]
    assert len(created) == 2 and all(line.endswith(" use-dma") for line in created)
    assert [line.removesuffix(" use-dma") for line in ours] == theirs
    assert vpp.peer_commands == plain.peer_commands  # the zero-copy slaves as they were
    assert (vpp.heap_size_mult, plain.heap_size_mult) == (2, 1)  # CSIT's suite's


def test_a_dma_set_up_without_its_plugin_is_refused() -> None:
    with pytest.raises(FamilyDefinitionError, match=r"family x: .*dma_intel plugin"):
        MemifVpp("l2bd", dma=True, family="x")


def test_software_and_hardware_async_cannot_both_be_asked_for() -> None:
    with pytest.raises(FamilyDefinitionError, match=r"family x: async crypto in software"):
        IpsecVpp(4, "aes256gcm", scheduler=True, hw_async=True, family="x")


def test_hardware_costs_less_per_byte_than_software_on_the_sim() -> None:
    for family in HARDWARE_IDS:
        ours, theirs = get_family(family).profile.cost, get_family(_software(family)).profile.cost
        assert ours.cycles <= theirs.cycles, family
        assert ours.cycles_per_byte <= theirs.cycles_per_byte, family
        if "async" in family:
            assert ours.cycles_per_byte < theirs.cycles_per_byte, family
