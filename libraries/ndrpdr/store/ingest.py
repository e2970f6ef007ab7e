"""Fill a store from results on disk: results directories and output.xml files.

Each path is one run's results (``ndrpdr.outdir.runfiles.read_run``).
Records that name their run (the ``run`` section, records since 1.5.0)
go to that run. Older records get a run id made from their content
(``legacy-<earliest start>-<hash of their names and start times>``), the
same each time, so ingesting them again adds nothing; and the earliest
start among them as their run's start, so one directory is one point in
time. ``run_id`` replaces that made-up id.
"""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ndrpdr.outdir.runfiles import read_run
from ndrpdr.trend.history import parse_time

if TYPE_CHECKING:
    from ndrpdr.store.store import Store


@dataclasses.dataclass(frozen=True)
class Ingested:
    """What one path gave the store."""

    path: Path
    #: How many records the path holds.
    records: int
    #: How many samples were new in the store.
    new: int
    #: The run ids its records went to, sorted.
    run_ids: tuple[str, ...]


def _started(record: Mapping[str, Any]) -> datetime.datetime | None:
    return parse_time(record.get("started"))


def earliest_start(records: Mapping[str, Mapping[str, Any]]) -> datetime.datetime | None:
    """The earliest ``started`` of ``records`` (UTC), None when none has one."""
    starts = [moment for record in records.values() if (moment := _started(record)) is not None]
    return min(starts) if starts else None


def fallback_run_id(records: Mapping[str, Mapping[str, Any]]) -> str:
    """A run id for records without a ``run`` section, the same for the same records."""
    digest = hashlib.sha256()
    for name in sorted(records):
        digest.update(f"{name}\0{records[name].get('started')}\n".encode())
    first = earliest_start(records)
    when = first.strftime("%Y%m%dT%H%M%SZ") if first is not None else "unknown"
    return f"legacy-{when}-{digest.hexdigest()[:8]}"


def run_of(record: Mapping[str, Any]) -> str | None:
    """The run id a record names, None for a record without a ``run`` section."""
    run = record.get("run")
    if isinstance(run, Mapping) and run.get("id"):
        return str(run["id"])
    return None


def ingest_path(store: Store, path: Path, *, run_id: str | None = None) -> Ingested:
    """Ingest the run at ``path``; RunFilesError (naming it) when it holds no records."""
    records = read_run(path)
    unnamed = {name: record for name, record in records.items() if run_of(record) is None}
    fallback = run_id or fallback_run_id(unnamed)
    new = store.ingest_run(records, run_id=fallback, run_started=earliest_start(unnamed))
    run_ids = sorted({run_of(record) or fallback for record in records.values()})
    return Ingested(path=path, records=len(records), new=new, run_ids=tuple(run_ids))
