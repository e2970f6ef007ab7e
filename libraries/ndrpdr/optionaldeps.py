"""The optional parts of ndrpdr: which extra installs each, and the one-line error without it.

``pip install .`` installs what the simulator, the search, ``ndrpdr
validate`` and the keyword library on the simulator need. The rest comes
with an extra of ``pyproject.toml``, named for what it enables:

- ``local``: a real testbed's traffic (scapy builds the frames the TGs
  send, ``ndrpdr frames``) and the WireGuard families' keys (cryptography);
- ``lab``: what ``local`` brings and SSH access to a node (paramiko): a lab
  testbed, the lab in a box;
- ``store``: the results store (SQLAlchemy; psycopg for PostgreSQL):
  ``ndrpdr ingest``, ``ndrpdr trend --store``;
- ``all``: every one of them (what ``requirements.txt`` and
  ``bin/run-suites`` install).

Code that needs an optional part imports it where it is used, inside
``optional_part(...)``: a missing package then raises ``MissingPartError``,
one line naming what needs it and the install command, e.g. ``the results
store needs SQLAlchemy: pip install 'ndrpdr[store]'``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib.util
from collections.abc import Iterable, Iterator

from ndrpdr.errors import NdrPdrError


@dataclasses.dataclass(frozen=True)
class OptionalPart:
    """An optional package: its name on PyPI and the smallest extra that installs it."""

    package: str
    extra: str


#: Each optional package by the name it is imported as (its top-level module).
OPTIONAL_PARTS: dict[str, OptionalPart] = {
    "scapy": OptionalPart("scapy", "local"),
    "cryptography": OptionalPart("cryptography", "local"),
    "paramiko": OptionalPart("paramiko", "lab"),
    "sqlalchemy": OptionalPart("SQLAlchemy", "store"),
    "psycopg": OptionalPart("psycopg", "store"),
}


class MissingPartError(NdrPdrError):
    """An optional package is not installed (names what needs it and how to install it)."""


def missing_module(exc: ModuleNotFoundError) -> str | None:
    """The optional package (its top-level module) ``exc`` says is missing, else None."""
    top = (exc.name or "").partition(".")[0]
    return top if top in OPTIONAL_PARTS else None


def missing_message(module: str, needed_for: str, *, extra: str | None = None) -> str:
    """``<needed_for> needs <package>: pip install 'ndrpdr[<extra>]'``.

    ``extra`` replaces the package's own (smallest) extra where the user needs
    a bigger one (a lab in a box needs ``lab`` for its keys, not ``local``).
    """
    part = OPTIONAL_PARTS[module]
    return f"{needed_for} needs {part.package}: pip install 'ndrpdr[{extra or part.extra}]'"


@contextlib.contextmanager
def optional_part(needed_for: str, *, extra: str | None = None) -> Iterator[None]:
    """Imports inside the block may need an optional package; a missing one is a MissingPartError.

    ``needed_for`` says what needs it (``the results store``, ``node DUT1's
    SSH access``); a missing module that is no optional part is raised as is.
    """
    try:
        yield
    except ModuleNotFoundError as exc:
        module = missing_module(exc)
        if module is None:
            raise
        raise MissingPartError(missing_message(module, needed_for, extra=extra)) from None


def require(modules: Iterable[str], needed_for: str, *, extra: str | None = None) -> None:
    """MissingPartError for the first of ``modules`` (optional packages) not installed.

    Checks without importing: for a part needed later in a run, said before
    the run sets anything up.
    """
    for module in modules:
        if importlib.util.find_spec(module) is None:
            raise MissingPartError(missing_message(module, needed_for, extra=extra))
