"""Entry point of ``ndrpdr`` / ``python -m ndrpdr``.

Known failures (a bad topology, a DUT that does not start, a TG error)
print one message and exit 1; bad usage exits 2; Ctrl-C or SIGTERM tears
the testbed down and exits 130. The commands that build a testbed
(``BUILDS_TESTBED``) first remove what dead runs left, as root, and say
what on stderr (``ndrpdr: removed leftovers of dead runs:``, one
``  - <what>`` line each).
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
from collections.abc import Sequence
from types import FrameType

from ndrpdr.cli import (
    cleanup_cmd,
    compare_cmd,
    drivers_cmd,
    search_cmd,
    summary_cmd,
    trial_cmd,
    validate_cmd,
)
from ndrpdr.errors import NdrPdrError
from ndrpdr.localbed.beforerun import remove_leftovers_before_run

#: Commands that build a testbed: they remove dead runs' leftovers before anything else.
BUILDS_TESTBED = frozenset({"search", "trial"})


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every command."""
    parser = argparse.ArgumentParser(
        prog="ndrpdr", description="NDR/PDR throughput search on sim, local and lab testbeds"
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug details")
    commands = parser.add_subparsers(dest="command", required=True)
    validate_cmd.add_parser(commands)
    trial_cmd.add_parser(commands)
    search_cmd.add_parser(commands)
    summary_cmd.add_parser(commands)
    drivers_cmd.add_parser(commands)
    cleanup_cmd.add_parser(commands)
    compare_cmd.add_parser(commands)
    return parser


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; return the exit status."""
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        if args.command in BUILDS_TESTBED:
            remove_leftovers_before_run(cleanup_cmd.notice)
        status: int = args.run(args)
        return status
    except NdrPdrError as exc:
        print(f"ndrpdr {args.command}: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"ndrpdr {args.command}: interrupted; the testbed was torn down", file=sys.stderr)
        return 130
    finally:
        signal.signal(signal.SIGTERM, previous)
