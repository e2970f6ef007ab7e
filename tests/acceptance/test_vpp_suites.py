"""The 64B ip4base and l2xc NDRPDR suites on topologies/local-vpp.yaml: the real VPP as DUT.

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

TOOLS = ("tcpreplay", "ip", "nft")
VPP = Path("/opt/vpp/v26.06/bin/vpp")
TOPOLOGY = TOPOLOGIES / "local-vpp.yaml"
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
    if not VPP.is_file():
        return f"VPP is not installed at {VPP.parent.parent} (run ../shared/vpp/install)"
    return None


@pytest.fixture(scope="module")
def vpp_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Result, list[str]]]:
    """Run both suites; yield (output dir, output.xml, what this run left behind)."""
    reason = _skip_reason()
    if reason is not None:
        if os.environ.get("NDRPDR_REQUIRE_VPP") == "1":
            pytest.fail(f"NDRPDR_REQUIRE_VPP=1 but {reason}")
        pytest.skip(reason)
    outputdir = tmp_path_factory.mktemp("vpp-suites")
    # Watched as a fault-injection run is: only what this robot process made counts, so
    # another run's VPP, run directory or segments on the machine are none of its leftovers.
    run = SearchRun(
        outputdir,
        "--outputdir", str(outputdir), "--console", "dotted",
        *robot_args(
            ("TOPOLOGY", str(TOPOLOGY)),
            ("DURATION_SUM", "2s"),
            ("GOAL_WIDTH", "0.1"),  # NDR <= PDR is what is checked: a coarse width will do
            ("MAX_SEARCH_TIME", "90s"),
            ("LATENCY", "False"),
            ALLOW_TG_LIMITED,  # tcpreplay on a busy host may fall short: warned and tagged
        ),
        "--include", "64B AND 1C", *(str(suite) for suite in TESTS.values()),
        runner=("robot",),
        name="vpp-suites",
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


def test_nothing_of_the_run_is_left(vpp_run: tuple[Path, Result, list[str]]) -> None:
    assert vpp_run[2] == []


@pytest.mark.parametrize("name", list(TESTS))
def test_each_test_finds_ndr_at_most_pdr_on_the_real_vpp(
    vpp_run: tuple[Path, Result, list[str]], name: str
) -> None:
    outputdir, result, _ = vpp_run
    test = index_tests(result)[name]
    assert test.status == "PASS", test.message
    assert {"NDRPDR", "64B", "1C", "TG_LOCAL", "DUT_VPP", "DRV_AF_PACKET"} <= set(test.tags)
    ndr = plain_float(test.metadata["NDR_LOWER"])
    pdr = plain_float(test.metadata["PDR_LOWER"])
    assert MIN_PPS <= ndr <= pdr <= MAX_PPS
    record = json.loads((outputdir / f"{name}.json").read_text())
    validate_record(record)
    assert record["status"] == "passed"
    assert_host_limited_only(record, test.tags)
    assert record["testbed"]["duts"][0]["driver"] == "vpp"
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
