"""The readers of a run's records on a real soak run on the simulator: ``ndrpdr summary``,
``compare``, ``ingest`` / ``trend`` and ``export --format csit`` take the soak record.

One Robot run of the project's ethip4-ip4base soak suite (64 B, 1 core, a
one minute soak of simulated time) writes its record, kind "soak"; each
command reads it through the run's directory or its output.xml.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import ROOT, CliCall

from csit_schema_source import csit_schema_or_skip
from ndrpdr.outdir.runfiles import read_run
from ndrpdr.results.schema import validate_record
from robot_runner import robot_output

SUITE = ROOT / "suites" / "ip4" / "ethip4-ip4base-soak.robot"
TEST = "64B-1c-ethip4-ip4base-soak"
#: One suite run with ``--name Soak`` is itself the suite Soak.
CSIT_FILE = Path("soak", "64b-1c-ethip4-ip4base-soak.info.json")


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The run's directory: output.xml and the soak record."""
    directory = tmp_path_factory.mktemp("soak-run")
    args = ["--variable", "SOAK_TIME:1min", "--name", "Soak", "--include", "64B AND 1C", str(SUITE)]
    process, _ = robot_output(directory, args)
    assert process.returncode == 0, process.stdout + process.stderr
    return directory


@pytest.fixture(scope="module")
def record(run: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((run / f"{TEST}.json").read_text(encoding="utf-8"))
    validate_record(data)
    assert data["kind"] == "soak" and data["status"] == "passed"
    return data


def test_the_run_files_give_the_soak_record(run: Path, record: dict[str, Any]) -> None:
    assert read_run(run) == {TEST: record}
    assert read_run(run / "output.xml") == {TEST: record}


def test_summary_shows_the_critical_load(run: Path, record: dict[str, Any], cli: CliCall) -> None:
    process = cli("summary", str(run / "output.xml"))
    assert process.returncode == 0, process.stdout + process.stderr
    (line,) = [line for line in process.stdout.splitlines() if line.startswith(TEST)]
    mean = record["soak"]["critical_load_pps"]["mean"]
    assert line.split()[1] == "PASS" and line.endswith(f"{mean / 1e6:.4f} Mpps")


def test_compare_compares_the_critical_loads(
    run: Path, record: dict[str, Any], cli: CliCall
) -> None:
    process = cli("compare", str(run), str(run / "output.xml"), "--json")
    assert process.returncode == 0, process.stdout + process.stderr
    (row,) = json.loads(process.stdout)["rows"]
    estimate = record["soak"]["critical_load_pps"]
    assert row["test"] == TEST and row["metric"] == "Soak critical" and row["gated"] is True
    assert row["a_pps"] == row["b_pps"] == estimate["median"]
    assert row["verdict"] == "within noise"
    assert row["noise_pct"] == pytest.approx(100.0 * 4.0 * estimate["stdev"] / estimate["median"])


def test_a_soak_lost_in_b_is_a_regression(
    run: Path, record: dict[str, Any], cli: CliCall, tmp_path: Path
) -> None:
    """B's soak failed before any trial: no critical load, the gate fails."""
    failed = {**record, "status": "failed", "error": "TG: gone"}
    failed["soak"] = {**record["soak"], "critical_load_pps": None, "trials": [], "trial_count": 0}
    validate_record(failed)
    (tmp_path / f"{TEST}.json").write_text(json.dumps(failed), encoding="utf-8")
    process = cli("compare", str(run), str(tmp_path), "--fail-on-regression", "5")
    assert process.returncode == 1, process.stdout + process.stderr
    assert "lost in B" in process.stdout and "Soak critical" in process.stdout


def test_ingest_and_trend_plot_the_critical_load(
    run: Path, record: dict[str, Any], cli: CliCall, tmp_path: Path
) -> None:
    store = tmp_path / "store.sqlite"
    ingest = cli("ingest", "--store", str(store), "--run-id", "soak-1", str(run))
    assert ingest.returncode == 0, ingest.stdout + ingest.stderr
    page = tmp_path / "trend.html"
    trend = cli("trend", "--store", str(store), "-o", str(page))
    assert trend.returncode == 0, trend.stdout + trend.stderr
    text = page.read_text(encoding="utf-8")
    assert text.count('class="trend-plot"') == 1 and TEST in text
    assert "Soak critical" in text


def test_export_maps_the_bounds_to_csits_critical_rate(
    run: Path, record: dict[str, Any], cli: CliCall, tmp_path: Path
) -> None:
    out = tmp_path / "csit"
    process = cli("export", "--format", "csit", "-o", str(out), str(run))
    assert process.returncode == 0, process.stdout + process.stderr
    assert process.stderr == ""  # CSIT's loss ratio: nothing to note
    document = json.loads((out / CSIT_FILE).read_text(encoding="utf-8"))
    assert document["test_type"] == "soak" and document["passed"] is True
    estimate = record["soak"]["critical_load_pps"]
    critical = document["result"]["critical_rate"]
    assert document["result"]["type"] == "soak"
    assert critical["lower"]["rate"] == {"value": estimate["lower"], "unit": "pps"}
    assert critical["upper"]["rate"] == {"value": estimate["upper"], "unit": "pps"}
    assert critical["lower"]["bandwidth"]["value"] < critical["upper"]["bandwidth"]["value"]


def test_the_soak_document_is_valid_against_csits_schema(
    run: Path, cli: CliCall, tmp_path: Path
) -> None:
    schema = tmp_path / "test_case.schema.json"
    schema.write_text(json.dumps(csit_schema_or_skip()), encoding="utf-8")
    out = tmp_path / "csit"
    process = cli("export", "--format", "csit", "-o", str(out), "--validate", str(schema), str(run))
    assert process.returncode == 0, process.stdout + process.stderr
    assert f"valid against {schema}" in process.stdout
