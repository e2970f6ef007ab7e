"""``ndrpdr suites [--write | --check]``: the Robot suites of the family table (``suitegen``)."""

from __future__ import annotations

import argparse

from ndrpdr.families import suitegen


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register the command."""
    parser = commands.add_parser(
        "suites",
        help="list the suites the family table makes; --write writes them into suites/, "
        "--check names the files that are stale",
    )
    suitegen.add_arguments(parser)
    parser.set_defaults(run=suitegen.run)
