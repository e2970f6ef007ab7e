"""Fixtures of the store tests: a store URL per backend (SQLite file, a real private PostgreSQL).

The PostgreSQL cluster is started once per session (``pgcluster``). It is
skipped only when PostgreSQL is not installed and ``NDRPDR_REQUIRE_POSTGRES``
is unset; CI sets it, so a missing install fails there.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from pgcluster import PgCluster, binaries_present, pg_bin


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[PgCluster]:
    """A running private PostgreSQL cluster (stopped and removed after the session)."""
    if not binaries_present():
        message = f"PostgreSQL is not installed ({pg_bin()}/initdb missing)"
        if os.environ.get("NDRPDR_REQUIRE_POSTGRES"):
            pytest.fail(f"{message} and NDRPDR_REQUIRE_POSTGRES is set", pytrace=False)
        pytest.skip(message)
    cluster = PgCluster()
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def pg_url(pg_cluster: PgCluster) -> str:
    """The URL of the cluster's database ``ndrpdr``, emptied (a new schema ``public``)."""
    pg_cluster.psql(
        "DROP SCHEMA public CASCADE", "CREATE SCHEMA public AUTHORIZATION ndrpdr", database="ndrpdr"
    )
    return pg_cluster.url()


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty store on each backend: a SQLite file in tmp_path, a new PostgreSQL database."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'store.sqlite'}"
    url: str = request.getfixturevalue("pg_url")
    return url
