"""Samples (and latency) for the trend report from runs' records on disk.

Each path is one run: a results directory (one JSON record per test) or
the output.xml linking the records (``ndrpdr.results.runfiles``). The
run's id is the record's own ``run.id`` when it has one, else the name of
the directory (for an output.xml: of the directory holding it); the run's
start is the record's (``ndrpdr.results.history.sample_from_record``).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable
from pathlib import Path

from ndrpdr.results.compare import TestKey
from ndrpdr.results.history import Sample, sample_from_record
from ndrpdr.results.runfiles import read_run
from ndrpdr.results.trendseries import Latency, latency_of_record


@dataclasses.dataclass(frozen=True)
class RunSamples:
    """What the trend report reads: the samples, and latency by (run id, test key)."""

    samples: tuple[Sample, ...]
    latency: dict[tuple[str, TestKey], Latency]


def run_id_of(path: Path) -> str:
    """The run id a path gives its records: the directory's name (an output.xml's directory)."""
    directory = path if path.is_dir() else path.parent
    return directory.resolve().name or os.fspath(directory)


def read_runs(paths: Iterable[Path]) -> RunSamples:
    """Every test of every run at ``paths``; RunFilesError names a path that is no run."""
    samples: list[Sample] = []
    latency: dict[tuple[str, TestKey], Latency] = {}
    for path in paths:
        run_id = run_id_of(path)
        for name, record in read_run(path).items():
            sample = sample_from_record(name, record, run_id=run_id)
            samples.append(sample)
            found = latency_of_record(record)
            if found is not None:
                latency[(sample.run_id, sample.key)] = found
    return RunSamples(tuple(samples), latency)
