"""``ndrpdr export --format csit`` on the results of real Robot runs of the project's suites on sim.

Run "ok" ran the NDRPDR and MRR suites' 64 B tests (latency measured after
the search); run "fails" ran the NDRPDR 64 B test with a min rate above
the sim DUT's capacity (ethip4-ip4base at 64 B on 1 core, about 18 Mpps),
so the search finds no lower bound and the test fails. The documents are
validated against CSIT's schema where one is found
(``tests/csit_schema_source.py``); the tests that need none run everywhere.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import ROOT, CliCall

from csit_schema_source import csit_schema_or_skip
from ndrpdr.outdir.outputxml import read_outcomes
from ndrpdr.outdir.runfiles import read_run
from robot_runner import robot_output

SUITES = [ROOT / "suites" / "ip4" / f"ethip4-ip4base-{kind}.robot" for kind in ("ndrpdr", "mrr")]
NDRPDR = "64B-1c-ethip4-ip4base-ndrpdr"
MRR = "64B-1c-ethip4-ip4base-mrr"
NDRPDR_FILE = Path("throughput", "ethip4-ip4base-ndrpdr", "64b-1c-ethip4-ip4base-ndrpdr.info.json")
MRR_FILE = Path("throughput", "ethip4-ip4base-mrr", "64b-1c-ethip4-ip4base-mrr.info.json")
#: One suite run with ``--name Throughput`` is itself the suite Throughput.
ALONE_FILE = Path("throughput", "64b-1c-ethip4-ip4base-ndrpdr.info.json")


def _robot(directory: Path, *args: str, expect: int) -> Path:
    process, _ = robot_output(
        directory,
        ["--variable", "DURATION_SUM:2s", "--name", "Throughput", "--include", "64B AND 1C", *args],
    )
    assert process.returncode == expect, process.stdout + process.stderr
    return directory


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    ok = _robot(tmp_path_factory.mktemp("ok"), *map(str, SUITES), expect=0)
    fails = _robot(
        tmp_path_factory.mktemp("fails"), "--variable", "MIN_RATE:25Mpps", str(SUITES[0]), expect=1
    )
    return {"ok": ok, "fails": fails}


@pytest.fixture(scope="module")
def schema_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """CSIT's schema, found outside the repository, written as JSON into a temporary file."""
    path = tmp_path_factory.mktemp("schema") / "test_case.schema.json"
    path.write_text(json.dumps(csit_schema_or_skip()))
    return path


def _read(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def test_each_test_becomes_one_document_where_csit_writes_it(
    runs: dict[str, Path], tmp_path: Path, cli: CliCall
) -> None:
    """No schema needed: the documents against the run's own records and output.xml."""
    out = tmp_path / "csit"
    process = cli("export", "--format", "csit", "-o", str(out), str(runs["ok"]))
    assert process.returncode == 0, process.stdout + process.stderr
    assert "2 tests written to" in process.stdout
    assert sorted(p.relative_to(out) for p in out.rglob("*.json")) == [MRR_FILE, NDRPDR_FILE]
    records = read_run(runs["ok"])
    outcomes = {o.name: o for o in read_outcomes(runs["ok"] / "output.xml")}
    ndrpdr = _read(out / NDRPDR_FILE)
    assert ndrpdr["test_id"] == "throughput.ethip4-ip4base-ndrpdr.64b-1c-ethip4-ip4base-ndrpdr"
    assert ndrpdr["tags"] == list(outcomes[NDRPDR].tags) and "NDRPDR" in ndrpdr["tags"]
    assert ndrpdr["passed"] is True and ndrpdr["message"] == ""
    for section in ("ndr", "pdr"):
        value = ndrpdr["result"][section]["lower"]["rate"]["value"]
        assert value == records[NDRPDR][section]["conditional_throughput"]
    assert set(ndrpdr["result"]) == {"type", "ndr", "pdr", "latency_forward", "latency_reverse"}
    mrr = _read(out / MRR_FILE)
    assert mrr["test_type"] == "mrr" and mrr["result"]["type"] == "mrr"
    values = records[MRR]["mrr"]["receive_rate_pps"]["values"]
    assert mrr["result"]["receive_rate"]["rate"]["values"] == values and len(values) == 10
    assert process.stderr == ""  # nothing to note on a regular run


def test_a_failed_test_carries_robots_message(
    runs: dict[str, Path], tmp_path: Path, cli: CliCall
) -> None:
    out = tmp_path / "csit"
    xml = runs["fails"] / "output.xml"
    process = cli("export", "--format", "csit", "-o", str(out), str(xml))
    assert process.returncode == 0, process.stdout + process.stderr
    (outcome,) = read_outcomes(xml)
    assert outcome.status == "FAIL" and outcome.message
    document = _read(out / ALONE_FILE)
    assert document["test_id"] == "throughput.64b-1c-ethip4-ip4base-ndrpdr"
    assert document["passed"] is False and document["message"] == outcome.message
    assert document["result"] == {"type": "unknown"}
    assert f"note: {NDRPDR} ({xml}): result type unknown: NDR or PDR has no lower bound" in (
        process.stderr
    )


def test_the_documents_are_valid_against_csits_schema(
    runs: dict[str, Path], schema_file: Path, tmp_path: Path, cli: CliCall
) -> None:
    out = tmp_path / "csit"
    args = ["export", "--format", "csit", "-o", str(out), "--validate", str(schema_file)]
    process = cli(*args, str(runs["ok"]), str(runs["fails"] / "output.xml"))
    assert process.returncode == 0, process.stdout + process.stderr
    assert f"3 tests written to {out}" in process.stdout
    assert f"valid against {schema_file}" in process.stdout


def test_an_invalid_document_is_named_and_nothing_is_written(
    runs: dict[str, Path], schema_file: Path, tmp_path: Path, cli: CliCall
) -> None:
    """CSIT's schema, made stricter here (a DUT type only VPP), refuses our sim documents."""
    schema = _read(schema_file)
    schema["allOf"][0]["properties"]["dut_type"]["const"] = "vpp"
    strict = tmp_path / "strict.json"
    strict.write_text(json.dumps(schema))
    out = tmp_path / "csit"
    args = ["export", "--format", "csit", "-o", str(out), "--validate", str(strict)]
    process = cli(*args, str(runs["ok"]))
    assert process.returncode == 1, process.stdout + process.stderr
    for name in (NDRPDR, MRR):
        line = f"ndrpdr export: invalid: {name} ({runs['ok']}): dut_type: 'vpp' was expected"
        assert line in process.stderr.splitlines()
    assert f"2 errors against {strict}; nothing written" in process.stderr
    assert not out.exists()


def test_a_schema_of_another_model_version_is_refused(
    runs: dict[str, Path], tmp_path: Path, cli: CliCall
) -> None:
    """A stand-in schema of ours (not CSIT's text), with another version in its $id."""
    other = tmp_path / "test_case.schema.yaml"
    other.write_text("$id: https://fd.io/FIXME/CSIT/UTI/test_case/info/1.6.0\ntype: object\n")
    out = tmp_path / "csit"
    args = ["export", "--format", "csit", "-o", str(out), "--validate", str(other)]
    process = cli(*args, str(runs["ok"]))
    assert process.returncode == 1
    assert f"{other}: $id 'https://fd.io/FIXME/CSIT/UTI/test_case/info/1.6.0'" in process.stderr
    assert "is not CSIT's test_case model 1.5.1" in process.stderr
    assert not out.exists()


def test_bad_runs_are_named(runs: dict[str, Path], tmp_path: Path, cli: CliCall) -> None:
    out = tmp_path / "csit"
    missing = cli("export", "--format", "csit", "-o", str(out), str(tmp_path / "nope"))
    assert missing.returncode == 2
    assert f"ndrpdr export: {tmp_path / 'nope'}: no such file or directory" in missing.stderr
    both = (str(runs["ok"]), str(runs["ok"] / "output.xml"))
    twice = cli("export", "--format", "csit", "-o", str(out), *both)
    assert twice.returncode == 1
    assert "test id throughput.ethip4-ip4base-ndrpdr.64b-1c-ethip4-ip4base-ndrpdr again" in (
        twice.stderr
    )
    assert not out.exists()
    other_format = cli("export", "--format", "xunit", "-o", str(out), str(runs["ok"]))
    assert other_format.returncode == 2 and "invalid choice: 'xunit'" in other_format.stderr


def test_records_without_output_xml_take_the_suite_option(
    runs: dict[str, Path], tmp_path: Path, cli: CliCall
) -> None:
    """Only the JSON records (output.xml lost): their ``run`` section names the suite; records
    older than that section (format < 1.5.0) take ``--suite``, else the test name's."""
    named = tmp_path / "named"
    named.mkdir()
    for record in runs["ok"].glob("*.json"):
        (named / record.name).write_bytes(record.read_bytes())
    out = tmp_path / "from-run"
    process = cli("export", "--format", "csit", "-o", str(out), "--suite", "Other", str(named))
    assert process.returncode == 0, process.stdout + process.stderr
    assert not (out / "other").exists()
    assert len(list(out.rglob("64b-1c-ethip4-ip4base-ndrpdr.info.json"))) == 1
    bare = tmp_path / "records"
    bare.mkdir()
    for record in runs["ok"].glob("*.json"):
        data = json.loads(record.read_text())
        data.pop("run", None)
        (bare / record.name).write_text(json.dumps(data))
    out = tmp_path / "csit"
    args = ("export", "--format", "csit", "-o", str(out), "--suite", "Nightly VPP", str(bare))
    process = cli(*args)
    assert process.returncode == 0, process.stdout + process.stderr
    document = _read(out / "nightly_vpp" / "64b-1c-ethip4-ip4base-ndrpdr.info.json")
    assert document["test_id"] == "nightly_vpp.64b-1c-ethip4-ip4base-ndrpdr"
    assert document["tags"] == ["NDRPDR", "64B"] and document["passed"] is True
    assert (out / "nightly_vpp" / "64b-1c-ethip4-ip4base-mrr.info.json").is_file()
    default = cli("export", "--format", "csit", "-o", str(tmp_path / "d"), str(bare))
    assert default.returncode == 0, default.stdout + default.stderr
    assert (tmp_path / "d" / "ethip4-ip4base-ndrpdr" / NDRPDR_FILE.name).is_file()


def test_a_test_without_a_record_is_noted(
    runs: dict[str, Path], tmp_path: Path, cli: CliCall
) -> None:
    """The run's real output.xml, its MRR record removed: Robot ran a test that left none."""
    run = tmp_path / "run"
    run.mkdir()
    for name in ("output.xml", f"{NDRPDR}.json"):
        (run / name).write_bytes((runs["ok"] / name).read_bytes())
    out = tmp_path / "csit"
    process = cli("export", "--format", "csit", "-o", str(out), str(run / "output.xml"))
    assert process.returncode == 0, process.stdout + process.stderr
    assert "1 tests written" in process.stdout
    note = f"ndrpdr export: note: {MRR} ({run / 'output.xml'}) [PASS]: no result record"
    assert note in process.stderr
    assert [p.name for p in out.rglob("*.json")] == [NDRPDR_FILE.name]
