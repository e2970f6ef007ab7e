"""suites/ip4/ethip4-ip4base-ndrpdr.robot on the local testbed: real packets through namespaces.

Needs root, tcpreplay, ip and nft (skipped otherwise). Only the 1-core 64B and
9000B tests run, with a short duration sum: 64B must find its bounds and
9000B must be skipped (jumbo frames do not fit the veths' MTU). Nothing
may be left behind: no ``ndrpdr-*`` namespace, no state file.
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
TOPOLOGY = TOPOLOGIES / "local-linux.yaml"
SUITE = SUITES / "ip4" / "ethip4-ip4base-ndrpdr.robot"
TEST_64B = "64B-1c-ethip4-ip4base-ndrpdr"
TEST_9000B = "9000B-1c-ethip4-ip4base-ndrpdr"
#: The local TG's maximum (local-linux.yaml: max_rate_pps) and the search's default min load.
MAX_PPS = 800_000.0
MIN_PPS = 10_000.0
#: The whole robot run must end well within this [s].
TIMEOUT_S = 110.0

pytestmark = [
    pytest.mark.real,
    pytest.mark.skipif(
        sys.platform != "linux"
        or os.geteuid() != 0
        or any(shutil.which(tool) is None for tool in TOOLS),
        reason=f"the local testbed needs Linux, root and {', '.join(TOOLS)}",
    ),
]


def _ours(names: set[str], pid: int) -> set[str]:
    return {name for name in names if name.startswith(f"ndrpdr-{pid}-")}


@pytest.fixture(scope="module")
def local_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Result, set[str]]]:
    """Run the suite; yield (output dir, output.xml, this run's ndrpdr-* namespaces left)."""
    outputdir = tmp_path_factory.mktemp("local-suites")
    state_dir = outputdir / "state"
    before = {n for n in netns_list() if n.startswith("ndrpdr-")}
    command = [
        sys.executable,
        "-m",
        "robot",
        "--outputdir",
        str(outputdir),
        "--console",
        "dotted",
        *robot_args(
            ("TOPOLOGY", str(TOPOLOGY)),
            ("DURATION_SUM", "2s"),
            ("MAX_SEARCH_TIME", "120s"),
            ALLOW_TG_LIMITED,  # tcpreplay on a busy host may fall short: warned and tagged
        ),
        "--include",
        "64B AND 1C",
        "--include",
        "9000B AND 1C",
        str(SUITE),
    ]
    process = subprocess.Popen(
        command,
        cwd=ROOT,
        env=child_env(NDRPDR_STATE_DIR=str(state_dir)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group: a timeout kills robot and its children
    )
    timed_out = False
    try:
        stdout, stderr = process.communicate(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        timed_out = True
        os.killpg(process.pid, signal.SIGKILL)
        stdout, stderr = process.communicate()
    # Only this run's namespaces (named after the robot process): another run on the machine
    # may create and remove its own meanwhile.
    left = _ours({n for n in netns_list() if n.startswith("ndrpdr-")} - before, process.pid)
    try:
        assert not timed_out, f"robot took over {TIMEOUT_S} s:\n{stdout}\n{stderr}"
        assert (outputdir / "output.xml").exists(), stdout + stderr
        yield outputdir, read_output(outputdir), left
    finally:
        for name in sorted(left):  # clean up what this run left
            subprocess.run(["ip", "netns", "delete", name], check=False)


def test_nothing_is_left_behind(local_run: tuple[Path, Result, set[str]]) -> None:
    outputdir, _, left = local_run
    assert left == set(), f"namespaces left: {sorted(left)}"
    state_dir = outputdir / "state"
    states = sorted(p.name for p in state_dir.iterdir()) if state_dir.exists() else []
    assert states == [], f"state files left: {states}"


def test_only_the_two_tests_ran(local_run: tuple[Path, Result, set[str]]) -> None:
    _, result, _ = local_run
    assert sorted(index_tests(result)) == sorted([TEST_64B, TEST_9000B])
    stats = result.statistics.total
    assert (stats.passed, stats.failed, stats.skipped) == (1, 0, 1)


def test_64b_finds_bounds_within_the_tg_range(local_run: tuple[Path, Result, set[str]]) -> None:
    _, result, _ = local_run
    test = index_tests(result)[TEST_64B]
    assert test.status == "PASS", test.message
    assert {"NDRPDR", "64B", "1C", "TG_LOCAL", "DUT_LINUX"} <= set(test.tags)
    ndr = plain_float(test.metadata["NDR_LOWER"])
    pdr = plain_float(test.metadata["PDR_LOWER"])
    assert MIN_PPS <= ndr <= pdr <= MAX_PPS
    for goal in ("NDR", "PDR"):
        if f"{goal}_UPPER" in test.metadata:
            assert plain_float(test.metadata[f"{goal}_LOWER"]) <= plain_float(
                test.metadata[f"{goal}_UPPER"]
            )
    assert test.message.startswith("NDR: lower ")


def test_64b_record_is_valid_with_telemetry(local_run: tuple[Path, Result, set[str]]) -> None:
    outputdir, result, _ = local_run
    test = index_tests(result)[TEST_64B]
    record = json.loads((outputdir / f"{TEST_64B}.json").read_text())
    validate_record(record)
    assert record["status"] == "passed"
    assert_host_limited_only(record, test.tags)
    assert record["testbed"]["tg"]["driver"] == "local"
    assert record["testbed"]["duts"][0]["driver"] == "linux"
    cap = record["search"]["max_load_cap"]  # the calibration trial asked for the TG's maximum
    assert cap["requested_pps"] == MAX_PPS
    assert record["search"]["max_load_pps"] == (cap["capped_pps"] or MAX_PPS)
    assert (cap["capped_pps"] is None) == (cap["capable_pps"] >= 0.98 * MAX_PPS)
    assert len(record["trials"]) == record["search"]["trial_count"] == int(test.metadata["TRIALS"])
    assert abs(record["ndr"]["lower_bound"] - plain_float(test.metadata["NDR_LOWER"])) < 0.01
    telemetry = record.get("telemetry")
    assert isinstance(telemetry, dict)
    assert telemetry.get("DUT1"), "no DUT1 telemetry in the record"
    assert all(isinstance(text, str) for text in telemetry["DUT1"].values())


def test_9000b_is_skipped_for_the_veth_mtu(local_run: tuple[Path, Result, set[str]]) -> None:
    outputdir, result, _ = local_run
    test = index_tests(result)[TEST_9000B]
    assert test.status == "SKIP"
    assert "MTU" in test.message
    assert "veth" in test.message
    assert "9000" in test.message
    assert not (outputdir / f"{TEST_9000B}.json").exists()


def test_64b_latency_is_not_measured_by_tcpreplay(
    local_run: tuple[Path, Result, set[str]],
) -> None:
    """The local TG (tcpreplay) has no latency: the run says so, never zeros."""
    outputdir, result, _ = local_run
    test = index_tests(result)[TEST_64B]
    record = json.loads((outputdir / f"{TEST_64B}.json").read_text())
    assert record["latency"]["status"] == "not measured"
    assert record["latency"]["points"] == []
    assert "Latency: not measured (the local TG cannot measure latency)" in test.message
    assert test.metadata["LATENCY"] == "not measured"
    assert not [key for key in test.metadata if key.startswith("LAT_")]
