"""VPP's startup.conf: FD.io CSIT's sections on a lab-like node, the rules that scale them on
a small one, and the lines that say so (telemetry, log, record, test message).

CSIT's values (its ``Create base startup configuration of VPP on all DUTs``,
``VppConfigGenerator`` and ``CpuUtils.get_affinity_vswitch``): a 3 GiB main
heap and statistics segment on 2 MiB hugepages, per-node counters, an IPv6
FIB of 2,000,000 buckets in a 3 GiB heap, 215,040 buffers per NUMA node
with SMT, 107,520 without. Pure functions, and the driver against the
recording stand-in access of ``test_vpp_driver.py``.
"""

from __future__ import annotations

import copy
import dataclasses
import datetime
import logging
from pathlib import Path
from typing import Any

import pytest
from test_vpp_driver import Clock, RecordingAccess, make

from example_topologies import filled
from ndrpdr.dut.plan import plan_dut
from ndrpdr.dut.smt import NodeCpus, parse_lscpu
from ndrpdr.dut.vpp.afpacket import VppRunPaths
from ndrpdr.dut.vpp.afpacket import startup_conf as linux_startup_conf
from ndrpdr.dut.vpp.config import parse_options
from ndrpdr.dut.vpp.memory import NodeMemory, parse_meminfo, size_startup
from ndrpdr.dut.vpp.startup import family_needs, sizing_for, smt_used, startup_conf
from ndrpdr.families import get_family, profile_of
from ndrpdr.families.registry import all_families
from ndrpdr.goals import ndr_pdr_goals
from ndrpdr.results.caveats import caveat_lines
from ndrpdr.results.record import testbed_section as record_testbed
from ndrpdr.results.schema import validate_record
from ndrpdr.results.searchrecord import SearchSettings, build_record
from ndrpdr.search import search
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.model import Node, Topology
from ndrpdr.trafficgen.sim.driver import SimTrafficGenerator

ROOT = Path(__file__).resolve().parents[2]
#: A lab DUT: 16 GiB of free 2 MiB hugepages, 64 GiB available.
LAB = NodeMemory(hugepage_kb=2048, hugepages_free_mb=16384, available_mb=65536)
#: A small node: no hugepages, 4 GiB available (VPP's budget: half of it).
SMALL = NodeMemory(hugepage_kb=2048, hugepages_free_mb=0, available_mb=4096)
MEMINFO = """MemTotal:       24683532 kB
MemFree:        24183532 kB
MemAvailable:    4194304 kB
HugePages_Total:     512
HugePages_Free:      256
Hugepagesize:       2048 kB
"""


@pytest.fixture(scope="module")
def csit() -> Topology:
    return load_topology(filled("csit-2n-example.yaml"))


@pytest.fixture(scope="module")
def local() -> Topology:
    return load_topology(ROOT / "topologies" / "local-vpp.yaml")


def section(text: str, name: str) -> list[str]:
    """The stripped lines inside the top-level section ``name { ... }`` of ``text``."""
    lines = text.splitlines()
    start = lines.index(f"{name} {{")
    end = lines.index("}", start)
    return [line.strip() for line in lines[start + 1 : end]]


# -- CSIT's values on a lab-like node ---------------------------------------------------------


@pytest.mark.parametrize(("smt", "buffers"), [(True, 215040), (False, 107520), (None, 215040)])
def test_a_lab_node_gets_csits_sections_unscaled(
    csit: Topology, smt: bool | None, buffers: int
) -> None:
    node = csit.duts[0]
    options = parse_options(node)
    sizing = sizing_for(options, LAB, smt)
    assert sizing.scaled == ()
    text = startup_conf(node, plan_dut(csit, "ip4base", cores=2), options, sizing)
    assert section(text, "unix") == [
        "nodaemon", "log /var/log/vpp/vpp.log", "cli-listen /run/vpp/cli.sock", "cli-no-pager",
        "full-coredump",
    ]  # fmt: skip
    assert "api-segment { prefix DUT1 }" in text.splitlines()
    assert "socksvr { socket-name /run/vpp/api.sock }" in text.splitlines()
    assert section(text, "memory") == [
        "main-heap-size 3G", "main-heap-page-size 2M", "default-hugepage-size 2M",
    ]  # fmt: skip
    assert section(text, "statseg") == ["size 3G", "page-size 2M", "per-node-counters on"]
    assert section(text, "ip6") == ["hash-buckets 2000000", "heap-size 3G"]
    assert section(text, "buffers") == [f"buffers-per-numa {buffers}"]
    assert section(text, "dpdk")[:3] == ["log-level debug", "uio-driver vfio-pci", "no-multi-seg"]
    assert "# FD.io CSIT's sections and sizes, unscaled." in text
    # the cpu section is the workers' and nothing else (another part of the driver owns it)
    assert section(text, "cpu") == ["main-core 1", "corelist-workers 2-3"]


def test_parse_meminfo_reads_hugepages_and_available_memory() -> None:
    memory = parse_meminfo(MEMINFO)
    assert memory == NodeMemory(hugepage_kb=2048, hugepages_free_mb=512, available_mb=4096)
    assert parse_meminfo("nothing: here\n") is None


# -- scaling rules ----------------------------------------------------------------------------


def test_a_small_node_on_4k_pages_gets_every_size_scaled_with_a_line_each() -> None:
    sizing = size_startup(SMALL, lab_nics=True, smt=False)
    # CSIT's sizes need 3 x 3 GiB + 107520 buffers (249 MiB): 9.2 GiB; the node gives 2 GiB,
    # so each is multiplied by 2048 / 9465 and rounded down to a power of two MiB
    assert (sizing.page_kb, sizing.main_heap_mb, sizing.statseg_mb) == (4, 512, 512)
    assert (sizing.ip6_heap_mb, sizing.ip6_hash_buckets) == (512, 333333)
    assert sizing.buffers == 22528  # 107520 x 0.216, to a multiple of 1024
    why = "the node has 4 KiB pages only, 2.0 GiB for VPP (half of MemAvailable 4.0 GiB, no free "
    assert sizing.scaled == (
        "page size 2M -> 4k (memory main-heap-page-size, statseg page-size, buffers page-size; "
        "memory default-hugepage-size left out): the node has no free hugepages (4 KiB pages "
        "only)",
        f"memory main-heap-size 3G -> 512M: {why}hugepages), CSIT's sizes need 9.2 GiB",
        f"statseg size 3G -> 512M: {why}hugepages), CSIT's sizes need 9.2 GiB",
        f"ip6 heap-size 3G -> 512M: {why}hugepages), CSIT's sizes need 9.2 GiB",
        f"buffers buffers-per-numa 107520 -> 22528: {why}hugepages), CSIT's sizes need 9.2 GiB",
        "ip6 hash-buckets 2000000 -> 333333: with the ip6 heap (CSIT's buckets per byte)",
    )


def test_few_hugepages_scale_what_lives_on_them_and_not_the_ip6_heap() -> None:
    node = NodeMemory(hugepage_kb=2048, hugepages_free_mb=2048, available_mb=65536)
    sizing = size_startup(node, lab_nics=True, smt=True)
    assert sizing.hugepages and sizing.page_kb == 2048
    assert (sizing.main_heap_mb, sizing.statseg_mb, sizing.buffers) == (512, 512, 65536)
    assert (sizing.ip6_heap_mb, sizing.ip6_hash_buckets) == (3072, 2_000_000)
    assert [line.split(" ->")[0] for line in sizing.scaled] == [
        "memory main-heap-size 3G", "statseg size 3G", "buffers buffers-per-numa 215040",
    ]  # fmt: skip
    assert all("2048 MiB of free 2M hugepages" in line for line in sizing.scaled)


def test_ports_on_linux_interfaces_use_4k_pages_even_with_hugepages() -> None:
    sizing = size_startup(LAB, lab_nics=False, smt=True)
    assert sizing.page_kb == 4 and not sizing.hugepages
    assert sizing.main_heap_mb == 3072  # 32 GiB for VPP hold CSIT's sizes
    assert sizing.scaled == (
        "page size 2M -> 4k (memory main-heap-page-size, statseg page-size, buffers page-size; "
        "memory default-hugepage-size left out): ports on Linux interfaces: VPP and DPDK run "
        "on 4 KiB pages (no-hugetlb)",
    )


def test_unknown_memory_scales_nothing_but_options_still_say_theirs() -> None:
    sizing = size_startup(None, lab_nics=True, smt=None, main_heap_mb=1024, buffers_per_numa=16384)
    assert (sizing.page_kb, sizing.main_heap_mb, sizing.buffers) == (2048, 1024, 16384)
    assert sizing.scaled == (
        "memory main-heap-size 3G -> 1G: set by options.main_heap_mb",
        "buffers buffers-per-numa 215040 -> 16384: set by options.buffers_per_numa",
    )


def test_a_familys_own_sections_follow_the_base_ones_unchanged() -> None:
    """SFDP's session table sizes are a section of their own: appended as the family gives it."""
    vpp = get_family("ethip4udp-sfdp-ip4-h65536-p63-s4128768-cps").setup.vpp
    assert vpp is not None
    needs = family_needs(vpp.startup)
    assert (needs.heap_mb, needs.statseg_mb) == (None, None)
    assert needs.rest == "sfdp {\n  sessions-log2 23\n  sessions-per-thread-cache-log2 23\n}\n"


def test_memory_mb_is_one_budget_and_sizes_stop_at_their_floors() -> None:
    sizing = size_startup(LAB, lab_nics=True, smt=True, memory_mb=64)
    assert (sizing.main_heap_mb, sizing.statseg_mb, sizing.ip6_heap_mb) == (256, 64, 64)
    assert (sizing.buffers, sizing.ip6_hash_buckets) == (16384, 65536)
    assert all("options.memory_mb gives VPP 64 MiB" in line for line in sizing.scaled[:4])


def test_a_familys_large_tables_raise_the_base_sizes_instead_of_replacing_them() -> None:
    needs = family_needs(
        "ipsec {\n  ipv4-inbound-spd-flow-cache on\n}\n"
        "statseg { size 256M }\nmemory { main-heap-size 4096M }\n"
    )
    assert (needs.heap_mb, needs.statseg_mb) == (4096, 256)
    assert needs.rest == "ipsec {\n  ipv4-inbound-spd-flow-cache on\n}\n"
    sizing = size_startup(LAB, lab_nics=True, smt=True, family_heap_mb=4096, family_statseg_mb=256)
    assert (sizing.main_heap_mb, sizing.statseg_mb, sizing.scaled) == (4096, 3072, ())


def test_the_local_startup_conf_takes_the_scaled_sections(local: Topology) -> None:
    node = local.duts[0]
    options = parse_options(node)
    config = plan_dut(local, "ip4base")
    text = linux_startup_conf(
        node, config, options, VppRunPaths("/tmp/x"), sizing=sizing_for(options, SMALL, False)
    )
    assert section(text, "memory") == ["main-heap-size 512M", "main-heap-page-size 4k"]
    assert section(text, "statseg") == [
        "socket-name /tmp/x/stats.sock", "size 512M", "page-size 4k", "per-node-counters on",
    ]  # fmt: skip
    assert section(text, "ip6") == ["hash-buckets 333333", "heap-size 512M"]
    assert section(text, "buffers") == ["buffers-per-numa 22528", "page-size 4k"]
    assert "#   ip6 hash-buckets 2000000 -> 333333: with the ip6 heap" in text


# -- the driver: node reads, telemetry, log ---------------------------------------------------


def test_the_driver_reads_the_nodes_memory_once_and_reports_each_scaling(
    csit: Topology, caplog: pytest.LogCaptureFixture
) -> None:
    access, clock = RecordingAccess(), Clock()
    access.readable = {
        "/proc/meminfo": b"MemAvailable: 4194304 kB\nHugePages_Free: 0\nHugepagesize: 2048 kB\n",
        "/sys/devices/system/cpu/smt/active": b"0\n",
    }
    driver = make(csit, access, clock)
    with caplog.at_level(logging.WARNING, logger="ndrpdr.dut.vpp.nodefacts"):
        driver.configure(plan_dut(csit, "ip4base", cores=1))
        driver.configure(plan_dut(csit, "l2xc", cores=1))
    assert access.reads == ["/proc/meminfo", "/sys/devices/system/cpu/smt/active"]
    written = access.files["/etc/vpp/startup.conf"].decode()
    assert section(written, "memory") == ["main-heap-size 512M", "main-heap-page-size 4k"]
    assert section(written, "buffers") == ["buffers-per-numa 22528", "page-size 4k"]
    lines = driver.telemetry()["startup_scaled"].splitlines()
    assert len(lines) == 6 and lines[1].startswith("memory main-heap-size 3G -> 512M: ")
    warned = [r.getMessage() for r in caplog.records]
    assert len(warned) == 6  # once each, not again for the second test
    assert warned[1] == f"DUT1 (vpp): startup.conf differs from CSIT's: {lines[1]}"


def test_an_unreadable_node_keeps_csits_values(csit: Topology) -> None:
    access, clock = RecordingAccess(), Clock()  # nothing readable
    driver = make(csit, access, clock)
    driver.configure(plan_dut(csit, "ip4base", cores=1))
    assert driver.telemetry()["startup_scaled"] == ""
    written = access.files["/etc/vpp/startup.conf"].decode()
    assert section(written, "memory")[0] == "main-heap-size 3G"


# -- the record and the message ---------------------------------------------------------------


def test_the_record_and_message_carry_each_scaling(csit: Topology) -> None:
    lines = size_startup(SMALL, lab_nics=True, smt=False).scaled
    telemetry = {"DUT1": {"startup_scaled": "\n".join(lines)}}
    section_ = record_testbed(csit, telemetry)
    assert section_["duts"] == [{"node": "DUT1", "driver": "vpp", "startup_scaled": list(lines)}]
    # a DUT whose driver says nothing has no field; one with CSIT's values an empty list
    assert record_testbed(csit, {})["duts"] == [{"node": "DUT1", "driver": "vpp"}]
    assert record_testbed(csit, {"DUT1": {"startup_scaled": ""}})["duts"][0]["startup_scaled"] == []
    record = {"status": "passed", "testbed": section_}
    assert caveat_lines(record) == [f"startup.conf of DUT1 differs from CSIT's: {x}" for x in lines]


def _sim_record() -> dict[str, Any]:
    """A whole valid record: a search on the simulated testbed."""
    sim = load_topology(ROOT / "topologies" / "sim.yaml")
    tg = SimTrafficGenerator(sim, 64)
    goals = ndr_pdr_goals(duration_sum_s=2.0, relative_width=0.02)
    settings = SearchSettings("mlr", goals, 30_000.0, tg.max_load_pps)
    result = search(tg, goals, settings.min_load_pps, settings.max_load_pps, "mlr")
    started = datetime.datetime(2026, 12, 6, tzinfo=datetime.timezone.utc)
    return build_record(
        topology=sim, profile=profile_of("ethip4-ip4base"), frame_size=64, settings=settings,
        result=result, trials=result.trials, started=started, finished=started,
    ).to_json()  # fmt: skip


def test_the_schema_takes_startup_scaled_strings_only() -> None:
    record = copy.deepcopy(_sim_record())
    record["testbed"]["duts"][0]["startup_scaled"] = ["memory main-heap-size 3G -> 1G: x"]
    validate_record(record)
    record["testbed"]["duts"][0]["startup_scaled"] = [3]
    with pytest.raises(Exception, match="startup_scaled"):
        validate_record(record)


def test_a_lab_node_with_room_has_no_line_in_the_record(csit: Topology) -> None:
    node: Node = dataclasses.replace(csit.duts[0], options={})
    sizing = sizing_for(parse_options(node), LAB, True)
    telemetry = {"DUT1": {"startup_scaled": "\n".join(sizing.scaled)}}
    record = {"status": "passed", "testbed": record_testbed(csit, telemetry)}
    assert caveat_lines(record) == []


# -- CSIT's heap_size_mult per family ---------------------------------------------------------


def test_families_carry_csits_heap_size_mult() -> None:
    """CSIT's suites set ``heap_size_mult`` 2 for NAT44 with 4M sessions and for IPsec policy
    suites with 10000 tunnels, a flow cache or the fast path (4 from 40000 tunnels), 7 for
    NAT44 with 16M sessions, 2 for memif with DMA, 2 and 8 for SFDP at 1M and 4M sessions;
    every other family keeps 1."""
    sfdp = {
        f"ethip4{proto}-sfdp-{services}-h{hosts}-p63-s{hosts * 63}-{kind}": mult
        for hosts, mult in ((16384, 2), (65536, 8))
        for services in ("ip4", "l4ip4")
        for proto in ("tcp", "udp")
        for kind in ("cps", "tput")
    }
    mults = {
        f.id: getattr(f.setup.vpp, "heap_size_mult", 1)
        for f in all_families()
        if f.setup.vpp is not None
    }
    assert {fid: m for fid, m in mults.items() if m != 1} == {
        "ethip4ipsec10000tnlsw-ip4base-policy-aes256gcm": 2,
        "ethip4ipsec10000tnlsw-ip4base-policy-flow-cache-aes256gcm": 2,
        "ethip4ipsec10000tnlhwasync-ip4base-policy-fastpath-aes256gcm": 2,
        "eth-l2bdbasemaclrn-eth-2memif-dma-1dcr": 2,
        "ethip4udp-nat44det-h65536-p63-s4128758": 2,
        "ethip4udp-nat44ed-h65536-p63-s4128768-udir": 2,
        "ethip4udp-nat44det-h262144-p63-s16515072": 7,
        "ethip4udp-nat44ed-h262144-p63-s16515072-udir": 7,
        "ethip4tcp-nat44ed-h65536-p63-s4128768-cps": 2,
        "ethip4tcp-nat44ed-h65536-p63-s4128768-tput": 2,
        "ethip4udp-nat44ed-h65536-p63-s4128768-cps": 2,
        "ethip4udp-nat44ed-h65536-p63-s4128768-tput": 2,
        **sfdp,
    }
    assert mults["ethip4ipsec10000tnlsw-ip4base-int-aes256gcm"] == 1  # route-based: CSIT's 1


def test_heap_size_mult_multiplies_csits_heap_and_the_familys_need_is_the_floor() -> None:
    lab = size_startup(LAB, lab_nics=True, smt=True, heap_size_mult=2, family_heap_mb=4096)
    assert (lab.main_heap_mb, lab.scaled) == (6144, ())
    small = size_startup(SMALL, lab_nics=True, smt=True, heap_size_mult=2, family_heap_mb=4096)
    assert small.main_heap_mb == 4096  # NAT44-ED's measured need: never scaled below it
    assert "memory main-heap-size 6G -> 4G: " in "\n".join(small.scaled)


def test_a_nat_family_gets_its_doubled_heap_in_the_written_startup_conf(csit: Topology) -> None:
    access, clock = RecordingAccess(), Clock()
    driver = make(csit, access, clock)
    family = next(f for f in all_families() if f.id == "ethip4udp-nat44ed-h65536-p63-s4128768-udir")
    driver.configure(dataclasses.replace(plan_dut(csit, "ip4base", cores=1), family=family.setup))
    written = access.files["/etc/vpp/startup.conf"].decode()
    assert section(written, "memory")[0] == "main-heap-size 6G"
    assert "main-heap-size 4096M" not in written and "statseg { size" not in written


def test_an_options_heap_below_a_familys_need_is_raised_to_it() -> None:
    sizing = size_startup(None, lab_nics=True, smt=True, main_heap_mb=1024, family_heap_mb=4096)
    assert (sizing.main_heap_mb, sizing.scaled) == (4096, ())  # the family's 4 GiB stands
    doubled = size_startup(
        None, lab_nics=True, smt=True, main_heap_mb=1024, family_heap_mb=4096, heap_size_mult=2
    )
    assert doubled.main_heap_mb == 4096
    assert doubled.scaled == (
        "memory main-heap-size 6G -> 4G: set by options.main_heap_mb (1024), raised to the "
        "family's need",
    )
    larger = size_startup(None, lab_nics=True, smt=True, main_heap_mb=8192, family_heap_mb=4096)
    assert larger.scaled == ("memory main-heap-size 4G -> 8G: set by options.main_heap_mb",)


# -- CSIT's smt_used for the buffers ----------------------------------------------------------


def _layout(threads_per_core: int) -> NodeCpus:
    """A one-socket node of 8 CPUs, ``threads_per_core`` to a core (``lscpu -p`` text)."""
    rows = "".join(f"{cpu},{cpu // threads_per_core},0,0\n" for cpu in range(8))
    return NodeCpus(parse_lscpu("# CPU,Core,Socket,Node\n" + rows, "fake"))


@pytest.mark.parametrize(
    ("cpus", "smt", "node_smt", "used"),
    [
        (None, True, None, None),  # unknown: CSIT's labs' value follows (215040)
        (None, True, False, False),  # /sys says no SMT
        (None, False, True, False),  # the test keeps one thread a core (--no-smt)
        (2, True, False, True),  # the layout read for the test wins over /sys
        (1, True, True, False),
        (2, False, True, False),
    ],
)
def test_smt_used_is_csits_rule(
    csit: Topology, cpus: int | None, smt: bool, node_smt: bool | None, used: bool | None
) -> None:
    layout = None if cpus is None else _layout(cpus)
    config = dataclasses.replace(plan_dut(csit, "ip4base"), cpus=layout, smt=smt)
    assert smt_used(config, node_smt) is used
    buffers = size_startup(LAB, lab_nics=True, smt=used).buffers
    assert buffers == (107520 if used is False else 215040)
