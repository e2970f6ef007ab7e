"""The 64B ip4base and l2xc NDRPDR suites on topologies/local-vpp.yaml: the real VPP as DUT.

And the 64B-1c ip4base test on local-vpp-dpdk.yaml: VPP's DPDK plugin, the lab's
data path, on net_af_xdp virtual devices (``show hardware`` and the EAL
arguments in the record prove the DPDK driver).

VPP v26.06 (/opt/vpp/v26.06, ``../shared/vpp/install``) on af_packet ports
in the DUT namespace, real frames from tcpreplay. Both suites run in one
robot process with a short duration sum; each must find NDR <= PDR, be
tagged DUT_VPP and DRV_AF_PACKET, and keep VPP's own ``show runtime`` in
its record. Nothing of the run may be left: its namespaces, the VPP and other
processes seen in them, the run directories and shared-memory segments its
state file named, state files (``fault_helpers.SearchRun``). Skipped without
VPP, root or the tools, unless NDRPDR_REQUIRE_VPP=1 (then it fails).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from acceptance_helpers import (
    ALLOW_TG_LIMITED,
    SUITES,
    TOPOLOGIES,
    assert_host_limited_only,
    index_tests,
    plain_float,
    read_output,
    robot_args,
)
from fault_helpers import SearchRun
from robot.result import Result

from ndrpdr.results.schema import validate_record
from vpp_build import vpp_problem

pytestmark = pytest.mark.real  # a real system part: tests/testkinds.py

TOOLS = ("tcpreplay", "ip", "nft")
VPP = Path("/opt/vpp/v26.06/bin/vpp")
TOPOLOGY = TOPOLOGIES / "local-vpp.yaml"
DPDK_TOPOLOGY = TOPOLOGIES / "local-vpp-dpdk.yaml"
IP4BASE = "64B-1c-ethip4-ip4base-ndrpdr"
TESTS = {
    "64B-1c-ethip4-ip4base-ndrpdr": SUITES / "ip4" / "ethip4-ip4base-ndrpdr.robot",
    "64B-1c-eth-l2xcbase-ndrpdr": SUITES / "l2" / "eth-l2xcbase-ndrpdr.robot",
}
#: The local TG's maximum (local-vpp.yaml: max_rate_pps) and the search's default min load.
MAX_PPS = 800_000.0
MIN_PPS = 10_000.0
#: The whole robot run must end well within this [s].
TIMEOUT_S = 150.0


def _skip_reason() -> str | None:
    if sys.platform != "linux" or os.geteuid() != 0:
        return "the local testbed needs Linux and root"
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if missing:
        return f"not installed: {', '.join(missing)}"
    return vpp_problem()


def _robot_run(
    outputdir: Path, topology: Path, suites: list[Path]
) -> Iterator[tuple[Path, Result, list[str]]]:
    """Run the 64B 1C tests of ``suites`` on ``topology``; yield (output dir, output.xml,
    what this run left behind)."""
    reason = _skip_reason()
    if reason is not None:
        if os.environ.get("NDRPDR_REQUIRE_VPP") == "1":
            pytest.fail(f"NDRPDR_REQUIRE_VPP=1 but {reason}")
        pytest.skip(reason)
    # Watched as a fault-injection run is: only what this robot process made counts, so
    # another run's VPP, run directory or segments on the machine are none of its leftovers.
    run = SearchRun(
        outputdir,
        "--outputdir", str(outputdir), "--console", "dotted",
        *robot_args(
            ("TOPOLOGY", str(topology)),
            ("DURATION_SUM", "2s"),
            ("GOAL_WIDTH", "0.1"),  # NDR <= PDR is what is checked: a coarse width will do
            ("MAX_SEARCH_TIME", "90s"),
            ("LATENCY", "False"),
            ALLOW_TG_LIMITED,  # tcpreplay on a busy host may fall short: warned and tagged
        ),
        "--include", "64B AND 1C", *(str(suite) for suite in suites),
        runner=("robot",),
        name=outputdir.name,
    )  # fmt: skip
    try:
        run.start().finish(TIMEOUT_S)
        left = run.leftovers()
        assert not run.timed_out, f"robot took over {TIMEOUT_S} s:\n{run.output()}"
        assert (outputdir / "output.xml").exists(), run.output()
        # The leftover check looked at the real things: a VPP and its run directory.
        assert [p for p in run.processes_seen.values() if p.cmdline.startswith(str(VPP))]
        assert [path for path in run.paths_seen if path.startswith("/tmp/ndrpdr-vpp-")]
        yield outputdir, read_output(outputdir), left
    finally:
        run.force_clean()


@pytest.fixture(scope="module")
def vpp_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Result, list[str]]]:
    """Both suites on local-vpp.yaml."""
    yield from _robot_run(tmp_path_factory.mktemp("vpp-suites"), TOPOLOGY, list(TESTS.values()))


@pytest.fixture(scope="module")
def dpdk_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Result, list[str]]]:
    """The ip4base suite on local-vpp-dpdk.yaml."""
    yield from _robot_run(tmp_path_factory.mktemp("vpp-dpdk"), DPDK_TOPOLOGY, [TESTS[IP4BASE]])


def _passed_record(run: tuple[Path, Result, list[str]], name: str, drv: str) -> dict[str, Any]:
    """The record of test ``name``, which passed with 0 < NDR <= PDR, the local VPP's tags
    (``drv``: its DRV_* tag) and nothing irregular but a limited TG."""
    outputdir, result, _ = run
    test = index_tests(result)[name]
    assert test.status == "PASS", test.message
    assert {"NDRPDR", "64B", "1C", "TG_LOCAL", "DUT_VPP", drv} <= set(test.tags)
    ndr = plain_float(test.metadata["NDR_LOWER"])
    pdr = plain_float(test.metadata["PDR_LOWER"])
    assert MIN_PPS <= ndr <= pdr <= MAX_PPS
    record: dict[str, Any] = json.loads((outputdir / f"{name}.json").read_text())
    validate_record(record)
    assert record["status"] == "passed"
    assert_host_limited_only(record, test.tags)
    assert record["testbed"]["duts"][0]["driver"] == "vpp"
    return record


def test_nothing_of_the_run_is_left(vpp_run: tuple[Path, Result, list[str]]) -> None:
    assert vpp_run[2] == []


@pytest.mark.parametrize("name", list(TESTS))
def test_each_test_finds_ndr_at_most_pdr_on_the_real_vpp(
    vpp_run: tuple[Path, Result, list[str]], name: str
) -> None:
    record = _passed_record(vpp_run, name, "DRV_AF_PACKET")
    telemetry = record["telemetry"]["DUT1"]
    runtime = telemetry["show_runtime"]
    # VPP's own show runtime: its graph nodes, with the vectors this test's frames made.
    assert "af-packet-input" in runtime and "host-dut-if2-tx" in runtime
    assert ("ip4-rewrite" in runtime) == ("ip4base" in name)
    assert "vpp v26.06" not in runtime and "Vectors" in runtime
    assert "host-dut-if1" in telemetry["show_interface"]
    assert "af_packet_plugin.so" in telemetry["startup_conf"]
    # 1C: one VPP worker forwarded, and the record says on which CPU, reading which queues.
    cpus = record["testbed"]["cpus"]
    dut = cpus["duts"][0]
    assert dut["node"] == "DUT1" and " 1 worker(s) on cpu " in dut["layout"], cpus
    assert "vpp_wk_0" in dut["rx_placement"] and "host-dut-if1 queue 0" in dut["rx_placement"]
    assert cpus["machine"].startswith("this machine has "), cpus
    assert "Thread 1 vpp_wk_0" in runtime


def test_the_dpdk_plugin_on_af_xdp_vdevs_passes_ip4base(
    dpdk_run: tuple[Path, Result, list[str]],
) -> None:
    """VPP's DPDK plugin on net_af_xdp vdevs: NDR <= PDR, and the record proves the driver."""
    record = _passed_record(dpdk_run, IP4BASE, "DRV_AF_XDP")
    telemetry = record["telemetry"]["DUT1"]
    # show hardware: Devargs lines only a DPDK port has, on the test's veths
    hardware = telemetry["show_hardware"]
    assert "Devargs: iface=dut-if1" in hardware and "Devargs: iface=dut-if2" in hardware
    eal = telemetry["show_dpdk_version"]  # DPDK's driver of each port, by name
    assert "--vdev net_af_xdp0,iface=dut-if1" in eal and "--no-pci" in eal, eal
    runtime = telemetry["show_runtime"]
    assert "dpdk-input" in runtime and "Ethernet1-tx" in runtime and "ip4-rewrite" in runtime
    assert "vdev net_af_xdp1,iface=dut-if2" in telemetry["startup_conf"]
    assert dpdk_run[2] == []
