"""The results store's tables (SQLAlchemy Core), the same on SQLite and PostgreSQL.

* ``ndrpdr_meta``: ``schema_version`` of these tables (``SCHEMA_VERSION``).
* ``ndrpdr_runs``: one row per run id: its start time (UTC; the earliest
  of its samples when they differ) and when it was last ingested.
* ``ndrpdr_samples``: one row per test of a run (``ndrpdr.trend.history.Sample``):
  unique on the run key (``run_id``) and the test key (``testbed``,
  ``test``, ``frame_size``, ``profile``, ``kind``: a test's MRR record
  beside its search's), so a run ingested twice adds nothing. Tags and
  versions are JSON; so is ``latency``, the search's latency at its highest
  load point (``ndrpdr.trend.trendseries.latency_of_record``; null when
  not measured), kept here so the trend report never loads records.
* ``ndrpdr_metrics``: the sample's metrics (``NDR lower``, ``PDR cond``,
  ``MRR mean``...), one row each: value and noise [pps, aggregate over
  directions], plain columns a SQL user (Grafana on the shared
  PostgreSQL) can query.
* ``ndrpdr_records``: the sample's JSON record as written (text), kept
  apart so reading samples never loads records.

Times are stored as UTC and read back as aware UTC datetimes on every
backend (``UtcDateTime``; SQLite keeps no time zone).
"""

from __future__ import annotations

import datetime
from typing import Any

import sqlalchemy as sa

#: Version of these tables; a store with another version is refused (StoreError says which).
SCHEMA_VERSION = 1

#: Longest run id, test name, testbed... [characters].
NAME_LENGTH = 400

UTC = datetime.timezone.utc


class UtcDateTime(sa.types.TypeDecorator[datetime.datetime]):
    """An aware datetime, stored as UTC; read back aware, in UTC (naive values are refused)."""

    impl = sa.DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: Any, dialect: sa.Dialect) -> datetime.datetime | None:
        """UTC, naive on SQLite (which would otherwise keep a textual offset)."""
        if value is None:
            return None
        if not isinstance(value, datetime.datetime) or value.tzinfo is None:
            raise ValueError(f"store times must be aware datetimes, not {value!r}")
        moment = value.astimezone(UTC)
        return moment.replace(tzinfo=None) if dialect.name == "sqlite" else moment

    def process_result_value(self, value: Any, dialect: sa.Dialect) -> datetime.datetime | None:
        """Aware, in UTC."""
        if value is None:
            return None
        assert isinstance(value, datetime.datetime)
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


metadata = sa.MetaData()

meta = sa.Table(
    "ndrpdr_meta",
    metadata,
    sa.Column("key", sa.String(100), primary_key=True),
    sa.Column("value", sa.String(NAME_LENGTH), nullable=False),
)

runs = sa.Table(
    "ndrpdr_runs",
    metadata,
    sa.Column("id", sa.String(NAME_LENGTH), primary_key=True),
    sa.Column("started", UtcDateTime(), nullable=False),
    sa.Column("ingested", UtcDateTime(), nullable=False),
)

samples = sa.Table(
    "ndrpdr_samples",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("run_id", sa.String(NAME_LENGTH), sa.ForeignKey("ndrpdr_runs.id"), nullable=False),
    sa.Column("testbed", sa.String(NAME_LENGTH), nullable=False),
    sa.Column("test", sa.String(NAME_LENGTH), nullable=False),
    sa.Column("frame_size", sa.String(100), nullable=False),
    sa.Column("profile", sa.String(NAME_LENGTH), nullable=False),
    sa.Column("started", UtcDateTime(), nullable=False),
    sa.Column("kind", sa.String(20), nullable=False),
    sa.Column("status", sa.String(40), nullable=False),
    sa.Column("caveat", sa.Boolean, nullable=False),
    sa.Column("tags", sa.JSON, nullable=False),
    sa.Column("revision", sa.String(NAME_LENGTH), nullable=True),
    sa.Column("versions", sa.JSON, nullable=False),
    sa.Column("latency", sa.JSON(none_as_null=True), nullable=True),
    sa.UniqueConstraint(
        "run_id",
        "testbed",
        "test",
        "frame_size",
        "profile",
        "kind",
        name="ndrpdr_samples_run_test",
    ),
    sa.Index("ndrpdr_samples_test", "test"),
    sa.Index("ndrpdr_samples_started", "started"),
)


def _sample_key() -> sa.Column[int]:
    """The sample a metrics or records row belongs to: its key, gone with the sample."""
    return sa.Column(
        "sample_id",
        sa.Integer,
        sa.ForeignKey("ndrpdr_samples.id", ondelete="CASCADE"),
        primary_key=True,
    )


metrics = sa.Table(
    "ndrpdr_metrics",
    metadata,
    _sample_key(),
    sa.Column("metric", sa.String(100), primary_key=True),
    #: The metric's place in the record's order (reading keeps it).
    sa.Column("position", sa.Integer, nullable=False),
    sa.Column("value_pps", sa.Double, nullable=False),
    sa.Column("noise_pps", sa.Double, nullable=False),
)

records = sa.Table(
    "ndrpdr_records",
    metadata,
    _sample_key(),
    sa.Column("record", sa.Text, nullable=False),
)
