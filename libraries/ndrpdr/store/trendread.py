"""The trend report's input read from a results store: its samples and the searches' latency.

The samples come from ``Store.samples()``, the latency at each search's
highest load point from ``Store.latency()`` (kept with the sample at
ingest, so no record is loaded), as ``ndrpdr.trend.trendruns`` reads
both from records on disk.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ndrpdr.trend.trendruns import RunSamples

if TYPE_CHECKING:
    from ndrpdr.store.store import Store


def read_store(store: Store, *, test: str | None = None) -> RunSamples:
    """Every sample in ``store`` (of ``test`` when given) and the latency of its searches."""
    return RunSamples(tuple(store.samples(test=test)), store.latency(test=test))
