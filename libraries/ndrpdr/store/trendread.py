"""The trend report's input read from a results store: its samples and the searches' latency.

The samples come from ``Store.samples()``; latency is no metric of a
sample, so it is read from the stored NDRPDR records themselves (one
query per run), as ``ndrpdr.results.trendruns`` reads it from records on
disk.
"""

from __future__ import annotations

from ndrpdr.results.compare import TestKey, test_key
from ndrpdr.results.trendruns import RunSamples
from ndrpdr.results.trendseries import Latency, latency_of_record
from ndrpdr.store.store import Store


def read_store(store: Store, *, test: str | None = None) -> RunSamples:
    """Every sample in ``store`` (of ``test`` when given) and the latency of its searches."""
    samples = tuple(store.samples(test=test))
    latency: dict[tuple[str, TestKey], Latency] = {}
    for run in store.runs():
        for name, record in store.records(run.id, kind="ndrpdr").items():
            if test is not None and name != test:
                continue
            found = latency_of_record(record)
            if found is not None:
                latency[(run.id, test_key(name, record))] = found
    return RunSamples(samples, latency)
