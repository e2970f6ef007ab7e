"""A generated soak suite runs on the simulator in seconds: critical load and spread reported.

``robot --include 64BAND1C suites/ip4/ethip4-ip4scale2m-rnd-soak.robot`` with a 10
minute soak (simulated time): the test passes, its message and metadata
carry the critical load and its spread, and the estimate is the simulated
DUT's true critical load for loss ratio 1e-7 (a sharp cliff below the TG's
maximum), inside the reported 95 % interval. The test writes its record
(kind "soak") next to output.xml, linked from the log, with the numbers of
the message and metadata.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from acceptance_helpers import (
    SIM,
    index_tests,
    logged_messages,
    plain_float,
    read_output,
    run_robot,
    suite_file,
)
from robot.result import TestCase as RobotTest

from ndrpdr.families import profile_of
from ndrpdr.profiles import parse_frame_size
from ndrpdr.results.schema import validate_record
from ndrpdr.topology.loader import load_topology
from ndrpdr.trafficgen.sim.driver import SimTrafficGenerator

FAMILY = "ethip4-ip4scale2m-rnd"
TEST = f"64B-1c-{FAMILY}-soak"
SOAK_TIME_S = 600.0


@pytest.fixture(scope="module")
def outputdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("soak")


@pytest.fixture(scope="module")
def soak(outputdir: Path) -> tuple[RobotTest, float]:
    """The soak test of the run, and the run's wall seconds."""
    started = time.monotonic()
    process = run_robot(
        outputdir, "--include", "64B AND 1C", "--variable", f"SOAK_TIME:{SOAK_TIME_S:g}s",
        str(suite_file(FAMILY, "soak")),
    )  # fmt: skip
    wall_s = time.monotonic() - started
    assert process.returncode == 0, process.stdout[-3000:] + process.stderr
    return index_tests(read_output(outputdir))[TEST], wall_s


def test_the_soak_passes_in_seconds_with_the_estimate_in_message_and_metadata(
    soak: tuple[RobotTest, float],
) -> None:
    test, wall_s = soak
    assert test.status == "PASS"
    assert wall_s < 60.0  # 10 simulated minutes
    assert {"SOAK", "64B", "1C", "1T1C", FAMILY} <= set(test.tags)
    metadata = test.metadata
    avg, stdev = plain_float(metadata["SOAK_AVG"]), plain_float(metadata["SOAK_STDEV"])
    lower, upper = plain_float(metadata["SOAK_LOWER"]), plain_float(metadata["SOAK_UPPER"])
    assert lower <= avg <= upper and upper - lower == pytest.approx(2 * stdev, abs=0.002)
    assert metadata["SOAK_LOSS_RATIO"] == "1e-07"
    assert plain_float(metadata["SOAK_TIME"]) == pytest.approx(SOAK_TIME_S)
    assert "SOAK critical load: " in test.message and "SOAK lower bound: " in test.message
    assert f"{avg / 1e6:.4f} Mpps" in test.message
    median = plain_float(metadata["SOAK_MEDIAN"])  # the estimate
    assert lower <= median <= upper
    assert f"SOAK critical load: {median / 1e6:.4f} Mpps" in test.message


def test_the_estimate_is_the_simulated_duts_critical_load(soak: tuple[RobotTest, float]) -> None:
    test, _ = soak
    tg = SimTrafficGenerator(
        load_topology(SIM), parse_frame_size("64"), profile=profile_of(FAMILY), cores=1
    )
    truth = tg.model.true_throughput(SOAK_TIME_S, 1e-7)
    assert truth < tg.max_load_pps  # the DUT, not the TG, limits
    assert plain_float(test.metadata["SOAK_MEDIAN"]) == pytest.approx(truth, rel=1e-4)
    assert plain_float(test.metadata["SOAK_AVG"]) == pytest.approx(truth, rel=1e-4)


def test_the_soak_writes_its_record_next_to_output_xml_linked_from_the_log(
    soak: tuple[RobotTest, float], outputdir: Path
) -> None:
    test, _ = soak
    path = outputdir / f"{TEST}.json"
    record: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    validate_record(record)
    assert record["kind"] == "soak" and record["status"] == "passed"
    assert record["run"]["test"] == TEST and record["profile"]["name"] == FAMILY
    soak_section = record["soak"]
    estimate = soak_section["critical_load_pps"]
    metadata = test.metadata
    assert estimate["median"] == pytest.approx(plain_float(metadata["SOAK_MEDIAN"]), rel=1e-5)
    assert estimate["mean"] == pytest.approx(plain_float(metadata["SOAK_AVG"]), rel=1e-5)
    assert estimate["lower"] == pytest.approx(plain_float(metadata["SOAK_LOWER"]), rel=1e-5)
    assert estimate["upper"] == pytest.approx(plain_float(metadata["SOAK_UPPER"]), rel=1e-5)
    assert soak_section["trial_count"] == int(metadata["SOAK_TRIALS"])
    assert soak_section["time_budget_s"] == SOAK_TIME_S
    assert soak_section["search_time_s"] == pytest.approx(plain_float(metadata["SOAK_TIME"]))
    logged = (outputdir / "output.xml").read_text(encoding="utf-8")
    assert f'href="{TEST}.json"' in logged  # the log links it, as a search's record


LOG_AGAIN = """\
*** Settings ***
Library    NdrPdrLibrary    {topology}
Suite Setup    Set Up Testbed
Suite Teardown    Tear Down Testbed

*** Test Cases ***
Soak Then Log Its Record
    Configure DUTs For Traffic    ethip4-ip4base    64
    Find Critical Load    ethip4-ip4base    64    soak_time=30s
    ${{record}} =    Read Result Record    ${{OUTPUT DIR}}/Soak_Then_Log_Its_Record.json
    Should Be Equal    ${{record}}[kind]    soak
    Log Result Record    ${{OUTPUT DIR}}/Soak_Then_Log_Its_Record.json
"""


def test_log_result_record_of_a_soak_record_says_what_its_test_said(tmp_path: Path) -> None:
    suite = tmp_path / "log_again.robot"
    suite.write_text(LOG_AGAIN.format(topology=SIM), encoding="utf-8")
    process = run_robot(tmp_path / "out", str(suite))
    assert process.returncode == 0, process.stdout + process.stderr
    test = index_tests(read_output(tmp_path / "out"))["Soak Then Log Its Record"]
    logged = [m for m in logged_messages(test) if m.parent.name == "Log Result Record"]
    assert [m.message for m in logged if not m.html] == [test.message]
    assert test.message.startswith("SOAK critical load: ")
    assert any(m.html and "<table" in m.message for m in logged)


BURSTY = """\
*** Settings ***
Library    NdrPdrLibrary    {topology}
Suite Setup    Set Up Testbed
Suite Teardown    Tear Down Testbed

*** Test Cases ***
Soak A Jittery DUT
    Configure DUTs For Traffic    ethip4-ip4base    64
    Find Critical Load    ethip4-ip4base    64    soak_time=10 min
"""


def test_a_soak_on_bursty_loss_warns_that_loss_came_in_bursts(
    tmp_path: Path,
) -> None:
    """The sim DUT whose level moves from trial to trial (``jitter``): trials contradict a
    loss that grows with the load; the test keeps its estimate and says so."""
    topology = tmp_path / "jitter.yaml"
    text = SIM.read_text(encoding="utf-8")
    assert "model: sharp" in text, "sim.yaml changed: update this test"
    topology.write_text(text.replace("model: sharp", "model: jitter"), encoding="utf-8")
    suite = tmp_path / "bursty.robot"
    suite.write_text(BURSTY.format(topology=topology), encoding="utf-8")
    process = run_robot(tmp_path / "out", str(suite))
    assert process.returncode == 0, process.stdout + process.stderr
    test = index_tests(read_output(tmp_path / "out"))["Soak A Jittery DUT"]
    assert test.status == "PASS"
    warning = test.message.splitlines()[-1]
    assert warning.startswith("WARNING: loss came in bursts: ")
    assert int(test.metadata["SOAK_BURSTS"]) >= 1
    warned = [m.message for m in logged_messages(test) if m.level == "WARN"]
    assert warned == [f"Soak A Jittery DUT: {warning.removeprefix('WARNING: ')}"]
    record = json.loads((tmp_path / "out" / "Soak_A_Jittery_DUT.json").read_text("utf-8"))
    assert record["soak"]["bursts"]["contradicted"] == int(test.metadata["SOAK_BURSTS"])
