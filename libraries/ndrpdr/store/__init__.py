"""The results store: every run's samples and records in SQLite or a shared database.

``open_store(url)`` gives a ``Store`` (a context manager, in
``ndrpdr.store.store``): ``ingest_run`` adds a run's records, ``samples`` /
``runs`` / ``records`` read them back. ``ndrpdr ingest`` fills it from
results directories and output.xml files. See ``ndrpdr.store.store`` and
``ndrpdr.store.tables``.

The store needs SQLAlchemy, an optional part (the ``store`` extra):
importing this package does not import it, ``open_store`` does, and
without it raises MissingPartError saying how to install it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ndrpdr.optionaldeps import optional_part
from ndrpdr.store.errors import StoreError

if TYPE_CHECKING:
    from ndrpdr.store.store import Store

__all__ = ["StoreError", "open_store"]


def open_store(url: str) -> Store:
    """Open the store at ``url`` (``ndrpdr.store.store.open_store``), importing SQLAlchemy."""
    with optional_part("the results store"):
        from ndrpdr.store.store import open_store as open_it  # noqa: PLC0415 - optional part

    return open_it(url)
