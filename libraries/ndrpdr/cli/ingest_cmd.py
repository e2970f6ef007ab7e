"""``ndrpdr ingest DIR_OR_OUTPUT_XML...``: (re)build the results store from the JSON records.

Each path is one run's results: a results directory or an output.xml
linking its records. The store (``--store URL``, else ``$NDRPDR_STORE``,
else ``ndrpdr-results.sqlite`` beside the first results directory) gets
each record once: ingesting a run again adds nothing. One line per path
says how many records it held and how many samples were new. Exit 0, 1
when the store cannot be opened or written, 2 for a path that holds no
records (the message names it; the other paths are still ingested).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ndrpdr.console.lines import print_to
from ndrpdr.outdir.runfiles import RunFilesError
from ndrpdr.store import open_store
from ndrpdr.store.ingest import ingest_path
from ndrpdr.store.location import STORE_ENV, default_store_url


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the arguments and ``run`` (the help line is in ``commands.COMMANDS``)."""
    parser.add_argument(
        "paths",
        type=Path,
        nargs="+",
        metavar="DIR_OR_OUTPUT_XML",
        help="a run's results directory, or its output.xml",
    )
    parser.add_argument(
        "--store",
        metavar="URL",
        help=f"the store: sqlite:///FILE, postgresql+psycopg://USER@HOST/DB, or a file path "
        f"(default: ${STORE_ENV}, else ndrpdr-results.sqlite beside the first results directory)",
    )
    parser.add_argument(
        "--run-id",
        metavar="ID",
        help="the run id of records that do not name their run (records before format 1.5.0); "
        "default: one made from their names and start times",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """0; 2 when a path holds no records; StoreError (exit 1) when the store fails."""
    paths: list[Path] = args.paths
    url: str = args.store or default_store_url(paths[0])
    status = 0
    for path in paths:
        if not path.exists():
            print(f"ndrpdr ingest: {path}: no such file or directory", file=sys.stderr)
            status = 2
    paths = [path for path in paths if path.exists()]
    if not paths:
        return status
    with open_store(url) as store:
        for path in paths:
            try:
                done = ingest_path(store, path, run_id=args.run_id)
            except RunFilesError as exc:
                print(f"ndrpdr ingest: {exc}", file=sys.stderr)
                status = 2
                continue
            print_to(
                sys.stdout,
                f"{path}: {done.records} records of run {', '.join(done.run_ids)}, "
                f"{done.new} new in the store",
            )
        print_to(sys.stdout, f"store: {store.url}")
    return status
