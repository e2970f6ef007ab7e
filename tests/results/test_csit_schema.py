"""Documents of real sim records validated against CSIT's own test_case schema (model 1.5.1).

The schema is CSIT's text, so it is not in this repository: it comes from
outside (``tests/csit_schema_source.py`` says where from; without one these
tests skip, saying how to provide it). Each branch of the schema we
produce is exercised: result types ndrpdr (with and without latency),
mrr and unknown, and both sides of its passed / message rule; and the
schema is shown to refuse documents that break it, naming the field.
"""

from __future__ import annotations

import copy
import subprocess
from pathlib import Path
from typing import Any

import pytest
from record_helpers import SIM, sim_mrr_record, sim_record, sim_search

import csit_schema_source
from csit_schema_source import csit_schema_or_skip, find_csit_schema
from ndrpdr.csitexport.csitmodel import CSIT_MODEL_VERSION, RobotTest, csit_test_case
from ndrpdr.csitexport.csitschema import (
    CSIT_SCHEMA_PATH,
    CsitSchemaError,
    CsitValidator,
    is_rfc3339,
    load_csit_schema,
)
from ndrpdr.topology.loader import load_topology

NDRPDR = "64B-1c-ethip4-ip4base-ndrpdr"
MRR = "64B-1c-ethip4-ip4base-mrr"


@pytest.fixture(scope="module")
def validator() -> CsitValidator:
    return CsitValidator(csit_schema_or_skip())


def _mrr(count: int, error: str | None = None) -> dict[str, Any]:
    return sim_mrr_record(load_topology(SIM), count, error=error)


@pytest.fixture(scope="module")
def documents() -> dict[str, dict[str, Any]]:
    """One document per case we produce, each from a real record."""
    topology = load_topology(SIM)
    with_latency = sim_record(topology, latency_duration_s=1.0)
    return {
        "ndrpdr with latency": csit_test_case(with_latency, RobotTest(NDRPDR)),
        "ndrpdr without latency": csit_test_case(sim_record(topology), RobotTest(NDRPDR)),
        "ndrpdr, Robot failed it": csit_test_case(
            with_latency, RobotTest(NDRPDR, status="FAIL", message="Teardown failed")
        ),
        "ndrpdr of a binary search": csit_test_case(
            sim_record(topology, algorithm="binary"), RobotTest(NDRPDR)
        ),
        "incomplete search": csit_test_case(
            sim_record(topology, fail_at=4, message="TG: gone"), RobotTest(NDRPDR)
        ),
        "lossy min load": csit_test_case(
            sim_search(topology, min_load_pps=5e6).record.to_json(), RobotTest(NDRPDR)
        ),
        "mrr": csit_test_case(_mrr(3), RobotTest(MRR)),
        "mrr failed after trials": csit_test_case(_mrr(2, "TG: gone"), RobotTest(MRR)),
        "mrr without trials": csit_test_case(_mrr(0, "TG: gone"), RobotTest(MRR)),
    }


def test_the_schema_is_csits_model_1_5_1() -> None:
    schema = csit_schema_or_skip()
    assert str(schema["$id"]).endswith("/1.5.1") and CSIT_MODEL_VERSION == "1.5.1"


def test_every_case_we_produce_is_valid(
    validator: CsitValidator, documents: dict[str, dict[str, Any]]
) -> None:
    invalid = {case: validator.errors(doc) for case, doc in documents.items()}
    assert {case: errors for case, errors in invalid.items() if errors} == {}
    # the cases cover every branch of the schema we produce
    types = {(doc["result"]["type"], doc["passed"]) for doc in documents.values()}
    assert types == {
        ("ndrpdr", True),
        ("ndrpdr", False),
        ("mrr", True),
        ("mrr", False),
        ("unknown", False),
    }
    assert "latency_reverse" in documents["ndrpdr with latency"]["result"]
    assert "latency_forward" not in documents["ndrpdr without latency"]["result"]


@pytest.mark.parametrize(
    ("case", "change", "field"),
    [
        ("ndrpdr with latency", lambda d: d.update(message="NDR: 4 Mpps"), "passed"),
        ("incomplete search", lambda d: d.update(message=""), "message"),
        ("ndrpdr with latency", lambda d: d["result"]["ndr"].pop("lower"), "result.ndr"),
        (
            "ndrpdr with latency",
            lambda d: d["result"]["latency_forward"]["pdr_50"].update(max=0),
            "result.latency_forward.pdr_50.max",
        ),
        (
            "ndrpdr with latency",
            lambda d: d["result"]["pdr"]["lower"]["rate"].update(unit="Mpps"),
            "result.pdr.lower.rate.unit",
        ),
        (
            "mrr",
            lambda d: d["result"]["receive_rate"]["rate"].pop("stdev"),
            "result.receive_rate.rate",
        ),
        ("mrr", lambda d: d.update(version="1.5.0"), "version"),
        ("mrr", lambda d: d.update(start_time="2026-11-25 16:00"), "start_time"),
        ("mrr", lambda d: d.update(hosts=[]), "hosts"),
        ("mrr", lambda d: d.update(log="log.html"), "(document)"),
    ],
)
def test_the_schema_refuses_a_broken_document_naming_the_field(
    validator: CsitValidator,
    documents: dict[str, dict[str, Any]],
    case: str,
    change: Any,
    field: str,
) -> None:
    document = copy.deepcopy(documents[case])
    change(document)
    errors = validator.errors(document)
    assert errors, f"{case}: the schema took a broken document"
    assert any(error.split(": ", 1)[0] == field for error in errors), errors


def test_another_model_version_is_refused_with_a_clear_message(tmp_path: Path) -> None:
    text = "$id: https://fd.io/FIXME/CSIT/UTI/test_case/info/1.4.0\ntype: object\n"
    path = tmp_path / "test_case.schema.yaml"
    path.write_text(text)
    with pytest.raises(CsitSchemaError, match=r"\$id '.*/1\.4\.0' is not CSIT's test_case model"):
        load_csit_schema(path)


def test_the_schema_source_order_and_the_skip(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Our own stand-in schemas (not CSIT's text): where the tests look, in which order."""
    for name in ("NDRPDR_CSIT_SCHEMA", "NDRPDR_CSIT_GIT", "NDRPDR_REQUIRE_CSIT_SCHEMA"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(csit_schema_source, "MIRROR", tmp_path / "no-mirror")
    with pytest.raises(pytest.skip.Exception, match="set NDRPDR_CSIT_SCHEMA"):
        csit_schema_or_skip()
    monkeypatch.setenv("NDRPDR_REQUIRE_CSIT_SCHEMA", "1")
    with pytest.raises(pytest.fail.Exception, match="NDRPDR_REQUIRE_CSIT_SCHEMA=1 requires it"):
        csit_schema_or_skip()
    # a git directory: read with git show at HEAD
    repo = tmp_path / "csit"
    schema = repo / CSIT_SCHEMA_PATH
    schema.parent.mkdir(parents=True)
    schema.write_text("$id: https://example.invalid/test_case/1.5.1\ntype: object\n")
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t.invalid"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "schema"], check=True)
    monkeypatch.setenv("NDRPDR_CSIT_GIT", str(repo))
    found = find_csit_schema()
    assert found == {"$id": "https://example.invalid/test_case/1.5.1", "type": "object"}
    # a file wins over a git directory, and its version is checked
    other = tmp_path / "other.yaml"
    other.write_text("$id: https://example.invalid/test_case/1.6.0\ntype: object\n")
    monkeypatch.setenv("NDRPDR_CSIT_SCHEMA", str(other))
    with pytest.raises(CsitSchemaError, match=r"other\.yaml: \$id .*1\.6\.0"):
        find_csit_schema()


@pytest.mark.parametrize(
    ("text", "valid"),
    [
        ("2026-11-25T16:49:21.000000Z", True),
        ("2026-11-25T16:49:21+01:00", True),
        ("2026-11-25t16:49:21z", True),
        ("2026-11-25 16:49:21Z", False),
        ("2026-11-25T16:49:21", False),
        ("2026-02-30T16:49:21Z", False),
        ("2026-11-25T24:00:00Z", False),
    ],
)
def test_date_time_is_checked_as_rfc3339(text: str, valid: bool) -> None:
    assert is_rfc3339(text) is valid
