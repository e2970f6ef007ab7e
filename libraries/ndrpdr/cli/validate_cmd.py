"""``ndrpdr validate FILE...``: check topology files."""

from __future__ import annotations

import argparse
import sys

from ndrpdr.testbed.errors import TopologyError
from ndrpdr.testbed.loader import load_topology


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register the command."""
    parser = commands.add_parser("validate", help="check topology files")
    parser.add_argument("files", nargs="+", metavar="FILE")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """0 when every file is valid; 1 (and one message per bad file on stderr) otherwise."""
    status = 0
    for name in args.files:
        try:
            topology = load_topology(name)
        except TopologyError as exc:
            print(exc, file=sys.stderr)
            status = 1
            continue
        nodes = ", ".join(f"{n.key} ({n.driver})" for n in topology.nodes.values())
        print(f"{name}: valid: {nodes}; {len(topology.links)} links")
    return status
