"""One test's result in one run, as the results store keeps it and the trend report reads it.

A ``Sample`` is what a record says about its test, reduced to what
results over time need: which test (``compare.TestKey``), which run (id,
start time, testbed), the status, and the metrics ``compare`` knows (NDR /
PDR lower bounds and conditional throughputs, MRR mean, soak critical load, each with its
noise [pps], aggregate over directions). The JSON records stay the source
of truth: a sample is always made from a record by ``sample_from_record``.

Where a record names its run (the ``run`` section: id, test, suite, tags,
revision of the suites, versions of the nodes; records since 1.5.0), that
is used; an older record gets its run id from the caller (the ingest of a
results directory gives one per directory) and its start time from the
record's own ``started``.
"""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Mapping
from typing import Any

from ndrpdr.trend.compare import TestKey, Value, record_values, test_key


@dataclasses.dataclass(frozen=True)
class Sample:
    """One test of one run: its key, its run and its metrics [pps]."""

    key: TestKey
    #: The run's id: the ``run.id`` of the record, else what the caller gave.
    run_id: str
    #: When the run (else the test) started, UTC.
    started: datetime.datetime
    #: The testbed: the topology file's name without directory and suffix (``sim``).
    testbed: str
    #: The record's kind: "ndrpdr", "mrr" or "soak".
    kind: str
    #: The record's status: "passed", "failed", ...
    status: str
    #: Whether the record is incomplete or irregular (plots mark such points).
    caveat: bool
    #: Metric label (``compare``'s: "NDR lower", "MRR mean", "Soak critical", ...) -> value.
    metrics: Mapping[str, Value]
    #: The test's Robot tags, when the record names them.
    tags: tuple[str, ...] = ()
    #: The git revision of the suites, when known.
    revision: str | None = None
    #: Node name -> version of what ran there (DUT and TG software), when known.
    versions: Mapping[str, str] = dataclasses.field(default_factory=dict)


def parse_time(text: Any) -> datetime.datetime | None:
    """An ISO 8601 time as an aware UTC datetime (no zone: UTC), or None when it is none."""
    if not isinstance(text, str):
        return None
    try:
        moment = datetime.datetime.fromisoformat(text)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.timezone.utc)
    return moment.astimezone(datetime.timezone.utc)


def testbed_name(record: Mapping[str, Any]) -> str:
    """The record's topology file name without directory and suffix, or "" when unknown."""
    testbed = record.get("testbed") or {}
    topology = str(testbed.get("topology") or "")
    name = topology.replace("\\", "/").rsplit("/", 1)[-1]
    for suffix in (".yaml", ".yml"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def sample_from_record(
    name: str,
    record: Mapping[str, Any],
    *,
    run_id: str,
    run_started: datetime.datetime | None = None,
) -> Sample:
    """The sample of test ``name`` whose record is ``record``.

    ``run_id`` and ``run_started`` are used when the record has no ``run``
    section (``run_started`` defaults to the record's ``started``).
    """
    run = record.get("run") or {}
    started = (
        parse_time(run.get("started"))
        or run_started
        or parse_time(record.get("started"))
        or datetime.datetime.fromtimestamp(0, tz=datetime.timezone.utc)
    )
    versions = run.get("versions") or {}
    return Sample(
        key=test_key(str(run.get("test") or name), record),
        run_id=str(run.get("id") or run_id),
        started=started,
        testbed=testbed_name(record),
        kind=str(record.get("kind", "ndrpdr")),
        status=str(record.get("status", "")),
        caveat=bool(record.get("incomplete") or record.get("irregular")),
        metrics=record_values(record),
        tags=tuple(str(tag) for tag in run.get("tags") or ()),
        revision=str(run["revision"]) if run.get("revision") else None,
        versions={str(node): str(text) for node, text in versions.items()},
    )
