"""What a record of each kind shows in a Robot run: message, metadata, plots, trial table.

One table for the three kinds (``ndrpdr`` searches, ``mrr``, ``soak``), so
that publishing a record (``NdrPdrLibrary.publish``) and logging one read
back (`Log Result Record`) are one path whatever the kind. Every entry
reads the record only.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from ndrpdr.report.latencyplot import latency_svg
from ndrpdr.report.soaksummary import soak_message, soak_metadata
from ndrpdr.report.summary import bounds_line, plain_number, search_message, search_metadata
from ndrpdr.report.traceplot import trace_svg
from ndrpdr.results.caveats import caveat_tags
from ndrpdr.results.mrrrecord import mrr_message
from ndrpdr.results.soakbursts import bursts_text

Record = Mapping[str, Any]


def mrr_metadata(record: Record) -> dict[str, str]:
    """``MRR_AVG``, ``MRR_STDEV``, ``MRR_MIN``, ``MRR_MAX`` [frames/s] and ``MRR_RATES`` (every
    trial's receive rate, comma separated); none without a trial."""
    stats = record["mrr"]["receive_rate_pps"]
    if stats is None:
        return {}
    return {
        "MRR_AVG": plain_number(stats["mean"]),
        "MRR_STDEV": plain_number(stats["stdev"]),
        "MRR_MIN": plain_number(stats["min"]),
        "MRR_MAX": plain_number(stats["max"]),
        "MRR_RATES": ",".join(plain_number(rate) for rate in stats["values"]),
    }


def _search_plots(record: Record) -> list[str]:
    latency = latency_svg(record)
    return [trace_svg(record), latency] if latency else [trace_svg(record)]


def _soak_warnings(record: Record) -> list[str]:
    bursts = record["soak"]["bursts"]
    return [] if bursts is None else [bursts_text(bursts)]


def _all_metadata(metadata: Mapping[str, str]) -> str:
    return " ".join(f"{key}={value}" for key, value in metadata.items())


@dataclasses.dataclass(frozen=True)
class RecordView:
    """How a record of one kind is shown."""

    message: Callable[[Record], str]
    """The test message (and the log's first line)."""
    metadata: Callable[[Record], dict[str, str]]
    """The test metadata [frames/s as plain numbers]."""
    suite_line: Callable[[Mapping[str, str]], str]
    """The suite metadata named for the test, from the test's metadata (what ``robot
    --xunit`` files carry)."""
    trial_rows: Callable[[Record], Record]
    """What the trial table reads (a mapping with ``trials``)."""
    plots: Callable[[Record], list[str]] = lambda record: []
    """SVG plots for the log."""
    tags: Callable[[Record], list[str]] = lambda record: []
    """The test's caveat tags."""
    warnings: Callable[[Record], list[str]] = lambda record: []
    """What the log warns of."""
    failed_result: bool = False
    """A failed record still sets the test's message and metadata: a search's say what its
    trials support, with ``STATUS``; an MRR's or a soak's leave the failure's message alone."""


VIEWS: dict[str, RecordView] = {
    "ndrpdr": RecordView(
        message=search_message,
        metadata=search_metadata,
        suite_line=bounds_line,
        trial_rows=lambda record: record,
        plots=_search_plots,
        tags=caveat_tags,
        failed_result=True,
    ),
    "mrr": RecordView(
        message=mrr_message,
        metadata=mrr_metadata,
        suite_line=bounds_line,
        trial_rows=lambda record: {"trials": record["mrr"]["trials"]},
    ),
    "soak": RecordView(
        message=soak_message,
        metadata=soak_metadata,
        suite_line=_all_metadata,
        trial_rows=lambda record: {"trials": record["soak"]["trials"]},
        warnings=_soak_warnings,
    ),
}


def view_of(record: Record) -> RecordView:
    """The view of the record's ``kind``."""
    return VIEWS[str(record["kind"])]
