"""Samples (and latency) for the trend report from runs' records on disk.

Each path is one run: a results directory (one JSON record per test) or
the output.xml linking the records (``ndrpdr.outdir.runfiles``). The
run's id is the record's own ``run.id`` when it has one, else the name of
the directory (for an output.xml: of the directory holding it; its path
from the paths' common parent when names repeat, see ``run_ids``); the run's
start is the record's (``ndrpdr.trend.history.sample_from_record``).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from ndrpdr.outdir.runfiles import read_run
from ndrpdr.trend.compare import TestKey
from ndrpdr.trend.history import Sample, sample_from_record
from ndrpdr.trend.trendseries import Latency, latency_of_record


@dataclasses.dataclass(frozen=True)
class RunSamples:
    """What the trend report reads: the samples, and latency by (run id, test key)."""

    samples: tuple[Sample, ...]
    latency: dict[tuple[str, TestKey], Latency]


def run_ids(paths: Sequence[Path]) -> list[str]:
    """The run id each path gives its records: its directory's name (an output.xml's directory).

    When two paths would give the same name (``412/results``, ``413/results``),
    each gets its directory's path from the paths' common parent instead.
    """
    directories = [(path if path.is_dir() else path.parent).resolve() for path in paths]
    names = [directory.name or os.fspath(directory) for directory in directories]
    if len(set(names)) == len(names):
        return names
    common = Path(os.path.commonpath(directories)) if directories else Path()
    return [
        directory.relative_to(common).as_posix() if directory != common else directory.name
        for directory in directories
    ]


def read_runs(paths: Iterable[Path]) -> RunSamples:
    """Every test of every run at ``paths``; RunFilesError names a path that is no run."""
    paths = list(paths)
    samples: list[Sample] = []
    latency: dict[tuple[str, TestKey], Latency] = {}
    for path, run_id in zip(paths, run_ids(paths), strict=True):
        for name, record in read_run(path).items():
            sample = sample_from_record(name, record, run_id=run_id)
            samples.append(sample)
            found = latency_of_record(record)
            if found is not None:
                latency[(sample.run_id, sample.key)] = found
    return RunSamples(tuple(samples), latency)
