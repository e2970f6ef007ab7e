"""The generated NAT44 suites on the simulator: a ramp-up before each search, udir sends one way.

One robot run of the 64B 1c tests of the det44 NDRPDR and MRR suites and
the NAT44-ED udir NDRPDR suite on ``topologies/sim.yaml``: each passes;
the NDRPDR records keep the ramp-up (CSIT's rate and duration for every
flow, the sim's TG sends all of them; the sim DUT keeps no session count,
and the record says so); the udir record has one direction; the MRR test
logs its ramp-up too.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from acceptance_helpers import index_tests, logged_messages, read_output, run_robot, suite_file
from robot.result import Result

from ndrpdr.results.schema import validate_record

DET = "ethip4udp-nat44det-h65536-p63-s4128758"
UDIR = "ethip4udp-nat44ed-h65536-p63-s4128768-udir"
FLOWS = 65536 * 63


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Result]:
    outputdir: Path = tmp_path_factory.mktemp("nat")
    process = run_robot(
        outputdir, "--include", "64BAND1C", "--variable", "DURATION_SUM:2s",
        "--variable", "MRR_TRIALS:2", "--variable", "LATENCY:False",
        str(suite_file(DET, "ndrpdr")), str(suite_file(DET, "mrr")),
        str(suite_file(UDIR, "ndrpdr")),
    )  # fmt: skip
    assert process.returncode == 0, process.stdout[-3000:] + process.stderr
    return outputdir, read_output(outputdir)


def _record(outputdir: Path, test: str) -> dict[str, object]:
    (path,) = outputdir.rglob(f"{test}.json")
    record: dict[str, object] = json.loads(path.read_text())
    validate_record(record)
    return record


def test_each_search_ramps_up_every_flow_at_csit_rate_first(run: tuple[Path, Result]) -> None:
    outputdir, result = run
    tests = index_tests(result)
    for family, rate, duration, directions in ((DET, 66061.0, 63.9, 2), (UDIR, 5e5, 18.2, 1)):
        name = f"64B-1c-{family}-ndrpdr"
        assert tests[name].status == "PASS"
        record = _record(outputdir, name)
        search = record["search"]
        assert isinstance(search, dict)
        ramp = search["ramp_up"]
        assert ramp["flows"] == ramp["flows_sent"] == FLOWS
        assert ramp["rate_pps"] == rate and ramp["load_pps"] == rate * directions
        assert ramp["duration_s"] == pytest.approx(duration)
        (trial,) = ramp["trials"]
        assert trial["why"] == "before the search"
        assert trial["offered"] == pytest.approx(rate * directions * duration, rel=1e-3)
        assert ramp["state"] is None
        assert ramp["state_note"].endswith(f"DUT1's sim driver keeps no count of {family}'s state")
        assert record["profile"]["directions"] == directions  # type: ignore[index]


def test_mrr_logs_its_ramp_up(run: tuple[Path, Result]) -> None:
    _, result = run
    test = index_tests(result)[f"64B-1c-{DET}-mrr"]
    assert test.status == "PASS"
    notes = [m.message for m in logged_messages(test) if m.message.startswith("ramp-up: ")]
    assert len(notes) == 1 and "1 trial(s), the last 63.9 s at 132122 pps" in notes[0]
