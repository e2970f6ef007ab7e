"""``ndrpdr trend RUN...``: one offline HTML page with each test's results over time.

Each RUN is a results directory (one JSON record per test) or an output.xml
linking the records; one per run, the run id is the directory's name
unless the records name their run. The page (``ndrpdr.results.trendpage``)
has a chart per test with the change points marked and a table of the
regressions and progressions since the last good run. Exit 0; 1 when the page
cannot be written; 2 for a
path that is not a run's results or a --since that names no run.
"""

from __future__ import annotations

import argparse
import datetime
import sys
from pathlib import Path

from ndrpdr.results.runfiles import RunFilesError
from ndrpdr.results.trendpage import trend_html
from ndrpdr.results.trendruns import RunSamples, read_runs
from ndrpdr.results.trendseries import build_trend


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register the command."""
    parser = commands.add_parser(
        "trend", help="one offline HTML page: each test over time, change points, regressions"
    )
    parser.add_argument(
        "runs",
        nargs="+",
        type=Path,
        metavar="RUN",
        help="a run's results directory or output.xml (one per run, any order)",
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
    """The samples to plot: from the runs' records."""
    # STORE (issue 14 item 1), the one place to plug it in once ndrpdr.store is merged: give
    # add_parser a `--store URL` option (RUN then nargs="*", RUN or --store required) and
    # here add `open_store(args.store).samples()` to the samples read from the RUN paths.
    return read_runs(args.runs)


def run(args: argparse.Namespace) -> int:
    """0 when the page is written; 2 for a path that is no run or an unknown --since."""
    try:
        found = _samples(args)
        trend = build_trend(found.samples, latency=found.latency, since=args.since)
    except (RunFilesError, ValueError) as exc:
        print(f"ndrpdr trend: {exc}", file=sys.stderr)
        return 2
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
