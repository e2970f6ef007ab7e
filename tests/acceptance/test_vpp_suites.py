"""The 64B ip4base and l2xc NDRPDR suites on topologies/local-vpp.yaml: the real VPP as DUT.

VPP v26.06 (/opt/vpp/v26.06, ``../shared/vpp/install``) on af_packet ports
in the DUT namespace, real frames from tcpreplay. Both suites run in one
robot process with a short duration sum; each must find NDR <= PDR, be
tagged DUT_VPP and DRV_AF_PACKET, and keep VPP's own ``show runtime`` in
its record. Nothing of the run may be left: namespaces, VPP processes,
run directories, shared-memory segments, state files. Skipped without
VPP, root or the tools, unless NDRPDR_REQUIRE_VPP=1 (then it fails).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from acceptance_helpers import (
    ALLOW_TG_LIMITED,
    ROOT,
    SUITES,
    TOPOLOGIES,
    assert_host_limited_only,
    child_env,
    index_tests,
    netns_list,
    plain_float,
    read_output,
    robot_args,
)
from robot.result import Result

from ndrpdr.results.schema import validate_record

TOOLS = ("tcpreplay", "ip", "nft")
VPP = Path("/opt/vpp/v26.06/bin/vpp")
TOPOLOGY = TOPOLOGIES / "local-vpp.yaml"
TESTS = {
    "64B-1c-ethip4-ip4base-ndrpdr": SUITES / "ethip4-ip4base-ndrpdr.robot",
    "64B-1c-eth-l2xcbase-ndrpdr": SUITES / "eth-l2xcbase-ndrpdr.robot",
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


def _vpp_pids() -> set[int]:
    """PIDs of processes running /opt/vpp/v26.06/bin/vpp."""
    found: set[int] = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if os.readlink(entry / "exe") == str(VPP):
                    found.add(int(entry.name))
            except OSError:
                continue
    return found


def _run_dirs() -> set[str]:
    return {p.name for p in Path("/tmp").glob("ndrpdr-vpp-*")}


def _segments() -> set[str]:
    return {p.name for p in Path("/dev/shm").glob("ndrpdr-vpp-*")}


@pytest.fixture(scope="module")
def vpp_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Result, list[str]]]:
    """Run both suites; yield (output dir, output.xml, what this run left behind)."""
    reason = _skip_reason()
    if reason is not None:
        if os.environ.get("NDRPDR_REQUIRE_VPP") == "1":
            pytest.fail(f"NDRPDR_REQUIRE_VPP=1 but {reason}")
        pytest.skip(reason)
    outputdir = tmp_path_factory.mktemp("vpp-suites")
    state_dir = outputdir / "state"
    before = (set(netns_list()), _vpp_pids(), _run_dirs(), _segments())
    command = [
        sys.executable, "-m", "robot", "--outputdir", str(outputdir), "--console", "dotted",
        *robot_args(
            ("TOPOLOGY", str(TOPOLOGY)),
            ("DURATION_SUM", "2s"),
            ("MAX_SEARCH_TIME", "90s"),
            ("LATENCY", "False"),
            ALLOW_TG_LIMITED,  # tcpreplay on a busy host may fall short: warned and tagged
        ),
        "--include", "64B", *(str(suite) for suite in TESTS.values()),
    ]  # fmt: skip
    process = subprocess.Popen(
        command,
        cwd=ROOT,
        env=child_env(NDRPDR_STATE_DIR=str(state_dir)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    timed_out = False
    try:
        stdout, stderr = process.communicate(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        timed_out = True
        os.killpg(process.pid, signal.SIGKILL)
        stdout, stderr = process.communicate()
    prefix = f"ndrpdr-{process.pid}-"
    left = sorted(n for n in set(netns_list()) - before[0] if n.startswith(prefix))
    # VPPs, run directories and segments that appeared and stayed (another run may be
    # starting its own meanwhile: only those still there after ours ended are counted).
    left += [f"vpp pid {pid}" for pid in sorted(_vpp_pids() - before[1])]
    left += sorted(_run_dirs() - before[2]) + sorted(_segments() - before[3])
    left += sorted(p.name for p in state_dir.iterdir()) if state_dir.exists() else []
    try:
        assert not timed_out, f"robot took over {TIMEOUT_S} s:\n{stdout}\n{stderr}"
        assert (outputdir / "output.xml").exists(), stdout + stderr
        yield outputdir, read_output(outputdir), left
    finally:
        for name in left:
            if name.startswith(prefix):
                subprocess.run(["ip", "netns", "delete", name], check=False)


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
