"""What every entry point does before it creates anything: remove what dead runs left, say so.

The CLI commands that build a testbed, ``ndrpdr cleanup`` (which
``bin/run-suites`` calls before Robot), and the Robot library's testbed
set-up all call ``remove_leftovers_before_run`` with their own way of
telling the user (``notice``): stderr for the CLI, a Robot warning in the
library. The text is the same everywhere::

    removed leftovers of dead runs:
      - namespace ndrpdr-4242-ab12-tg (run 4242-ab12, owner pid 4242 gone)
      - ...

Only root can create or remove a local testbed's namespaces, so for
anyone else this does nothing (a simulator run by a user never fails or
waits for it). A live run is never touched (see ``leftovers``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

from ndrpdr.localbed.leftovers import cleanup_leftovers

#: First line of the notice when something was removed.
HEADER = "removed leftovers of dead runs:"

#: First line of a notice about what could not be removed.
PROBLEM_HEADER = "could not remove all leftovers of dead runs:"

#: Told a (multi-line) text for the user.
Notice = Callable[[str], None]


def can_remove_leftovers() -> bool:
    """True when this process may remove a local testbed's leftovers (it runs as root)."""
    return os.geteuid() == 0


def leftovers_text(removed: Sequence[str], header: str = HEADER) -> str:
    """``header`` then one ``  - <what>`` line per item."""
    return "\n".join([header, *(f"  - {item}" for item in removed)])


def remove_leftovers_before_run(notice: Notice) -> list[str]:
    """Remove what dead runs left (as root only) and tell ``notice`` what went; return that.

    Nothing is told when nothing was removed. What could not be removed is
    told too, as a second notice; it never raises for a leftover.
    """
    if not can_remove_leftovers():
        return []
    problems: list[str] = []
    removed = cleanup_leftovers(problem=problems.append)
    if removed:
        notice(leftovers_text(removed))
    if problems:
        notice(leftovers_text(problems, PROBLEM_HEADER))
    return removed
