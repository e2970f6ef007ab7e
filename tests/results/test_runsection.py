"""The run section of a record: run ids, start times, the suites' git revision."""

from __future__ import annotations

import datetime
import re
import subprocess
from pathlib import Path

import pytest
from record_helpers import SIM, sim_mrr_record

from ndrpdr.results.runsection import git_revision, new_run_id, parse_started, run_section, with_run
from ndrpdr.results.schema import RecordError, validate_record
from ndrpdr.topology.loader import load_topology

UTC = datetime.timezone.utc


def test_a_new_run_id_is_the_utc_time_and_random_digits() -> None:
    moment = datetime.datetime(
        2026, 11, 25, 23, 0, 5, tzinfo=datetime.timezone(datetime.timedelta(hours=1))
    )
    first, second = new_run_id(moment), new_run_id(moment)
    assert re.fullmatch(r"20261125T220005Z-[0-9a-f]{6}", first)
    assert first != second  # two processes started in one second still differ


def test_start_times_parse_with_or_without_an_offset() -> None:
    assert parse_started("2026-11-25T22:00:00Z") == datetime.datetime(2026, 11, 25, 22, tzinfo=UTC)
    assert parse_started("2026-11-25T23:00:00+01:00") == datetime.datetime(
        2026, 11, 25, 22, tzinfo=UTC
    )
    assert parse_started("2026-11-25T22:00:00").tzinfo == UTC
    with pytest.raises(ValueError, match="not an ISO 8601 time: 'last night'"):
        parse_started("last night")


def test_the_git_revision_of_a_checkout_and_none_elsewhere(tmp_path: Path) -> None:
    checkout = tmp_path / "suites"
    checkout.mkdir()
    git = ["git", "-C", str(checkout), "-c", "user.name=t", "-c", "user.email=t@invalid"]
    subprocess.run([*git, "init", "-q"], check=True)
    (checkout / "a.robot").write_text("*** Test Cases ***\n")
    subprocess.run([*git, "add", "a.robot"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "suite"], check=True)
    head = subprocess.run(
        [*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.strip()
    assert git_revision(checkout) == head
    plain = tmp_path / "copied"
    plain.mkdir()
    assert git_revision(plain) is None
    assert git_revision(tmp_path / "missing") is None


def test_with_run_adds_the_section_last_and_leaves_the_record_alone() -> None:
    record = {"version": "1.5.0", "kind": "mrr", "run": {"id": "old"}}
    section = run_section(
        run_id="r1",
        started=datetime.datetime(2026, 11, 25, 22, 0, 0, 123456, tzinfo=UTC),
        test="t",
        suite="s",
        tags=("MRR",),
        revision=None,
        versions={"DUT1": "Linux 6.1"},
    )
    stamped = with_run(record, section)
    assert list(stamped) == ["version", "kind", "run"]
    assert stamped["run"] == {
        "id": "r1",
        "started": "2026-11-25T22:00:00+00:00",
        "test": "t",
        "suite": "s",
        "tags": ["MRR"],
        "revision": None,
        "versions": {"DUT1": "Linux 6.1"},
    }
    assert record["run"] == {"id": "old"}


def test_the_schema_takes_a_run_section_and_names_a_bad_field() -> None:
    start = datetime.datetime(2026, 11, 25, 22, tzinfo=UTC)
    record = sim_mrr_record(load_topology(SIM), 1, started=start)
    validate_record(record)  # without a run section: still valid (optional since 1.5.0)
    record["run"] = run_section(
        run_id="r1",
        started=datetime.datetime(2026, 11, 25, 22, tzinfo=UTC),
        test="64B-1c-ethip4-ip4base-mrr",
        suite="Throughput.Ethip4-Ip4Base-Mrr",
        tags=["MRR"],
        revision=None,
        versions={"DUT1": "Linux 6.1"},
    )
    validate_record(record)
    record["run"]["versions"]["DUT1"] = 6.1
    with pytest.raises(RecordError, match=r"run\.versions\.DUT1: 6\.1 is not of type 'string'"):
        validate_record(record)
    del record["run"]["id"]
    with pytest.raises(RecordError, match="run: 'id' is a required property"):
        validate_record(record)
