"""DUTs at the edges, in real Robot runs of a generated suite on the simulator.

A dead DUT fails its test saying it forwarded nothing; a flapping one fails
as irregular (``DUT_FLAPPING``) with the evidence; a duplicating one passes
with its bounds, the surplus kept in the record and the trials' warnings
naming duplicates. Each run is one 64B 1C test (a few seconds).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from acceptance_helpers import SIM, SUITES, index_tests, read_output, run_robot

from ndrpdr.results.schema import validate_record

TEST = "64B-1c-ethip4-ip4base-ndrpdr"


def _run(tmp: Path, model: str, seed: int) -> tuple[Any, dict[str, Any], str]:
    """The test, its record and the console of a run with the sim DUT ``model``."""
    text = SIM.read_text()
    anchor = "      model: sharp"
    assert anchor in text
    topology = tmp / f"sim-{model}.yaml"
    topology.write_text(
        text.replace(anchor, f"      model: {model}").replace("seed: 1 ", f"seed: {seed} ")
    )
    process = run_robot(
        tmp,
        "--variable", f"TOPOLOGY:{topology}",
        "--include", "64B AND 1C",
        str(SUITES / "ip4" / "ethip4-ip4base-ndrpdr.robot"),
    )  # fmt: skip
    test = index_tests(read_output(tmp))[TEST]
    record = json.loads((tmp / f"{TEST}.json").read_text())
    validate_record(record)
    return test, record, process.stdout + process.stderr


def test_a_dead_dut_fails_saying_it_forwarded_nothing(tmp_path: Path) -> None:
    test, record, output = _run(tmp_path, "dead", 1)
    assert test.status == "FAIL", output
    assert "the DUT forwarded nothing: 0 of" in test.message
    assert "a lower min_rate (${MIN_RATE}) will not help" in test.message
    assert {"IRREGULAR", "MIN_LOAD_LOSSY"} <= set(test.tags)
    assert record["trials"] and all(t["forwarded_count"] == 0 for t in record["trials"])


def test_a_flapping_dut_is_irregular_with_the_evidence(tmp_path: Path) -> None:
    test, record, output = _run(tmp_path, "flapping", 2)
    assert test.status == "FAIL", output
    assert "the DUT's capacity jumped between trials: trial " in test.message
    assert "irregular=warn (${IRREGULAR})" in test.message
    assert {"IRREGULAR", "DUT_FLAPPING"} <= set(test.tags)
    assert [i["tag"] for i in record["irregular"]] == ["DUT_FLAPPING"]


def test_a_duplicating_dut_passes_with_its_surplus_recorded(tmp_path: Path) -> None:
    test, record, output = _run(tmp_path, "duplicating", 3)
    assert test.status == "PASS", output
    surplus = [t for t in record["trials"] if t["surplus_count"] > 0]
    assert surplus, "no trial received duplicates"
    assert all(t["loss_count"] == 0 for t in surplus)
    assert all(any("duplicates from the DUT" in w for w in t["warnings"]) for t in surplus)
    logged = (tmp_path / "output.xml").read_text(encoding="utf-8")
    assert "frames more than were sent" in logged  # the trial's warning, in the log
    assert record["ndr"]["lower_bound"] is not None and record["pdr"]["lower_bound"] is not None
