"""The results store: runs' samples and records in a database (SQLite, PostgreSQL, ...).

``open_store(url)`` opens (and creates, when missing) the tables of
``ndrpdr.store.tables``; ``Store.ingest_run`` adds a run's records (a
mapping ``test name -> record``, as ``ndrpdr.outdir.runfiles.read_run``
gives), each reduced to a ``Sample`` by ``sample_from_record`` and kept
with its JSON record. A run ingested again adds nothing: a sample is
known by its run id and test key (testbed, test, frame size, profile,
kind); one whose record is unchanged is skipped, one whose record changed
(a rewritten record) is replaced. The JSON records stay the source of
truth: the store can always be rebuilt from them (``ndrpdr ingest``).
"""

from __future__ import annotations

import dataclasses
import datetime
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import URL
from sqlalchemy.exc import IntegrityError, SQLAlchemyError

from ndrpdr.store import tables
from ndrpdr.store.errors import StoreError
from ndrpdr.store.urls import database_message, make_engine, parse_url, redact
from ndrpdr.trend.compare import TestKey, Value
from ndrpdr.trend.history import Sample, sample_from_record
from ndrpdr.trend.trendseries import Latency, latency_of_record

_Key = tuple[str, str, str, str, str, str]


@dataclasses.dataclass(frozen=True)
class RunSummary:
    """One run in the store: its id, start time (UTC), testbed(s) and number of tests."""

    id: str
    started: datetime.datetime
    #: The testbed, or the testbeds joined by ", " when the run used several.
    testbed: str
    #: How many samples (tests, a test's MRR and search counted apart) the run has.
    tests: int
    #: Every testbed of the run, sorted.
    testbeds: tuple[str, ...] = ()


def _key(sample: Sample) -> _Key:
    key = sample.key
    return (sample.run_id, sample.testbed, key.name, key.frame_size, key.profile, sample.kind)


def _sample_row(sample: Sample, latency: Latency | None) -> dict[str, Any]:
    return {
        "run_id": sample.run_id,
        "testbed": sample.testbed,
        "test": sample.key.name,
        "frame_size": sample.key.frame_size,
        "profile": sample.key.profile,
        "started": sample.started,
        "kind": sample.kind,
        "status": sample.status,
        "caveat": sample.caveat,
        "tags": list(sample.tags),
        "revision": sample.revision,
        "versions": dict(sample.versions),
        "latency": None if latency is None else dataclasses.asdict(latency),
    }


def _metric_rows(sample_id: int, sample: Sample) -> list[dict[str, Any]]:
    return [
        {
            "sample_id": sample_id,
            "metric": metric,
            "position": position,
            "value_pps": value.value_pps,
            "noise_pps": value.noise_pps,
        }
        for position, (metric, value) in enumerate(sample.metrics.items())
    ]


def record_text(record: Mapping[str, Any]) -> str:
    """The record as the store keeps it: compact JSON, fields in the record's order."""
    return json.dumps(record, separators=(",", ":"))


class Store:
    """An open results store; use ``open_store``. A context manager (closing it on exit)."""

    def __init__(self, engine: sa.Engine, url: URL) -> None:
        """Wrap ``engine`` (tables already there); ``url`` is used in messages (password hidden)."""
        self._engine = engine
        self._url = url

    @property
    def url(self) -> str:
        """The store's URL, password shown as ``***``."""
        return redact(self._url)

    def close(self) -> None:
        """Close the store's connections."""
        self._engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _error(self, what: str, exc: BaseException) -> StoreError:
        return StoreError(f"store {self.url}: {what}: {database_message(exc, self._url)}")

    def _fetch(self, query: sa.Select[Any], what: str) -> Sequence[Any]:
        """Every row of ``query``; StoreError saying ``what`` could not be read on failure."""
        try:
            with self._engine.connect() as conn:
                return conn.execute(query).all()
        except SQLAlchemyError as exc:
            raise self._error(what, exc) from None

    # -- writing ---------------------------------------------------------------------
    def ingest_run(
        self,
        records: Mapping[str, Mapping[str, Any]],
        *,
        run_id: str,
        run_started: datetime.datetime | None = None,
    ) -> int:
        """Add a run's records (``test name -> record``); return how many samples are new.

        ``run_id`` and ``run_started`` are for records without a ``run``
        section (see ``sample_from_record``); a record that names its run
        goes to that run. Two records with one key in ``records``: the
        later wins (a test's final record comes after its first).
        """
        incoming: dict[_Key, tuple[Sample, str, Latency | None]] = {}
        for name, record in records.items():
            try:
                sample = sample_from_record(name, record, run_id=run_id, run_started=run_started)
                text = record_text(record)
                latency = latency_of_record(record)
            except (AttributeError, TypeError, ValueError) as exc:
                raise StoreError(
                    f"store {self.url}: the record of test {name!r} is not a result record: {exc}"
                ) from None
            incoming[_key(sample)] = (sample, text, latency)
        if not incoming:
            return 0
        try:
            try:
                with self._engine.begin() as conn:
                    return self._ingest(conn, incoming)
            except IntegrityError:  # another ingest of the same run got in first: see its rows
                with self._engine.begin() as conn:
                    return self._ingest(conn, incoming)
        except SQLAlchemyError as exc:
            raise self._error("cannot ingest the run", exc) from None

    def _ingest(
        self, conn: sa.Connection, incoming: Mapping[_Key, tuple[Sample, str, Latency | None]]
    ) -> int:
        now = datetime.datetime.now(datetime.timezone.utc)
        starts: dict[str, datetime.datetime] = {}
        for sample, _, _ in incoming.values():
            known = starts.get(sample.run_id)
            starts[sample.run_id] = sample.started if known is None else min(known, sample.started)
        self._upsert_runs(conn, starts, now)
        existing = self._existing(conn, list(starts))
        new = [item for key, item in incoming.items() if key not in existing]
        changed = [
            (existing[key][0], item)
            for key, item in incoming.items()
            if key in existing and existing[key][1] != item[1]
        ]
        if new:
            ids = conn.execute(
                tables.samples.insert().returning(
                    tables.samples.c.id, sort_by_parameter_order=True
                ),
                [_sample_row(s, latency) for s, _, latency in new],
            ).scalars()
            self._insert_details(conn, zip(ids, new, strict=True))
        for sample_id, (sample, _, latency) in changed:
            conn.execute(
                tables.samples.update()
                .where(tables.samples.c.id == sample_id)
                .values(_sample_row(sample, latency))
            )
            for table in (tables.metrics, tables.records):
                conn.execute(table.delete().where(table.c.sample_id == sample_id))
        if changed:
            self._insert_details(conn, changed)
        return len(new)

    @staticmethod
    def _insert_details(
        conn: sa.Connection, items: Iterable[tuple[int, tuple[Sample, str, Latency | None]]]
    ) -> None:
        metric_rows: list[dict[str, Any]] = []
        record_rows: list[dict[str, Any]] = []
        for sample_id, (sample, text, _) in items:
            metric_rows.extend(_metric_rows(sample_id, sample))
            record_rows.append({"sample_id": sample_id, "record": text})
        if metric_rows:
            conn.execute(tables.metrics.insert(), metric_rows)
        if record_rows:
            conn.execute(tables.records.insert(), record_rows)

    @staticmethod
    def _upsert_runs(
        conn: sa.Connection, starts: Mapping[str, datetime.datetime], now: datetime.datetime
    ) -> None:
        runs = tables.runs
        known = {
            row.id: row.started
            for row in conn.execute(
                sa.select(runs.c.id, runs.c.started).where(runs.c.id.in_(list(starts)))
            )
        }
        for run_id, started in starts.items():
            if run_id not in known:
                conn.execute(runs.insert().values(id=run_id, started=started, ingested=now))
            else:
                earliest = min(known[run_id], started)
                conn.execute(
                    runs.update().where(runs.c.id == run_id).values(started=earliest, ingested=now)
                )

    @staticmethod
    def _existing(conn: sa.Connection, run_ids: Sequence[str]) -> dict[_Key, tuple[int, str]]:
        s, r = tables.samples, tables.records
        query = (
            sa.select(
                s.c.id, s.c.run_id, s.c.testbed, s.c.test, s.c.frame_size, s.c.profile, s.c.kind,
                r.c.record,
            )
            .select_from(s.outerjoin(r, r.c.sample_id == s.c.id))
            .where(s.c.run_id.in_(run_ids))
        )  # fmt: skip
        return {
            (row.run_id, row.testbed, row.test, row.frame_size, row.profile, row.kind): (
                row.id,
                row.record or "",
            )
            for row in conn.execute(query)
        }

    # -- reading ---------------------------------------------------------------------
    def samples(self, *, test: str | None = None, testbed: str | None = None) -> list[Sample]:
        """Every sample (of ``test`` / on ``testbed`` when given), by start time, then run id."""
        s, m = tables.samples, tables.metrics
        conditions = []
        if test is not None:
            conditions.append(s.c.test == test)
        if testbed is not None:
            conditions.append(s.c.testbed == testbed)
        rows_query = (
            sa.select(s)
            .where(*conditions)
            .order_by(
                s.c.started, s.c.run_id, s.c.testbed, s.c.test, s.c.frame_size, s.c.profile,
                s.c.kind,
            )
        )  # fmt: skip
        metrics_query = (
            sa.select(m.c.sample_id, m.c.metric, m.c.value_pps, m.c.noise_pps)
            .select_from(m.join(s, s.c.id == m.c.sample_id))
            .where(*conditions)
            .order_by(m.c.sample_id, m.c.position)
        )
        try:
            with self._engine.connect() as conn:
                rows = conn.execute(rows_query).all()
                values: dict[int, dict[str, Value]] = {}
                for sample_id, metric, value, noise in conn.execute(metrics_query):
                    values.setdefault(sample_id, {})[metric] = Value(value, noise)
        except SQLAlchemyError as exc:
            raise self._error("cannot read samples", exc) from None
        return [
            Sample(
                key=TestKey(name=row.test, frame_size=row.frame_size, profile=row.profile),
                run_id=row.run_id,
                started=row.started,
                testbed=row.testbed,
                kind=row.kind,
                status=row.status,
                caveat=bool(row.caveat),
                metrics=values.get(row.id, {}),
                tags=tuple(row.tags or ()),
                revision=row.revision,
                versions=dict(row.versions or {}),
            )
            for row in rows
        ]

    def latency(self, *, test: str | None = None) -> dict[tuple[str, TestKey], Latency]:
        """The searches' latency (of ``test`` when given) by (run id, test key) [us]."""
        s = tables.samples
        query = sa.select(s.c.run_id, s.c.test, s.c.frame_size, s.c.profile, s.c.latency).where(
            s.c.latency.is_not(None), *([s.c.test == test] if test is not None else [])
        )
        rows = self._fetch(query, "cannot read latency")
        return {
            (row.run_id, TestKey(row.test, row.frame_size, row.profile)): Latency(**row.latency)
            for row in rows
            if row.latency  # JSON null reads back as None
        }

    def runs(self) -> list[RunSummary]:
        """Every run with at least one sample, by start time, then id."""
        runs, s = tables.runs, tables.samples
        query = (
            sa.select(runs.c.id, runs.c.started, s.c.testbed, sa.func.count(s.c.id))
            .select_from(runs.join(s, s.c.run_id == runs.c.id))
            .group_by(runs.c.id, runs.c.started, s.c.testbed)
            .order_by(runs.c.started, runs.c.id, s.c.testbed)
        )
        rows = self._fetch(query, "cannot read runs")
        grouped: dict[str, tuple[datetime.datetime, list[str], int]] = {}
        for run_id, started, testbed, count in rows:
            _, testbeds, total = grouped.get(run_id, (started, [], 0))
            grouped[run_id] = (started, [*testbeds, testbed], total + int(count))
        return [
            RunSummary(
                id=run_id,
                started=started,
                testbed=", ".join(testbeds),
                tests=total,
                testbeds=tuple(testbeds),
            )
            for run_id, (started, testbeds, total) in grouped.items()
        ]

    def records(
        self, run_id: str, *, testbed: str | None = None, kind: str | None = None
    ) -> dict[str, dict[str, Any]]:
        """``test name -> record`` of run ``run_id`` as ingested ({} for an unknown run).

        A test with records of two kinds (a search and an MRR) or on two
        testbeds: ask by ``kind`` / ``testbed``, else the last one stored wins.
        """
        s, r = tables.samples, tables.records
        conditions = [s.c.run_id == run_id]
        if testbed is not None:
            conditions.append(s.c.testbed == testbed)
        if kind is not None:
            conditions.append(s.c.kind == kind)
        query = (
            sa.select(s.c.test, r.c.record)
            .select_from(s.join(r, r.c.sample_id == s.c.id))
            .where(*conditions)
            .order_by(s.c.started, s.c.id)
        )
        rows = self._fetch(query, f"cannot read the records of run {run_id!r}")
        return {test: json.loads(text) for test, text in rows}


def _prepare(engine: sa.Engine, url: URL) -> None:
    """Create the tables when missing; StoreError when the store has another schema version."""
    with engine.begin() as conn:
        tables.metadata.create_all(conn, checkfirst=True)
        version = conn.execute(
            sa.select(tables.meta.c.value).where(tables.meta.c.key == "schema_version")
        ).scalar()
        if version is None:
            conn.execute(
                tables.meta.insert().values(key="schema_version", value=str(tables.SCHEMA_VERSION))
            )
        elif version != str(tables.SCHEMA_VERSION):
            raise StoreError(
                f"store {redact(url)}: its tables are of schema version {version}, this "
                f"ndrpdr reads version {tables.SCHEMA_VERSION}; rebuild it with ndrpdr ingest "
                "into a new store"
            )


def open_store(url: str) -> Store:
    """Open the store at ``url`` (a SQLAlchemy URL or a SQLite file path), creating its tables.

    Raises StoreError naming the URL (password hidden) when it is not a
    database URL, its driver is missing, or the database cannot be opened.
    """
    parsed = parse_url(url)
    engine = make_engine(parsed)
    try:
        _prepare(engine, parsed)
    except StoreError:
        engine.dispose()
        raise
    except (SQLAlchemyError, OSError) as exc:
        engine.dispose()
        raise StoreError(
            f"store {redact(parsed)}: cannot open it: {database_message(exc, parsed)}"
        ) from None
    return Store(engine, parsed)
