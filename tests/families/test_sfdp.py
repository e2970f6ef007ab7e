"""The SFDP families: ids, traffic and VPP set-up, checked against CSIT's SFDP suites and profiles.

Facts read from CSIT's git directory at run time (``csit_schema_source``:
skipped without one): each suite's ``${traffic_profile}``,
``@{sfdp_services}``, ``Initialize SFDP Services`` arguments (remote hosts
and mask), ``${heap_size_mult}`` and ``@{plugins_to_enable}``, and each
ASTF profile's client and server ranges and connection ``limit``. The
real VPP cannot run on this machine (no AVX-512), so the set-up is checked
as the vppctl lines it renders for a planned DUT, not run.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import re
from pathlib import Path

import pytest

from csit_schema_source import csit_git_or_skip, git_show
from ndrpdr.dut.base import DutError
from ndrpdr.dut.plan import plan_duts
from ndrpdr.families import get_family
from ndrpdr.families.kinds.astf.defs import FAMILIES as ASTF_FAMILIES
from ndrpdr.families.kinds.sfdp import defs
from ndrpdr.families.kinds.sfdp import vpp as sfdp
from ndrpdr.families.model import FamilyDefinitionError
from ndrpdr.profiles import ProfileError, Transactions
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.path import compute_path

ROOT = Path(__file__).resolve().parents[2]
NAMES = ("eth0", "eth1")
SCALES = {1024: 64512, 4096: 258048, 16384: 1032192, 65536: 4128768}
IDS = [
    f"ethip4{proto}-sfdp-{services}-h{hosts}-p63-s{sessions}-{kind}"
    for services in ("ip4", "l4ip4")
    for hosts, sessions in SCALES.items()
    for proto in ("tcp", "udp")
    for kind in ("cps", "tput")
]
SUITE_DIR = "tests/vpp/perf/sfdp"
PROFILE_DIR = "GPL/traffic_profiles/trex"


def _suite(family_id: str) -> str:
    return git_show(csit_git_or_skip(), f"{SUITE_DIR}/2n1l-10ge2p1x710-{family_id}-ndrpdr.robot")


def _variable(text: str, name: str) -> list[str]:
    """A suite variable's cells (``| ${name}= | a | b`` and its ``| ... |`` lines)."""
    found = re.search(rf"^\| [@$]\{{{name}\}} ?= \|(.*(?:\n\| \.\.\. \|.*)*)", text, re.M)
    if found is None:
        return []
    cells = re.split(r"\s*\|\s*", found.group(1).replace("\n| ... |", "|"))
    return [cell.strip() for cell in cells if cell.strip()]


def _rendered(family_id: str) -> list[str]:
    loaded = load_topology(ROOT / "topologies" / "local-vpp.yaml")
    setup = get_family(family_id).setup
    assert setup.vpp is not None
    (config,) = plan_duts(loaded, compute_path(loaded), "ip4base", family=setup).values()
    return setup.vpp.commands(config, NAMES)


def test_csits_32_ids_are_stateful_families_of_csits_scale_tags_and_profile() -> None:
    assert [f.id for f in defs.FAMILIES] == IDS
    for family in defs.FAMILIES:
        traffic = family.profile.transactions
        assert traffic is not None
        hosts = int(family.id.split("-h")[1].split("-")[0])
        assert (traffic.hosts, traffic.ports, traffic.scale) == (hosts, 63, SCALES[hosts])
        proto, kind = traffic.protocol.upper(), traffic.kind.upper()
        assert family.tags == ("ETH", "IP4FWD", "IP4BASE", proto, f"{proto}_{kind}", "SCALE",
                               f"HOSTS_{hosts}")  # fmt: skip
        pps = "-pps" if traffic.kind == "tput" else ""
        assert family.csit_profile == f"trex-astf-ethip4{traffic.protocol}-{hosts}h{pps}"
        assert family.plugins == ("sfdp_services",)
        assert not family.setup.runs_on("linux") and "stateful" in family.setup.why_not("ovs")
    assert not {f.id for f in defs.FAMILIES} & {f.id for f in ASTF_FAMILIES}


@pytest.mark.parametrize("family_id", IDS[::5])
def test_traffic_is_csits_astf_profiles_ranges_and_limit(family_id: str) -> None:
    family = get_family(family_id)
    traffic = family.profile.transactions
    assert traffic is not None and family.csit_profile is not None
    text = git_show(csit_git_or_skip(), f"{PROFILE_DIR}/{family.csit_profile}.py")

    def ip(name: str) -> str:
        found = re.search(rf'{name} = u?"([0-9.]+)"', text)
        assert found is not None, name
        return found.group(1)

    clients = (ip("p1_src_start_ip"), ip("p1_src_end_ip"))
    servers = (ip("p1_dst_start_ip"), ip("p1_dst_end_ip"))
    limit = re.search(r"limit=(\d+)", text)
    assert limit is not None and int(limit.group(1)) == traffic.scale
    ours = [ipaddress.IPv4Network(n) for n in (traffic.clients, traffic.servers)]
    assert (str(ours[0][0]), str(ours[0][-1])) == clients
    assert (str(ours[1][0]), str(ours[1][-1])) == servers
    assert re.search(r"port=8080", text)


@pytest.mark.parametrize("family_id", IDS)
def test_vpp_set_up_is_csits_services_routes_and_sizes(family_id: str) -> None:
    """Services, remote hosts and mask as the suite's ``Initialize SFDP Services`` call."""
    suite = _suite(family_id)
    call = re.search(r"Initialize SFDP Services \| \$\{sfdp_services\}\s*\n\| \| \.\.\. \| "
                     r"([0-9.]+) \| ([0-9.]+) \| \$\{(\d+)\}", suite)  # fmt: skip
    assert call is not None
    clients, servers, mask = call.group(1), call.group(2), int(call.group(3))
    services = " ".join(_variable(suite, "sfdp_services"))
    lines = _rendered(family_id)
    assert f"set sfdp services tenant 1 {services} forward" in lines
    assert f"set sfdp services tenant 1 {services} reverse" in lines
    assert lines[-2:] == [
        f"ip route add {clients}/{mask} via 10.10.10.2 eth0",
        f"ip route add {servers}/{mask} via 20.20.20.2 eth1",
    ]
    vpp = get_family(family_id).setup.vpp
    assert vpp is not None
    mult = _variable(suite, "heap_size_mult")
    assert vpp.heap_size_mult == (int(mult[0].strip("${}")) if mult else 1)
    assert "sfdp_services_plugin.so" in _variable(suite, "plugins_to_enable")
    sessions = get_family(family_id).profile.transactions.scale  # type: ignore[union-attr]
    log2 = (sessions - 1).bit_length() + 1  # CSIT: ceil(log2(sessions)) + 1
    assert vpp.startup == (
        f"sfdp {{\n  sessions-log2 {log2}\n  sessions-per-thread-cache-log2 {log2}\n}}\n"
    )
    assert vpp.fresh


def test_vpp_lines_follow_csits_initialize_sfdp_services_in_order() -> None:
    """Mirror-free: the whole set-up of the smallest l4ip4 family, line for line."""
    lines = _rendered("ethip4tcp-sfdp-l4ip4-h1024-p63-s64512-cps")
    macs = [line.split()[5] for line in lines if line.startswith("set ip neighbor")]
    assert len(macs) == 2 and all(re.fullmatch(r"[0-9a-f:]{17}", mac) for mac in macs)
    assert lines == [
        "set interface state eth0 up",
        "set interface state eth1 up",
        f"set ip neighbor eth0 10.10.10.2 {macs[0]} static",
        f"set ip neighbor eth1 20.20.20.2 {macs[1]} static",
        "set interface ip address eth0 10.10.10.1/24",
        "set interface ip address eth1 20.20.20.1/24",
        "sfdp tenant add 1 context 1",
        "set sfdp timeout tenant 1 embryonic 3000",
        "set sfdp timeout tenant 1 established 3000",
        "set sfdp timeout tenant 1 tcp-established 3000",
        "set sfdp timeout tenant 1 security 3000",
        "set sfdp services tenant 1 ip4-lookup sfdp-l4-lifecycle forward",
        "set sfdp services tenant 1 ip4-lookup sfdp-l4-lifecycle reverse",
        "set sfdp interface-input eth0 tenant 1",
        "set sfdp interface-input eth1 tenant 1",
        "ip route add 192.168.0.0/22 via 10.10.10.2 eth0",
        "ip route add 20.0.0.0/22 via 20.20.20.2 eth1",
    ]
    assert "sfdp-l4-lifecycle" not in " ".join(_rendered("ethip4tcp-sfdp-ip4-h1024-p63-s64512-cps"))


def test_startup_and_heap_follow_the_scale() -> None:
    def vpp(hosts: int) -> sfdp.SfdpVpp:
        return sfdp.SfdpVpp("ip4", hosts, 63, family="x")

    assert [sfdp.sessions_log2(s) for s in SCALES.values()] == [17, 19, 21, 23]
    assert [vpp(h).heap_size_mult for h in SCALES] == [1, 1, 2, 8]
    assert [vpp(h).routes for h in (1024, 65536)] == [
        ("192.168.0.0/22", "20.0.0.0/22"), ("192.168.0.0/16", "20.0.0.0/16"),
    ]  # fmt: skip


def test_a_bad_set_up_is_named() -> None:
    with pytest.raises(FamilyDefinitionError, match=r"family x: SFDP services 'l7'"):
        sfdp.SfdpVpp("l7", 1024, 63, family="x")
    with pytest.raises(FamilyDefinitionError, match=r"family x: 1000 hosts"):
        sfdp.SfdpVpp("ip4", 1000, 63, family="x")
    with pytest.raises(ProfileError, match=r"clients 192.168.0.0/24 holds fewer than 1024"):
        Transactions("cps", "udp", 1024, 63, clients="192.168.0.0/24")
    with pytest.raises(ProfileError, match=r"servers 'nowhere'"):
        Transactions("cps", "udp", 1, 1, servers="nowhere")


def test_a_3_node_dut_is_refused() -> None:
    loaded = load_topology(ROOT / "topologies" / "local-vpp.yaml")
    setup = get_family(IDS[0]).setup
    (config,) = plan_duts(loaded, compute_path(loaded), "ip4base", family=setup).values()
    assert setup.vpp is not None
    with pytest.raises(DutError, match="2-node chain"):
        setup.vpp.commands(dataclasses.replace(config, chain=2), NAMES)


def test_sim_cost_sessions_lifecycle_and_scale_cost_more() -> None:
    def one_core(family_id: str, frame: int = 64) -> float:
        return get_family(family_id).profile.cost.capacity_pps(frame, 1)

    ip4 = one_core("ethip4udp-sfdp-ip4-h65536-p63-s4128768-tput", 100)
    routed = one_core("ethip4udp-ip4base-h65536-p63-s4128768-tput", 100)
    assert ip4 < routed  # a session lookup and its share of a creation on every frame
    assert one_core("ethip4udp-sfdp-l4ip4-h65536-p63-s4128768-tput", 100) < ip4
    assert one_core("ethip4udp-sfdp-ip4-h1024-p63-s64512-tput", 100) > ip4  # a smaller table
    cps = [one_core(f"ethip4udp-sfdp-ip4-h{h}-p63-s{s}-cps") for h, s in SCALES.items()]
    assert cps == sorted(cps, reverse=True)
    basis = get_family("ethip4udp-sfdp-ip4-h65536-p63-s4128768-cps").profile.cost.basis
    assert basis.startswith("SFDP ip4: 0.56x ethip4-ip4base a frame; a connection: 2 frames")


@pytest.mark.parametrize("family_id", IDS)
def test_ramp_up_or_reset_as_the_suite(family_id: str) -> None:
    """A suite with ``${ramp_up_rate}`` (tput) ramps up at it for the whole scale; one without
    (cps) gets CSIT's resetter (``Initialize SFDP Services`` sets it only then): the first
    sessions shown, all killed, the tenant's table polled until created = removed."""
    suite = _suite(family_id)
    family = get_family(family_id)
    vpp, traffic = family.setup.vpp, family.profile.transactions
    assert vpp is not None and traffic is not None
    rate = _variable(suite, "ramp_up_rate")
    if not rate:
        assert traffic.kind == "cps" and family.ramp_up is None
        reset = vpp.trial_reset
        assert reset is not None and reset.until_empty is not None
        assert reset.commands == ("show sfdp session-table max 10", "kill sfdp session all")
        assert (reset.until_empty.command, reset.poll_s, reset.timeout_s) == (
            "show sfdp tenant 1 detail", 0.1, 10.0)  # fmt: skip
        detail = "  created sessions: 12\n  removed sessions: 5\n"
        assert reset.until_empty.parse(detail) == 7
        with pytest.raises(ValueError, match="created sessions"):
            reset.until_empty.parse("nothing")
        return
    tps = float(rate[0].strip("${}").replace("_", ""))
    assert traffic.kind == "tput" and vpp.trial_reset is None
    ramp = family.ramp_up
    assert ramp is not None and not ramp.per_direction
    assert ramp.rate_pps == tps * traffic.packets_aggregated
    assert ramp.duration_s == pytest.approx(traffic.scale / tps)
    assert vpp.state_check is None  # CSIT verifies no SFDP session count
