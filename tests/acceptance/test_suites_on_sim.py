"""Shipped suites run for real on the simulator and their results checked.

The NDRPDR and MRR suites of ``PROFILES`` (suites/ip4/, suites/l2/), their
1-core rows: one ``python3 -m robot`` run per module; every test reads its
output.xml (``robot.api.ExecutionResult``), the JSON records and log.html.
The simulated DUT's true NDR / PDR are known (``SimTrafficGenerator.model``),
so the bounds the search reports are checked against the truth.
"""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
import xml.etree.ElementTree as ET
from functools import cache
from pathlib import Path

import pytest
from acceptance_helpers import (
    BOUND_KEYS,
    FRAME_SIZES,
    PROFILES,
    SIM,
    SUITES,
    close,
    frame_size_tag,
    index_tests,
    log_html_strings,
    logged_messages,
    plain_float,
    read_output,
    run_robot,
    suite_file,
    suite_test_name,
)
from robot.result import Result
from robot.result import TestCase as RobotTest

from ndrpdr.families import profile_of
from ndrpdr.profiles import parse_frame_size
from ndrpdr.results.schema import validate_record
from ndrpdr.topology.loader import load_topology
from ndrpdr.trafficgen.sim.driver import SimTrafficGenerator

#: The suites' final trial duration (resources/performance.resource: FINAL_TRIAL_DURATION).
FINAL_TRIAL_DURATION_S = 1.0
#: The suites' MRR trial count (MRR_TRIALS).
MRR_TRIALS = 10
#: Float slack when comparing bounds with the truth.
SLACK = 1e-9
#: Metadata values are written with 3 decimals.
METADATA_ABS = 0.0015

NDRPDR_TESTS = [
    (suite_test_name(size, profile, "ndrpdr"), profile, size)
    for profile in PROFILES
    for size in FRAME_SIZES
]
MRR_TESTS = [
    (suite_test_name(size, profile, "mrr"), profile, size)
    for profile in PROFILES
    for size in FRAME_SIZES
]
#: The suites run: each profile's NDRPDR and MRR suite.
SUITE_FILES = [suite_file(profile, kind) for profile in PROFILES for kind in ("ndrpdr", "mrr")]
_NDRPDR_IDS = [name for name, _, _ in NDRPDR_TESTS]
_MRR_IDS = [name for name, _, _ in MRR_TESTS]


@dataclasses.dataclass(frozen=True)
class SuiteRun:
    """One robot run of suites/ and what it left."""

    outputdir: Path
    process: subprocess.CompletedProcess[str]
    result: Result
    tests: dict[str, RobotTest]


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> SuiteRun:
    """``python3 -m robot --xunit xunit.xml --include 1C SUITE...`` on the default (sim)."""
    outputdir = tmp_path_factory.mktemp("sim-suites")
    process = run_robot(
        outputdir, "--xunit", "xunit.xml", "--include", "1C", *map(str, SUITE_FILES)
    )
    assert (outputdir / "output.xml").exists(), process.stdout + process.stderr
    result = read_output(outputdir)
    return SuiteRun(outputdir, process, result, index_tests(result))


@cache
def effective_truth(frame_size: str, profile: str) -> tuple[float, float, float]:
    """``(NDR, PDR, max load)`` of the sim topology [pps, aggregate]: min(true, max load).

    The simulated DUT models family ``profile`` on the suites' 1 core.
    """
    tg = SimTrafficGenerator(
        load_topology(SIM), parse_frame_size(frame_size), profile=profile_of(profile), cores=1
    )
    top = tg.max_load_pps
    ndr = min(tg.model.true_ndr(FINAL_TRIAL_DURATION_S), top)
    pdr = min(tg.model.true_pdr(FINAL_TRIAL_DURATION_S), top)
    return ndr, pdr, top


def bounds(test: RobotTest, goal: str) -> tuple[float, float | None, float]:
    """``(lower, upper or None, conditional)`` of ``goal`` (NDR / PDR) from test metadata."""
    metadata = test.metadata
    upper = metadata.get(f"{goal}_UPPER")
    return (
        plain_float(metadata[f"{goal}_LOWER"]),
        None if upper is None else plain_float(upper),
        plain_float(metadata[f"{goal}_CONDITIONAL"]),
    )


def record_of(run: SuiteRun, name: str) -> dict[str, object]:
    """The JSON record a test wrote next to output.xml."""
    path = run.outputdir / f"{name}.json"
    assert path.is_file(), f"no record {path.name} in {sorted(run.outputdir.iterdir())}"
    record = json.loads(path.read_text())
    assert isinstance(record, dict)
    return record


def test_every_test_passes(run: SuiteRun) -> None:
    assert run.process.returncode == 0, run.process.stdout + run.process.stderr
    assert run.process.stderr == ""
    stats = run.result.statistics.total
    assert (stats.passed, stats.failed, stats.skipped) == (24, 0, 0)
    assert sorted(run.tests) == sorted(_NDRPDR_IDS + _MRR_IDS)
    failed = {name: t.message for name, t in run.tests.items() if t.status != "PASS"}
    assert not failed


def test_suites_and_metadata(run: SuiteRun) -> None:
    leaves = run.result.suite.suites
    assert sorted(Path(s.source) for s in leaves) == sorted(SUITE_FILES)
    assert all(path.parent.parent == SUITES for path in SUITE_FILES)
    for suite in leaves:
        assert suite.status == "PASS"
        assert len(suite.tests) == 4
        assert suite.metadata["TG"] == "TG (sim)"
        assert suite.metadata["DUTs"] == "DUT1 (sim)"
        assert suite.metadata["Topology"].endswith("sim.yaml")


def _xunit_properties(run: SuiteRun) -> dict[str, dict[str, str]]:
    """``{test name: {key: value}}`` from the xunit file's suite properties named for tests."""
    root = ET.parse(run.outputdir / "xunit.xml").getroot()
    found: dict[str, dict[str, str]] = {}
    for suite in root.iter("testsuite"):
        cases = {case.get("name") for case in suite.findall("testcase")}
        for prop in suite.findall("properties/property"):
            name, value = prop.get("name"), prop.get("value") or ""
            if name in cases:
                found[name] = dict(pair.split("=", 1) for pair in value.split())
    return found


def test_xunit_carries_every_tests_bounds(run: SuiteRun) -> None:
    """Robot's xunit writer gives a passing test case nothing but its name: the bounds
    come as its suite's properties, one named for each test, equal to its metadata."""
    properties = _xunit_properties(run)
    assert set(properties) == set(_NDRPDR_IDS) | set(_MRR_IDS)
    for name in _NDRPDR_IDS:
        metadata = run.tests[name].metadata
        got = properties[name]
        assert {"NDR_LOWER", "NDR_CONDITIONAL", "PDR_LOWER", "PDR_CONDITIONAL"} <= set(got)
        assert all(got[key] == metadata[key] for key in got), name
        lower, _, _ = bounds(run.tests[name], "NDR")
        assert plain_float(got["NDR_LOWER"]) == lower > 0
    for name in _MRR_IDS:
        got = properties[name]
        assert set(got) == {"MRR_AVG", "MRR_STDEV", "MRR_MIN", "MRR_MAX"}
        assert all(got[key] == run.tests[name].metadata[key] for key in got), name


def test_every_test_writes_a_record_of_its_kind(run: SuiteRun) -> None:
    written = sorted(p.name for p in run.outputdir.glob("*.json"))
    assert written == sorted(f"{name}.json" for name in _NDRPDR_IDS + _MRR_IDS)
    for name in _NDRPDR_IDS:
        assert record_of(run, name)["kind"] == "ndrpdr"
    for name in _MRR_IDS:
        assert record_of(run, name)["kind"] == "mrr"


@pytest.mark.parametrize(("name", "profile", "frame_size"), MRR_TESTS, ids=_MRR_IDS)
def test_mrr_record_matches_the_metadata(
    run: SuiteRun, name: str, profile: str, frame_size: str
) -> None:
    record = record_of(run, name)
    validate_record(record)
    assert record["status"] == "passed" and record["error"] is None
    assert record["tool"]["name"] == "ndrpdr"  # type: ignore[index]
    assert record["profile"]["name"] == profile  # type: ignore[index]
    assert record["testbed"]["tg"] == {"node": "TG", "driver": "sim"}  # type: ignore[index]
    mrr = record["mrr"]
    assert isinstance(mrr, dict)
    assert mrr["trial_count"] == len(mrr["trials"]) == MRR_TRIALS
    rate = mrr["receive_rate_pps"]
    metadata = run.tests[name].metadata
    for key, field in (("MRR_AVG", "mean"), ("MRR_STDEV", "stdev"), ("MRR_MIN", "min")):
        assert close(plain_float(metadata[key]), rate[field], abs_=METADATA_ABS), key
    assert close(plain_float(metadata["MRR_MAX"]), rate["max"], abs_=METADATA_ABS)
    forwarded = [t["forwarded_count"] / t["duration_s"] for t in mrr["trials"]]
    assert forwarded == pytest.approx(rate["values"])
    assert all(t["load_pps"] == mrr["load_pps"] for t in mrr["trials"])
    html = [m.message for m in logged_messages(run.tests[name]) if m.html]
    assert any(f"{name}.json" in text for text in html), "no link to the record"


@pytest.mark.parametrize(("name", "profile", "frame_size"), NDRPDR_TESTS, ids=_NDRPDR_IDS)
def test_ndrpdr_tags(run: SuiteRun, name: str, profile: str, frame_size: str) -> None:
    tags = set(run.tests[name].tags)
    assert {"NDRPDR", frame_size_tag(frame_size), "1C", "DUT_SIM", "TG_SIM", profile} <= tags
    assert {"1T1C", "STHREAD"} <= tags  # added at run time (resources/performance.resource)
    assert "MRR" not in tags
    other_sizes = {frame_size_tag(s) for s in FRAME_SIZES} - {frame_size_tag(frame_size)}
    assert not tags & other_sizes


@pytest.mark.parametrize(("name", "profile", "frame_size"), MRR_TESTS, ids=_MRR_IDS)
def test_mrr_tags(run: SuiteRun, name: str, profile: str, frame_size: str) -> None:
    tags = set(run.tests[name].tags)
    assert {"MRR", frame_size_tag(frame_size), "1C", "DUT_SIM", "TG_SIM", profile} <= tags
    assert "NDRPDR" not in tags


@pytest.mark.parametrize(("name", "profile", "frame_size"), NDRPDR_TESTS, ids=_NDRPDR_IDS)
def test_ndrpdr_metadata_are_plain_ordered_numbers(
    run: SuiteRun, name: str, profile: str, frame_size: str
) -> None:
    test = run.tests[name]
    metadata = test.metadata
    for key in BOUND_KEYS:
        if key in metadata:
            assert plain_float(metadata[key]) > 0, key
    ndr_lower, ndr_upper, ndr_cond = bounds(test, "NDR")
    pdr_lower, pdr_upper, pdr_cond = bounds(test, "PDR")
    assert ndr_lower <= pdr_lower
    for lower, upper, conditional in (
        (ndr_lower, ndr_upper, ndr_cond),
        (pdr_lower, pdr_upper, pdr_cond),
    ):
        if upper is not None:
            assert lower <= upper
        # Conditional throughput is the lower bound times (1 - some loss ratio).
        assert conditional <= lower * (1 + SLACK)
    assert metadata["FRAME_SIZE"] == frame_size
    assert int(metadata["TRIALS"]) > 0
    assert plain_float(metadata["SEARCH_TIME_S"]) > 0
    assert metadata["STATUS"] == "passed"


@pytest.mark.parametrize(("name", "profile", "frame_size"), NDRPDR_TESTS, ids=_NDRPDR_IDS)
def test_ndrpdr_bounds_contain_the_true_throughput(
    run: SuiteRun, name: str, profile: str, frame_size: str
) -> None:
    test = run.tests[name]
    true_ndr, true_pdr, max_load = effective_truth(frame_size, profile)
    for goal, truth in (("NDR", true_ndr), ("PDR", true_pdr)):
        lower, upper, _ = bounds(test, goal)
        if upper is None:
            # The max load was a lower bound: it is the effective truth.
            assert close(lower, max_load, rel=1e-6), (goal, lower, max_load)
            assert close(truth, max_load, rel=1e-6), (goal, truth, max_load)
        else:
            assert lower * (1 - SLACK) - METADATA_ABS <= truth, (goal, lower, truth)
            assert truth <= upper * (1 + SLACK) + METADATA_ABS, (goal, truth, upper)
            assert upper <= max_load * (1 + SLACK) + METADATA_ABS


@pytest.mark.parametrize(("name", "profile", "frame_size"), NDRPDR_TESTS, ids=_NDRPDR_IDS)
def test_ndrpdr_record_matches_the_metadata(
    run: SuiteRun, name: str, profile: str, frame_size: str
) -> None:
    test = run.tests[name]
    record = record_of(run, name)
    validate_record(record)
    assert record["status"] == "passed"
    assert record["error"] is None
    profile_entry = record["profile"]
    assert isinstance(profile_entry, dict)
    assert profile_entry["name"] == profile
    assert str(profile_entry["frame_size"]) == frame_size
    search = record["search"]
    assert isinstance(search, dict)
    assert close(search["max_load_pps"], effective_truth(frame_size, profile)[2])
    trials = record["trials"]
    assert isinstance(trials, list)
    assert search["trial_count"] == len(trials) == int(test.metadata["TRIALS"])
    for key, goal in (("ndr", "NDR"), ("pdr", "PDR")):
        entry = record[key]
        assert isinstance(entry, dict)
        for field, suffix in (
            ("lower_bound", "LOWER"),
            ("upper_bound", "UPPER"),
            ("conditional_throughput", "CONDITIONAL"),
        ):
            value = entry[field]
            meta = test.metadata.get(f"{goal}_{suffix}")
            if value is None:
                assert meta is None, f"{goal}_{suffix}={meta} but the record has no {field}"
            else:
                assert meta is not None, f"{goal}_{suffix} missing; the record has {value}"
                assert close(plain_float(meta), value, abs_=METADATA_ABS), (goal, suffix)


@pytest.mark.parametrize(("name", "profile", "frame_size"), NDRPDR_TESTS, ids=_NDRPDR_IDS)
def test_ndrpdr_message(run: SuiteRun, name: str, profile: str, frame_size: str) -> None:
    test = run.tests[name]
    lines = [line for line in test.message.splitlines() if not line.startswith("Latency at ")]
    assert [line.split(":")[0] for line in lines] == ["NDR", "PDR"], test.message
    for line, goal in zip(lines, ("NDR", "PDR"), strict=True):
        assert "Mpps" in line
        assert "Gbps" in line
        match = re.match(rf"{goal}: lower ([0-9.]+) Mpps ([0-9.]+) Gbps", line)
        assert match is not None, line
        lower = bounds(test, goal)[0]
        assert close(float(match.group(1)) * 1e6, lower, abs_=51.0), (line, lower)
        if bounds(test, goal)[1] is None:
            assert "upper none (max load" in line
        else:
            assert re.search(r"upper [0-9.]+ Mpps [0-9.]+ Gbps", line), line
        assert re.search(r"conditional [0-9.]+ Mpps", line), line


@pytest.mark.parametrize(("name", "profile", "frame_size"), NDRPDR_TESTS, ids=_NDRPDR_IDS)
def test_ndrpdr_logs_a_plot_and_a_trial_table(
    run: SuiteRun, name: str, profile: str, frame_size: str
) -> None:
    html = [m.message for m in logged_messages(run.tests[name]) if m.html]
    assert any(text.lstrip().startswith("<svg") for text in html), "no plot logged"
    assert any("<table" in text for text in html), "no trial table logged"
    assert any(f"{name}.json" in text for text in html), "no link to the record"


def test_log_html_has_the_plots(run: SuiteRun) -> None:
    log_file = run.outputdir / "log.html"
    assert "<svg" in log_file.read_text(encoding="utf-8")
    texts = log_html_strings(log_file)
    plots = [t for t in texts if t.lstrip().startswith("<svg")]
    assert len(plots) >= len(NDRPDR_TESTS)


@pytest.mark.parametrize(("name", "profile", "frame_size"), MRR_TESTS, ids=_MRR_IDS)
def test_mrr_metadata(run: SuiteRun, name: str, profile: str, frame_size: str) -> None:
    test = run.tests[name]
    metadata = test.metadata
    average = plain_float(metadata["MRR_AVG"])
    low = plain_float(metadata["MRR_MIN"])
    high = plain_float(metadata["MRR_MAX"])
    assert average > 0
    assert plain_float(metadata["MRR_STDEV"]) >= 0
    assert low <= average <= high
    rates = [plain_float(r) for r in metadata["MRR_RATES"].split(",")]
    assert len(rates) == MRR_TRIALS
    assert min(rates) == low
    assert max(rates) == high
    # At the max load the sharp-cliff DUT forwards min(capacity, max load).
    true_ndr, _, max_load = effective_truth(frame_size, profile)
    assert high <= max_load * (1 + SLACK) + 1
    assert close(average, true_ndr, rel=1e-3)
    assert test.message.startswith("MRR: avg ")
    assert "Mpps" in test.message


@pytest.mark.parametrize(("name", "profile", "frame_size"), NDRPDR_TESTS, ids=_NDRPDR_IDS)
def test_ndrpdr_latency_in_message_metadata_and_record(
    run: SuiteRun, name: str, profile: str, frame_size: str
) -> None:
    """The sim TG's latency model: four load points of the PDR found, in all three places."""
    test = run.tests[name]
    record = record_of(run, name)
    latency = record["latency"]
    assert isinstance(latency, dict) and latency["status"] == "measured", latency
    assert latency["duration_s"] == 5.0  # LATENCY_TRIAL_DURATION
    pdr = record["pdr"]["lower_bound"]  # type: ignore[index]
    points = latency["points"]
    assert [p["percent_of_pdr"] for p in points] == [0, 10, 50, 90]
    assert [p["load_pps"] for p in points] == [pdr * s / 100 for s in (0, 10, 50, 90)]
    assert test.metadata["LATENCY"] == "measured"
    lines = [line for line in test.message.splitlines() if line.startswith("Latency at ")]
    assert len(lines) == 4
    for point, line in zip(points, lines, strict=True):
        assert line.startswith(f"Latency at {point['percent_of_pdr']} % PDR")
        for entry, key in zip(point["directions"], ("FWD", "REV"), strict=True):
            assert 0 < entry["min_us"] <= entry["avg_us"] <= entry["max_us"]
            prefix = f"LAT_{point['percent_of_pdr']}PDR_{key}"
            assert close(plain_float(test.metadata[f"{prefix}_AVG_US"]), entry["avg_us"], abs_=1e-3)
            assert close(plain_float(test.metadata[f"{prefix}_P99_US"]), entry["p99_us"], abs_=1e-3)
    # the latency model: busier is slower
    assert points[3]["directions"][0]["avg_us"] > points[0]["directions"][0]["avg_us"]
    # log.html: the latency panel right after the trace plot
    html = [m.message for m in logged_messages(test) if m.html]
    plots = [i for i, text in enumerate(html) if "<svg" in text]
    assert len(plots) == 2 and plots[1] == plots[0] + 1, plots
    assert "Latency by load" in html[plots[1]] and "Latency by load" not in html[plots[0]]
