"""``ndrpdr trend RUN...``: one offline HTML page with each test's results over time.

Each RUN is a results directory (one JSON record per test) or an output.xml
linking the records; one per run, the run id is the directory's name
unless the records name their run. ``--store URL`` adds every run of a
results store (``ndrpdr ingest``); RUN paths are then optional. The page
(``ndrpdr.trend.trendpage``) has a chart per test with the change
points marked and a table of the regressions and progressions since the
last good run. Exit 0; 1 when the page cannot be written or the store
cannot be read; 2 for a path that is not a run's results or a --since that
names no run.
"""

from __future__ import annotations

import argparse
import datetime
import sys
from pathlib import Path

from ndrpdr.outdir.runfiles import RunFilesError
from ndrpdr.store import open_store
from ndrpdr.store.errors import StoreError
from ndrpdr.store.trendread import read_store
from ndrpdr.trend.trendpage import trend_html
from ndrpdr.trend.trendruns import RunSamples, read_runs
from ndrpdr.trend.trendseries import build_trend


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the arguments and ``run`` (the help line is in ``commands.COMMANDS``)."""
    parser.add_argument(
        "runs",
        nargs="*",
        type=Path,
        metavar="RUN",
        help="a run's results directory or output.xml (one per run, any order)",
    )
    parser.add_argument(
        "--store",
        metavar="URL",
        help="also every run in this results store (a SQLite file or an SQLAlchemy URL)",
    )
    parser.add_argument(
        "-o", "--output", type=Path, default=Path("trend.html"), help="the HTML file to write"
    )
    parser.add_argument(
        "--since",
        metavar="RUN_ID",
        help="the last good run (default: the run before the oldest regression still in effect)",
    )
    parser.add_argument("--title", default="ndrpdr trend", help="the page's title")
    parser.set_defaults(run=run)


def _samples(args: argparse.Namespace) -> RunSamples:
    """The samples to plot: the store's (``--store``), then the RUN paths' records."""
    found = read_runs(args.runs)
    if args.store is None:
        return found
    with open_store(args.store) as store:
        stored = read_store(store)
    # A run both in the store and given as a path is taken once (the path's records win).
    given = {(s.run_id, s.key, s.kind, s.testbed) for s in found.samples}
    kept = tuple(s for s in stored.samples if (s.run_id, s.key, s.kind, s.testbed) not in given)
    return RunSamples(kept + found.samples, {**stored.latency, **found.latency})


def run(args: argparse.Namespace) -> int:
    """0 when the page is written; 2 for a path that is no run or an unknown --since."""
    if not args.runs and args.store is None:
        print("ndrpdr trend: give RUN paths, --store URL, or both", file=sys.stderr)
        return 2
    try:
        found = _samples(args)
        trend = build_trend(found.samples, latency=found.latency, since=args.since)
    except (RunFilesError, ValueError) as exc:
        print(f"ndrpdr trend: {exc}", file=sys.stderr)
        return 2
    except StoreError as exc:
        print(f"ndrpdr trend: {exc}", file=sys.stderr)
        return 1
    page = trend_html(
        trend, title=args.title, generated=datetime.datetime.now(datetime.timezone.utc)
    )
    try:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(page, encoding="utf-8")
    except OSError as exc:
        print(f"ndrpdr trend: cannot write {args.output}: {exc}", file=sys.stderr)
        return 1
    changes = len(trend.changes_since_last_good())
    print(
        f"ndrpdr trend: {args.output}: {len(trend.tests)} tests, {len(trend.runs)} runs, "
        f"{changes} changes since the last good run {trend.last_good}",
    )
    return 0
