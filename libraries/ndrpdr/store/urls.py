"""Store URLs: which database, said safely (no password printed), and its engine.

A store is named by a SQLAlchemy URL: ``sqlite:///results/../ndrpdr-results.sqlite``
(a file, no server), ``postgresql+psycopg://user@host/db`` (the shared
store; ``postgresql://`` and ``postgres://`` mean psycopg 3 here too), or
any other URL SQLAlchemy has a dialect and driver for. A plain path
(no ``://``) is a SQLite file. Messages show a URL with its password
replaced by ``***``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import URL
from sqlalchemy.exc import ArgumentError, NoSuchModuleError

from ndrpdr.optionaldeps import missing_message, missing_module
from ndrpdr.store.errors import StoreError
from ndrpdr.store.location import sqlite_url

_USERINFO_PASSWORD = re.compile(r"(://[^:/?#@]*:)[^@/]*@")
_QUERY_PASSWORD = re.compile(r"(?i)([?&]password=)[^&]*")
_PSYCOPG = "postgresql+psycopg"


def redact(url: str | URL) -> str:
    """``url`` with its password (in the user part or the query) shown as ``***``."""
    text = url.render_as_string(hide_password=True) if isinstance(url, URL) else str(url)
    text = _USERINFO_PASSWORD.sub(r"\1***@", text)
    return _QUERY_PASSWORD.sub(r"\1***", text)


def parse_url(text: str) -> URL:
    """The SQLAlchemy URL ``text`` names (a plain path: a SQLite file); StoreError if none."""
    if "://" not in text:
        text = sqlite_url(text)
    try:
        url = sa.make_url(text)
    except (ArgumentError, ValueError):
        raise StoreError(
            f"store {redact(text)}: not a database URL (sqlite:///FILE, "
            "postgresql+psycopg://USER@HOST/DATABASE, or a file path)"
        ) from None
    if url.drivername in ("postgresql", "postgres"):
        url = url.set(drivername=_PSYCOPG)
    return url


def _check_sqlite_file(url: URL) -> None:
    database = url.database
    if not database or database == ":memory:" or database.startswith("file:"):
        return
    path = Path(database)
    if path.is_dir():
        raise StoreError(f"store {redact(url)}: {path} is a directory, not a SQLite file")
    if not path.parent.is_dir():
        raise StoreError(
            f"store {redact(url)}: the directory {path.parent} of the SQLite file does not exist"
        )


def _sqlite_settings(dbapi_connection: Any, _record: Any) -> None:
    """Foreign keys checked; WAL journal with NORMAL sync: a commit writes, the checkpoint syncs.

    A commit then costs no fsync (a year of nightly runs ingested run by run
    would otherwise wait on 365 of them); a crash may lose the last
    transactions, never the file, and the JSON records can be ingested again.
    """
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def make_engine(url: URL) -> sa.Engine:
    """The engine of the store at ``url`` (no connection yet); StoreError naming it."""
    if url.get_backend_name() == "sqlite":
        _check_sqlite_file(url)
    try:
        engine = sa.create_engine(url)
    except NoSuchModuleError:
        raise StoreError(
            f"store {redact(url)}: SQLAlchemy has no database kind {url.drivername!r} "
            "(use sqlite:///FILE or postgresql+psycopg://USER@HOST/DATABASE)"
        ) from None
    except ImportError as exc:
        missing = missing_module(exc) if isinstance(exc, ModuleNotFoundError) else None
        if missing is not None:  # psycopg: the store's optional part
            raise StoreError(missing_message(missing, f"store {redact(url)}")) from None
        raise StoreError(
            f"store {redact(url)}: the database driver is not installed ({exc.name or exc})"
        ) from None
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_settings)
    return engine


def database_message(exc: BaseException, url: URL) -> str:
    """What the database said about ``exc`` in one line, never showing ``url``'s password."""
    origin = getattr(exc, "orig", None) or exc
    text = " ".join(str(origin).split())
    if url.password:
        text = text.replace(str(url.password), "***")
    return text
