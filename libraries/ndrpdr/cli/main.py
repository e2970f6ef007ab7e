"""Entry point of ``ndrpdr`` / ``python -m ndrpdr``.

Known failures (a bad topology, a DUT that does not start, a TG error, an
optional part not installed: ``ndrpdr.optionaldeps``) print one message and
exit 1; bad usage exits 2; Ctrl-C or SIGTERM tears
the testbed down and exits 130. A reader that stops early
(``ndrpdr summary output.xml | head``) ends the command quietly with 141
(128 + SIGPIPE, as a shell reports a command a closed pipe stopped), no
traceback. The commands that build a testbed
(``BUILDS_TESTBED``) first remove what dead runs left, as root, and say
what on stderr (``ndrpdr: removed leftovers of dead runs:``, one
``  - <what>`` line each).
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence

from ndrpdr.cli.commands import add_commands
from ndrpdr.errors import NdrPdrError
from ndrpdr.interrupts import acknowledge, handle_interrupts

#: Commands that build a testbed: they remove dead runs' leftovers before anything else.
BUILDS_TESTBED = frozenset({"check", "search", "soak", "trial"})


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every command (a command's module is imported when chosen)."""
    parser = argparse.ArgumentParser(
        prog="ndrpdr", description="NDR/PDR throughput search on sim, local and lab testbeds"
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug details")
    add_commands(parser)
    return parser


#: Exit status when the reader of stdout went away (128 + SIGPIPE, as shells report it).
EXIT_BROKEN_PIPE = 141


def _stdout_to_devnull() -> None:
    """Point stdout at /dev/null, so Python's flush at exit finds no closed pipe to complain about.

    What Python's documentation of SIGPIPE recommends for a reader that
    stops early (``| head``).
    """
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; return the exit status."""
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    with handle_interrupts():
        return _run(args)


def _remove_leftovers() -> None:
    """Remove dead runs' leftovers (imported here: only the commands that build a testbed pay)."""
    from ndrpdr.cli.cleanup_cmd import notice  # noqa: PLC0415 - only search and trial need it
    from ndrpdr.localbed.beforerun import remove_leftovers_before_run  # noqa: PLC0415

    remove_leftovers_before_run(notice)


def _run(args: argparse.Namespace) -> int:
    try:
        if args.command in BUILDS_TESTBED:
            _remove_leftovers()
        status: int = args.run(args)
        sys.stdout.flush()  # a closed pipe shows here, not at exit
        return status
    except BrokenPipeError:
        _stdout_to_devnull()
        return EXIT_BROKEN_PIPE
    except NdrPdrError as exc:
        print(f"ndrpdr {args.command}: {exc}", file=sys.stderr)
        return 1
    except ModuleNotFoundError as exc:
        # An optional part imported where no optional_part(...) says what needs it.
        from ndrpdr.optionaldeps import missing_message, missing_module  # noqa: PLC0415

        module = missing_module(exc)
        if module is None:
            raise
        print(missing_message(module, f"ndrpdr {args.command}"), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        acknowledge()
        print(f"ndrpdr {args.command}: interrupted; the testbed was torn down", file=sys.stderr)
        return 130
