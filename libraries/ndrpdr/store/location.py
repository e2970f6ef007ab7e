"""Where the results store is when none is named: ``$NDRPDR_STORE``, else a SQLite file.

Plain paths and environment only (no SQLAlchemy): ``ndrpdr ingest --help``
shows the default without the store's optional part installed.
"""

from __future__ import annotations

import os
from pathlib import Path

#: The environment variable naming the default store of ``ndrpdr ingest``.
STORE_ENV = "NDRPDR_STORE"
#: The default store's file name, beside the first results directory.
DEFAULT_FILE = "ndrpdr-results.sqlite"


def sqlite_url(path: str | os.PathLike[str]) -> str:
    """The URL of the SQLite file ``path`` (made absolute)."""
    return "sqlite:///" + Path(path).absolute().as_posix()


def default_store_url(first_input: Path, environ: dict[str, str] | None = None) -> str:
    """``$NDRPDR_STORE``, else ``ndrpdr-results.sqlite`` beside the first results directory.

    ``first_input`` is a results directory (the file goes in its parent) or
    an output.xml (the file goes in the parent of its directory): beside
    the results, not among them, so clearing a results directory keeps it.
    """
    env = os.environ if environ is None else environ
    if env.get(STORE_ENV):
        return env[STORE_ENV]
    directory = first_input if first_input.is_dir() else first_input.parent
    return sqlite_url(directory.absolute().parent / DEFAULT_FILE)
