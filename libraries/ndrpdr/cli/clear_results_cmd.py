"""``ndrpdr clear-results DIR``: remove what an earlier run wrote in an output directory."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ndrpdr.console.lines import print_to
from ndrpdr.outdir.outdirlock import holder
from ndrpdr.outdir.ownoutputs import clear_earlier_outputs
from ndrpdr.outdir.pabotresults import PABOT_RESULTS, clear_pabot_results


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the arguments and ``run`` (the help line is in ``commands.COMMANDS``)."""
    parser.add_argument("directory", type=Path, help="the output directory (e.g. results)")
    parser.add_argument(
        "--ours",
        action="store_true",
        help="the caller holds DIR's run lock (bin/run-suites, clearing for its own run); "
        "otherwise a DIR a live run holds is left alone",
    )
    parser.set_defaults(run=run)


def removed_line(directory: Path, removed: list[Path]) -> str:
    """One line: how many files were removed from ``directory``, and which kinds."""
    if not removed:
        return f"{directory}: no earlier results to remove"
    records = sum(p.suffix == ".json" for p in removed)
    others = sorted(
        p.name + ("/" if p.name == PABOT_RESULTS else "") for p in removed if p.suffix != ".json"
    )
    parts = [f"{records} result record(s)"] if records else []
    parts += others
    return f"{directory}: removed the earlier run's {', '.join(parts)}"


def run(args: argparse.Namespace) -> int:
    """0, one line on stdout saying what was removed; 1 when a live run holds the directory."""
    owner = None if args.ours else holder(args.directory)
    if owner is not None:
        print_to(
            sys.stderr,
            f"ndrpdr clear-results: {args.directory} is in use by a live run ({owner}); "
            "nothing removed",
        )
        return 1
    removed = clear_earlier_outputs(args.directory)
    pabots = clear_pabot_results(args.directory)
    if pabots is not None:
        removed.append(pabots)
    print_to(sys.stdout, removed_line(args.directory, removed))
    return 0
