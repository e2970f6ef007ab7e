"""Many testbeds at once: ``bin/run-suites --pabot 2 --testbeds FILE`` runs the shipped suites.

All for real: pabot (robotframework-pabot 5.2.2, its PabotLib server), two robot
processes, six suites of suites/ (their 1-core rows) and the simulator; the value-set
file holds three simulated testbeds, two tagged ``ndrpdr`` (topologies/sim.yaml, and
testbeds/sim-seed7.yaml: another DUT capacity) and one tagged ``3n`` only, which no
suite may take. A listener (testbeds/PabotBarrier.py) makes the first two suites
wait for each other in their first test, so that two suites hold testbeds at one
moment however loaded the machine is (the suites on the simulator are shorter than
a robot process's start-up). The virtual environment run-suites would make is stood in for by a
directory whose ``bin/python`` runs the shared test interpreter (installing the
requirements needs the network), as in test_run_suites_clears_results.py.

Checked from pabot's merged output.xml and the records it links: every test
passed; each suite held one testbed of the tag, and no testbed was held by two
suites at once (the time a suite surely held its testbed: from the end of its
``Acquire Value Set`` to the start of its ``Release Value Set``); each record names
the testbed its suite held, and its bounds bracket that testbed's true capacity;
every link resolves, next to the merged output.xml, to that test's own record.
"""

from __future__ import annotations

import dataclasses
import datetime
import itertools
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from acceptance_helpers import close, log_html_strings, logged_messages, read_output
from robot.result import Keyword, Result
from robot.result import TestCase as RobotTest
from robot.result import TestSuite as RobotSuite

from ndrpdr.families import profile_of
from ndrpdr.outdir.runfiles import read_run
from ndrpdr.profiles import parse_frame_size
from ndrpdr.topology.loader import load_topology
from ndrpdr.trafficgen.sim.driver import SimTrafficGenerator
from standin_venv import standin_venv

ROOT = Path(__file__).resolve().parents[2]
#: The value sets: name -> (tags, topology file).
TESTBEDS = {
    "sim-2n": ("ndrpdr, 2n", ROOT / "topologies" / "sim.yaml"),
    "sim-seed7": ("ndrpdr, 2n", Path(__file__).resolve().parent / "testbeds" / "sim-seed7.yaml"),
    "sim-3n": ("3n", ROOT / "topologies" / "sim-3n.yaml"),
}
TAKEN = {"sim-2n", "sim-seed7"}  # the sets tagged ndrpdr
#: A listener making the first two robot processes hold their testbeds at one moment.
BARRIER = Path(__file__).resolve().parent / "testbeds" / "PabotBarrier.py"
#: The shipped suites run: NDRPDR and MRR of three 2-node families (their 1-core rows).
SUITES = [
    ROOT / "suites" / folder / f"{family}-{kind}.robot"
    for folder, family in (
        ("ip4", "ethip4-ip4base"),
        ("ip4", "ethip4udp-ip4base"),
        ("l2", "eth-l2xcbase"),
    )
    for kind in ("ndrpdr", "mrr")
]
#: Tests of those suites: 6 suites x 4 frame sizes.
TESTS = 24
_HREF = re.compile(r'href="([^"]+\.json)"')
_TEST_NAME = re.compile(r"^(?P<size>\d+B|IMIX)-1c-(?P<profile>.+)-(?P<kind>ndrpdr|mrr)$")


@dataclasses.dataclass(frozen=True)
class PabotRun:
    """One ``bin/run-suites --pabot 2 --testbeds FILE`` run and what it left."""

    outdir: Path
    process: subprocess.CompletedProcess[str]
    result: Result
    seconds: float


def _value_sets(path: Path) -> Path:
    lines = ["# PabotLib value sets of test_pabot_testbeds.py"]
    for name, (tags, topology) in TESTBEDS.items():
        lines += [f"[{name}]", f"tags = {tags}", f"topology = {topology}", ""]
    path.write_text("\n".join(lines))
    return path


def _earlier_pabot_run(outdir: Path) -> None:
    """What an earlier pabot run left: its pabot_results/ (run-suites must clear it)."""
    process = outdir / "pabot_results" / "0"
    process.mkdir(parents=True)
    (process / "robot_argfile.txt").write_text("--outputdir old\n")
    (process / "stale-mark.txt").write_text("from an earlier run")


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> PabotRun:
    directory = tmp_path_factory.mktemp("pabot")
    outdir = directory / "results"
    _earlier_pabot_run(outdir)
    env = {
        **os.environ,
        "NDRPDR_VENV": str(standin_venv(directory)),
        "PYTHONPATH": os.pathsep.join([str(ROOT / "libraries"), str(ROOT)]),
    }
    command = [
        str(ROOT / "bin" / "run-suites"),
        "--pabot",
        "2",
        "--testbeds",
        str(_value_sets(directory / "testbeds.dat")),
        "--outputdir",
        str(outdir),
        "--variable",
        "PROGRESS:none",
        "--listener",
        f"{BARRIER}:{directory / 'barrier'}",
        "--include",
        "1C",
        *map(str, SUITES),
    ]
    started = time.monotonic()
    process = subprocess.run(
        command, cwd=directory, env=env, capture_output=True, text=True, timeout=300, check=False
    )
    seconds = time.monotonic() - started
    print(f"bin/run-suites --pabot 2 --testbeds: {seconds:.1f} s")
    assert (outdir / "output.xml").is_file(), process.stdout + process.stderr
    return PabotRun(outdir, process, read_output(outdir), seconds)


def _suites(result: Result) -> list[RobotSuite]:
    """The suites with tests (pabot's merged top suite holds the six suites)."""
    found, todo = [], [result.suite]
    while todo:
        suite = todo.pop()
        todo.extend(suite.suites)
        if suite.tests:
            found.append(suite)
    return found


def _keywords(item: Any) -> Iterator[Keyword]:
    """Every keyword under ``item`` (IF branches and nested keywords included)."""
    for child in getattr(item, "body", ()):
        if isinstance(child, Keyword):
            yield child
        yield from _keywords(child)


def _keyword(item: Keyword, name: str) -> Keyword:
    found = [kw for kw in _keywords(item) if kw.name == name]
    assert len(found) == 1, (name, [kw.name for kw in _keywords(item)])
    return found[0]


@dataclasses.dataclass(frozen=True)
class Hold:
    """A suite's testbed and the time it surely held it (naive local times, as Robot's)."""

    suite: RobotSuite
    testbed: str
    start: datetime.datetime
    end: datetime.datetime


def _holds(result: Result) -> list[Hold]:
    holds = []
    for suite in _suites(result):
        acquired = _keyword(suite.setup, "Acquire Value Set")
        released = _keyword(suite.teardown, "Release Value Set")
        assert acquired.passed and released.passed, suite.name
        holds.append(Hold(suite, suite.metadata["Testbed"], acquired.end_time, released.start_time))
    return holds


def _links(test: RobotTest) -> list[str]:
    links: list[str] = []
    for message in logged_messages(test):
        links.extend(_HREF.findall(message.message))
    return links


def _record(run: PabotRun, test: RobotTest) -> dict[str, Any]:
    links = _links(test)
    assert len(links) == 1, (test.name, links)
    path = run.outdir / links[0]
    assert path.is_file(), (test.name, links[0])
    record: dict[str, Any] = json.loads(path.read_text())
    return record


@cache
def _truth(topology: Path, frame_size: str, profile: str) -> tuple[float, float, float]:
    """``(NDR, PDR, max load)`` of a sim topology at 1 s trials [pps, aggregate].

    The simulated DUT models family ``profile`` on the suites' 1 core.
    """
    tg = SimTrafficGenerator(
        load_topology(topology), parse_frame_size(frame_size), profile=profile_of(profile)
    )
    top = tg.max_load_pps
    return min(tg.model.true_ndr(1.0), top), min(tg.model.true_pdr(1.0), top), top


# -- the run --------------------------------------------------------------------------------


def test_every_test_passes(run: PabotRun) -> None:
    assert run.process.returncode == 0, run.process.stdout[-3000:] + run.process.stderr
    tests = list(run.result.suite.all_tests)
    assert len(tests) == TESTS
    assert [t.name for t in tests if not t.passed] == []
    assert f"{TESTS} tests, {TESTS} passed" in run.process.stdout  # ndrpdr summary's line


def test_the_earlier_pabot_results_were_cleared(run: PabotRun) -> None:
    """run-suites' clear-results removed it (before pabot ran), and said so."""
    cleared = [
        line
        for line in run.process.stdout.splitlines()
        if line.startswith(f"{run.outdir}: removed the earlier run's")
    ]
    assert len(cleared) == 1 and cleared[0].endswith("pabot_results/"), run.process.stdout[:2000]
    assert not (run.outdir / "pabot_results" / "0" / "stale-mark.txt").exists()


# -- testbeds and their locks ---------------------------------------------------------------


def test_each_suite_held_a_testbed_of_the_tag(run: PabotRun) -> None:
    holds = _holds(run.result)
    assert len(holds) == 6
    assert {h.testbed for h in holds} == TAKEN  # both used (2 processes); never sim-3n
    for hold in holds:
        assert hold.suite.metadata["Topology"] == str(TESTBEDS[hold.testbed][1]), hold.suite.name


def test_no_testbed_was_held_by_two_suites_at_once(run: PabotRun) -> None:
    holds = _holds(run.result)
    for testbed in TAKEN:
        mine = sorted((h for h in holds if h.testbed == testbed), key=lambda h: h.start)
        for before, after in itertools.pairwise(mine):
            assert before.end <= after.start, (testbed, before.suite.name, after.suite.name)
    # and the two processes did run at once: some holds of different testbeds overlap
    assert any(
        a.start < b.end and b.start < a.end for a in holds for b in holds if a.testbed < b.testbed
    )


def test_every_test_ran_while_its_suite_held_the_testbed(run: PabotRun) -> None:
    for hold in _holds(run.result):
        for test in hold.suite.tests:
            assert hold.start <= test.start_time <= test.end_time <= hold.end, test.name


# -- records and links ----------------------------------------------------------------------


def test_each_record_names_the_testbed_it_ran_on(run: PabotRun) -> None:
    """The topology of the suite's value set, and bounds that bracket that testbed's truth
    (the two tagged testbeds' DUTs model the same family a few percent apart: seeds 1, 7)."""
    for hold in _holds(run.result):
        topology = TESTBEDS[hold.testbed][1]
        for test in hold.suite.tests:
            record = _record(run, test)
            assert record["testbed"]["topology"] == str(topology), test.name
            size = _TEST_NAME.match(test.name)
            assert size is not None, test.name
            true_ndr, true_pdr, top = _truth(topology, size["size"].rstrip("B"), size["profile"])
            if record["kind"] == "ndrpdr":
                ndr, pdr = record["ndr"], record["pdr"]
                assert ndr["lower_bound"] <= true_ndr * (1 + 1e-9), test.name
                assert true_ndr <= (ndr.get("upper_bound") or top) * (1 + 1e-9), test.name
                assert pdr["lower_bound"] <= true_pdr * (1 + 1e-9), test.name
            else:
                mean = record["mrr"]["receive_rate_pps"]["mean"]
                assert close(mean, min(true_ndr, top), rel=0.01), (test.name, mean, true_ndr)


def test_every_link_resolves_to_that_tests_own_record(run: PabotRun) -> None:
    linked = set()
    for test in run.result.suite.all_tests:
        record = _record(run, test)
        name = _TEST_NAME.match(test.name)
        assert name is not None, test.name
        assert record["kind"] == name["kind"], test.name
        assert record["profile"]["name"] == name["profile"], test.name
        size = "IMIX" if name["size"] == "IMIX" else int(name["size"].rstrip("B"))
        assert record["profile"]["frame_size"] == size, test.name
        metadata = test.metadata
        if record["kind"] == "ndrpdr":
            assert close(float(metadata["NDR_LOWER"]), record["ndr"]["lower_bound"], abs_=0.0015)
        else:
            mean = record["mrr"]["receive_rate_pps"]["mean"]
            assert close(float(metadata["MRR_AVG"]), mean, abs_=0.5), test.name
        linked.add(_links(test)[0])
    assert len(linked) == TESTS  # no two tests share a file
    assert all("/" not in link for link in linked)  # next to output.xml, not in pabot_results/


def test_no_record_and_no_empty_claim_is_left_in_pabot_results(run: PabotRun) -> None:
    assert list((run.outdir / "pabot_results").rglob("*.json")) == []
    for path in run.outdir.glob("*.json"):
        assert json.loads(path.read_text())["kind"] in {"ndrpdr", "mrr"}, path.name


def test_merged_log_links_the_records(run: PabotRun) -> None:
    texts = "\n".join(log_html_strings(run.outdir / "log.html"))
    for test in run.result.suite.all_tests:
        assert f'href="{test.name}.json"' in texts, test.name


def test_summary_and_compare_read_the_merged_output(run: PabotRun) -> None:
    records = read_run(run.outdir / "output.xml")
    assert sorted(records) == sorted(t.name for t in run.result.suite.all_tests)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "libraries")}
    compare = subprocess.run(
        [
            sys.executable,
            "-m",
            "ndrpdr",
            "compare",
            str(run.outdir / "output.xml"),
            str(run.outdir),
            "--fail-on-regression",
            "5",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert compare.returncode == 0, compare.stdout + compare.stderr
    for test in run.result.suite.all_tests:
        assert test.name in compare.stdout


def test_testbed_tag_without_pabot_fails_the_suite_setup_saying_why(tmp_path: Path) -> None:
    """Plain robot has no PabotLib server to take a testbed from: the setup says what is needed."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "libraries"), str(ROOT)])}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "robot",
            "--outputdir",
            str(tmp_path),
            "--variable",
            "TESTBED_TAG:ndrpdr",
            "--include",
            "64B AND 1C",
            str(ROOT / "suites" / "l2" / "eth-l2xcbase-mrr.robot"),
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "[ ERROR ]" not in done.stderr, done.stderr
    result = read_output(tmp_path)
    (test,) = result.suite.all_tests
    assert "TESTBED_TAG ndrpdr: value sets need pabot --pabotlib --resourcefile FILE" in (
        test.message
    ), test.message
    assert list(tmp_path.glob("*.json")) == []  # no testbed, no record
