"""``ndrpdr cleanup``: remove what dead local runs left (namespaces, processes, state files)."""

from __future__ import annotations

import argparse
import sys

from ndrpdr.console.lines import print_to
from ndrpdr.localbed.beforerun import can_remove_leftovers, remove_leftovers_before_run


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the arguments and ``run`` (the help line is in ``commands.COMMANDS``)."""
    parser.set_defaults(run=run)


def notice(text: str) -> None:
    """Tell the user about leftovers: each line of ``text`` on stderr after ``ndrpdr: ``."""
    lines = text.splitlines()
    print_to(sys.stderr, "\n".join([f"ndrpdr: {lines[0]}", *lines[1:]]))


def run(args: argparse.Namespace) -> int:
    """0 always: what was removed on stderr (``notice``), else ``nothing to remove``."""
    if not can_remove_leftovers():
        print_to(
            sys.stdout, "not root: nothing removed (only root makes and removes local testbeds)"
        )
        return 0
    if not remove_leftovers_before_run(notice):
        print_to(sys.stdout, "nothing to remove")
    return 0
