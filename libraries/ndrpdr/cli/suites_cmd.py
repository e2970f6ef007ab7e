"""``ndrpdr suites [--write | --check]``: the Robot suites of the family table (``suitegen``)."""

from __future__ import annotations

import argparse

from ndrpdr.families import suitegen


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the arguments and ``run`` (the help line is in ``commands.COMMANDS``)."""
    suitegen.add_arguments(parser)
    parser.set_defaults(run=suitegen.run)
