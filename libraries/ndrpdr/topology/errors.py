"""Errors about a user's file, located by file, line and field path.

The message reads ``<path>:<line>: <field.path>: <what is wrong>``, the
form compilers and editors understand, so ``str(error)`` is what a user
sees; no traceback is needed for a mistake in a file.
"""

from __future__ import annotations

from ndrpdr.errors import NdrPdrError


class FileFormatError(NdrPdrError):
    """A data file (YAML) cannot be read or does not follow its format.

    ``path`` is the file name as the caller gave it, ``line`` the 1-based
    line at fault (None when the whole file is at fault, e.g. missing),
    ``field`` the dotted field path (``nodes.DUT1.interfaces.port1``; None
    or "" when no field applies) and ``problem`` what is wrong.
    """

    def __init__(
        self,
        problem: str,
        *,
        path: str,
        line: int | None = None,
        field: str | None = None,
    ) -> None:
        """Build the message ``<path>:<line>: <field>: <problem>`` from the parts given."""
        self.problem = problem
        self.path = path
        self.line = line
        self.field = field or None
        super().__init__(format_location(path, line, self.field) + problem)


class TopologyError(FileFormatError):
    """A topology file cannot be loaded: unreadable, not YAML, or not a valid topology."""


def format_location(path: str, line: int | None, field: str | None) -> str:
    """The ``<path>:<line>: <field>: `` prefix of a message (parts that are None left out)."""
    where = path if line is None else f"{path}:{line}"
    return f"{where}: {field}: " if field else f"{where}: "
