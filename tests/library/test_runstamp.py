"""The run section the keyword layer stamps on records, outside a Robot run (plain Python).

Inside Robot (test, suite, tags, versions of a set-up testbed) it is
checked by tests/acceptance/test_run_section.py.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterator

import pytest

from ndrpdr.results.runsection import REVISION_ENV, RUN_ID_ENV, RUN_STARTED_ENV
from NdrPdrLibrary import runstamp
from NdrPdrLibrary.context import LibraryContext

UTC = datetime.timezone.utc


@pytest.fixture(autouse=True)
def _fresh_process(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each test is a new library process with no run variables set."""
    for name in (RUN_ID_ENV, RUN_STARTED_ENV, REVISION_ENV):
        monkeypatch.delenv(name, raising=False)
    runstamp._process_run.cache_clear()
    yield
    runstamp._process_run.cache_clear()


def test_one_run_id_per_process_unless_the_environment_names_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first = runstamp.run_id()
    assert runstamp.run_id() == first
    monkeypatch.setenv(RUN_ID_ENV, "jenkins-vpp-412")
    assert runstamp.run_id() == "jenkins-vpp-412"
    runstamp._process_run.cache_clear()
    monkeypatch.delenv(RUN_ID_ENV)
    assert runstamp.run_id() != first  # another process, another id


def test_the_run_starts_with_the_first_record_unless_the_environment_says(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first = {"started": "2026-11-25T22:00:07+00:00"}
    later = {"started": "2026-11-25T22:03:00+00:00"}
    assert runstamp.run_started(first) == datetime.datetime(2026, 11, 25, 22, 0, 7, tzinfo=UTC)
    assert runstamp.run_started(later) == runstamp.run_started(first)
    monkeypatch.setenv(RUN_STARTED_ENV, "2026-11-25T21:59:00Z")
    assert runstamp.run_started(later) == datetime.datetime(2026, 11, 25, 21, 59, tzinfo=UTC)


def test_a_bad_start_in_the_environment_is_ignored_with_one_warning(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    warnings: list[str] = []
    monkeypatch.setattr(runstamp.robotout, "warn", warnings.append)
    monkeypatch.setenv(RUN_STARTED_ENV, "yesterday")
    record = {"started": "2026-11-25T22:00:00+00:00"}
    assert runstamp.run_started(record) == datetime.datetime(2026, 11, 25, 22, tzinfo=UTC)
    runstamp.run_started(record)
    assert warnings == ["NDRPDR_RUN_STARTED ignored: not an ISO 8601 time: 'yesterday'"]


def test_a_stamp_outside_robot_and_without_a_testbed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(RUN_ID_ENV, "r-7")
    monkeypatch.setenv(REVISION_ENV, "v1.2-3-gabc")
    record = {"version": "1.5.0", "started": "2026-11-25T22:00:00+00:00"}
    stamped = runstamp.stamp_run(LibraryContext(), record)
    assert stamped["run"] == {
        "id": "r-7",
        "started": "2026-11-25T22:00:00+00:00",
        "test": None,
        "suite": None,
        "tags": [],
        "revision": "v1.2-3-gabc",
        "versions": {},  # no testbed set up: none asked
    }
    assert "run" not in record
