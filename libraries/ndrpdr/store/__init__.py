"""The results store: every run's samples and records in SQLite or a shared database.

``open_store(url)`` gives a ``Store`` (a context manager): ``ingest_run``
adds a run's records, ``samples`` / ``runs`` / ``records`` read them
back. ``ndrpdr ingest`` fills it from results directories and output.xml
files. See ``ndrpdr.store.store`` and ``ndrpdr.store.tables``.
"""

from ndrpdr.store.errors import StoreError
from ndrpdr.store.store import RunSummary, Store, open_store

__all__ = ["RunSummary", "Store", "StoreError", "open_store"]
