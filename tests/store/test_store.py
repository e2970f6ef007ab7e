"""The results store on SQLite and on a real PostgreSQL: ingest, idempotence, round trips.

Every test runs on both backends (``store_url``): a SQLite file, and a
new database of the private PostgreSQL cluster the session started.
Records are real ones (a sim search, a sim MRR measurement).
"""

from __future__ import annotations

import datetime
from typing import Any

import pytest
import sqlalchemy as sa
from store_helpers import (
    MRR_TEST,
    NDRPDR_TEST,
    UTC,
    mrr_record,
    scaled,
    search_record,
    with_run,
)

from ndrpdr.results.schema import validate_record
from ndrpdr.store import open_store
from ndrpdr.store.store import RunSummary
from ndrpdr.trend.history import sample_from_record
from ndrpdr.trend.trendseries import Latency

pytestmark = pytest.mark.real  # a real system part: tests/testkinds.py

NIGHT_1 = "2026-11-20T22:00:00+00:00"
NIGHT_2 = "2026-11-21T23:30:00+01:00"  # 22:30 UTC


def _night(run_id: str, started: str, factor: float = 1.0) -> dict[str, dict[str, Any]]:
    return {
        NDRPDR_TEST: with_run(scaled(search_record(), factor), run_id, started, NDRPDR_TEST),
        MRR_TEST: with_run(mrr_record(), run_id, started, MRR_TEST, versions={}),
    }


def _count(url: str, table: str) -> int:
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            return int(conn.execute(sa.text(f"SELECT count(*) FROM {table}")).scalar_one())
    finally:
        engine.dispose()


def test_a_run_ingested_twice_is_stored_once(store_url: str) -> None:
    night = _night("nightly-1", NIGHT_1)
    with open_store(store_url) as store:
        assert store.ingest_run(night, run_id="unused") == 2
        assert store.ingest_run(night, run_id="unused") == 0
    with open_store(store_url) as store:  # a later process: the same
        assert store.ingest_run(night, run_id="unused") == 0
        assert len(store.samples()) == 2
    assert _count(store_url, "ndrpdr_samples") == 2
    assert _count(store_url, "ndrpdr_records") == 2
    assert _count(store_url, "ndrpdr_runs") == 1


def test_samples_and_records_round_trip(store_url: str) -> None:
    night = _night("nightly-1", NIGHT_1)
    expected = [sample_from_record(n, r, run_id="unused") for n, r in night.items()]
    with open_store(store_url) as store:
        store.ingest_run(night, run_id="unused")
        read = store.samples()
        records = store.records("nightly-1")
    assert sorted(read, key=lambda s: s.kind) == sorted(expected, key=lambda s: s.kind)
    by_kind = {s.kind: s for s in read}
    assert (
        by_kind["ndrpdr"].metrics["PDR lower"].value_pps == night[NDRPDR_TEST]["pdr"]["lower_bound"]
    )
    assert list(by_kind["ndrpdr"].metrics) == list(expected[0].metrics)  # the record's order
    assert set(by_kind["mrr"].metrics) == {"MRR mean"}
    assert by_kind["ndrpdr"].versions == {"DUT1": "ndrpdr 0.1.0 (simulator)"}
    assert by_kind["ndrpdr"].tags == ("NDRPDR", "64B", "1C")
    assert by_kind["ndrpdr"].started == datetime.datetime(2026, 11, 20, 22, 0, tzinfo=UTC)
    assert records == night  # the JSON records as written, field for field
    validate_record(records[NDRPDR_TEST])


def test_two_nights_in_order_with_filters_and_runs(store_url: str) -> None:
    with open_store(store_url) as store:
        store.ingest_run(_night("nightly-2", NIGHT_2, 0.9), run_id="unused")
        store.ingest_run(_night("nightly-1", NIGHT_1), run_id="unused")
        ndrpdr = store.samples(test=NDRPDR_TEST)
        on_sim = store.samples(testbed="sim")
        elsewhere = store.samples(testbed="lab-2n")
        runs = store.runs()
    assert [s.run_id for s in ndrpdr] == ["nightly-1", "nightly-2"]  # by start, not by ingest
    first, second = (s.metrics["NDR lower"].value_pps for s in ndrpdr)
    assert second == pytest.approx(0.9 * first)
    assert len(on_sim) == 4 and elsewhere == []
    assert runs == [
        RunSummary(
            "nightly-1", datetime.datetime(2026, 11, 20, 22, 0, tzinfo=UTC), "sim", 2, ("sim",)
        ),
        RunSummary(
            "nightly-2", datetime.datetime(2026, 11, 21, 22, 30, tzinfo=UTC), "sim", 2, ("sim",)
        ),
    ]


def test_records_without_a_run_section_take_the_callers_run(store_url: str) -> None:
    records = {NDRPDR_TEST: search_record(), MRR_TEST: mrr_record()}
    started = datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    with open_store(store_url) as store:
        assert store.ingest_run(records, run_id="old-run", run_started=started) == 2
        assert store.ingest_run(records, run_id="old-run", run_started=started) == 0
        samples = store.samples()
        assert store.records("old-run") == records
        assert store.records("no-such-run") == {}
        [run] = store.runs()
    assert {s.run_id for s in samples} == {"old-run"}
    assert {s.started for s in samples} == {started}
    assert all(s.tags == () and s.revision is None and s.versions == {} for s in samples)
    assert run.id == "old-run" and run.tests == 2 and run.started == started


def test_a_rewritten_record_replaces_the_stored_one(store_url: str) -> None:
    night = _night("nightly-1", NIGHT_1)
    with open_store(store_url) as store:
        store.ingest_run(night, run_id="unused")
        night[NDRPDR_TEST] = scaled(night[NDRPDR_TEST], 1.5)
        assert store.ingest_run(night, run_id="unused") == 0  # not new: replaced
        [sample] = store.samples(test=NDRPDR_TEST)
        stored = store.records("nightly-1", kind="ndrpdr")
    assert sample.metrics["NDR lower"].value_pps == night[NDRPDR_TEST]["ndr"]["lower_bound"]
    assert stored == {NDRPDR_TEST: night[NDRPDR_TEST]}
    assert _count(store_url, "ndrpdr_samples") == 2


def test_a_store_of_another_schema_version_is_refused(store_url: str) -> None:
    from ndrpdr.store import StoreError

    with open_store(store_url):
        pass
    engine = sa.create_engine(store_url)
    with engine.begin() as conn:
        conn.execute(sa.text("UPDATE ndrpdr_meta SET value = '99' WHERE key = 'schema_version'"))
    engine.dispose()
    with pytest.raises(StoreError, match="schema version 99"):
        open_store(store_url)


def test_a_record_that_is_no_result_record_is_named(store_url: str) -> None:
    from ndrpdr.store import StoreError

    broken = search_record()
    broken["profile"] = "64B"  # a string where the record has an object
    with open_store(store_url) as store:
        with pytest.raises(
            StoreError, match="the record of test 'bad-test' is not a result record"
        ):
            store.ingest_run({NDRPDR_TEST: search_record(), "bad-test": broken}, run_id="r")
        assert store.samples() == []  # nothing of that run was stored


def test_a_directory_is_no_sqlite_file(tmp_path: Any) -> None:
    from ndrpdr.store import StoreError

    with pytest.raises(StoreError, match=f"store sqlite:///{tmp_path}: {tmp_path} is a directory"):
        open_store(f"sqlite:///{tmp_path}")


def test_a_searchs_latency_is_kept_with_its_sample(store_url: str) -> None:
    """The trend report's latency comes from the store without loading any record."""
    night = _night("nightly-1", NIGHT_1)
    night[NDRPDR_TEST]["latency"] = {
        "status": "measured",
        "points": [
            {"percent_of_pdr": 10, "directions": [{"p50_us": 5.0, "p99_us": 9.0}]},
            {
                "percent_of_pdr": 90,
                "directions": [{"p50_us": 12.0, "p99_us": 30.0}, {"p50_us": 14.0, "p99_us": None}],
            },
        ],
    }
    with open_store(store_url) as store:
        store.ingest_run(night, run_id="unused")
        latency = store.latency()
        assert store.latency(test=MRR_TEST) == {}
    key = sample_from_record(NDRPDR_TEST, night[NDRPDR_TEST], run_id="unused").key
    assert latency == {("nightly-1", key): Latency(percent_of_pdr=90, p50_us=14.0, p99_us=30.0)}
