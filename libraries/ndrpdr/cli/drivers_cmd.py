"""``ndrpdr drivers [NAME...]``: the TG and DUT drivers, where they run, and their options."""

from __future__ import annotations

import argparse
import sys

from ndrpdr.drivers import descriptions
from ndrpdr.drivers.docs import drivers_text


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the arguments and ``run`` (the help line is in ``commands.COMMANDS``)."""
    parser.add_argument("names", nargs="*", metavar="NAME", help="only these drivers")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """0; 1 when a name is no driver's."""
    known = {d.name for d in descriptions()}
    unknown = [name for name in args.names if name not in known]
    if unknown:
        print(
            f"ndrpdr drivers: no driver {', '.join(map(repr, unknown))}; drivers: "
            f"{', '.join(sorted(known))}",
            file=sys.stderr,
        )
        return 1
    print(drivers_text(tuple(args.names)), end="")
    return 0
