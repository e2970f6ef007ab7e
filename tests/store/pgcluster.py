"""A private PostgreSQL cluster for the tests: initdb and pg_ctl in a temporary directory.

Debian's PostgreSQL 15 (``/usr/lib/postgresql/15/bin``, or ``$NDRPDR_PG_BIN``)
runs as the ``postgres`` system user when the tests run as root
(PostgreSQL refuses root), listening only on a unix socket in the
cluster's directory (no TCP port). The superuser ``postgres`` is trusted
on that socket; the role ``ndrpdr`` must give its password (SCRAM), so a
test can see a real authentication failure. ``stop`` ends the server by
its PID and removes the directory.
"""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

#: Where Debian's postgresql-15 puts its programs.
DEFAULT_BIN = Path("/usr/lib/postgresql/15/bin")
#: The password of the ``ndrpdr`` role.
PASSWORD = "s3cret-store-pw"


def pg_bin() -> Path:
    """The directory of initdb / pg_ctl / postgres."""
    return Path(os.environ.get("NDRPDR_PG_BIN", DEFAULT_BIN))


def binaries_present() -> bool:
    """Whether initdb, pg_ctl and postgres are installed."""
    return all((pg_bin() / name).is_file() for name in ("initdb", "pg_ctl", "postgres"))


class PgCluster:
    """One private cluster: ``start()``, ``url(...)``, ``stop()``."""

    def __init__(self) -> None:
        """Choose the user to run it as (``postgres`` when we are root); nothing started."""
        self.user = "postgres" if os.geteuid() == 0 else None
        self.directory: Path | None = None
        self.pid: int | None = None

    def _run(self, argv: Sequence[str], timeout: float = 60.0) -> str:
        command = list(argv)
        if self.user is not None:
            command = ["runuser", "-u", self.user, "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
        if done.returncode != 0:
            raise RuntimeError(
                f"{' '.join(command)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
            )
        return done.stdout

    @property
    def socket_dir(self) -> Path:
        assert self.directory is not None
        return self.directory / "socket"

    def start(self) -> None:
        """initdb, configure (socket only, SCRAM for ``ndrpdr``), start, create the database."""
        self.directory = Path(tempfile.mkdtemp(prefix="ndrpdr-pg-"))
        data = self.directory / "data"
        self.socket_dir.mkdir()
        if self.user is not None:
            entry = pwd.getpwnam(self.user)
            for path in (self.directory, self.socket_dir):
                os.chown(path, entry.pw_uid, entry.pw_gid)
        bin_dir = pg_bin()
        self._run(
            [str(bin_dir / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust",
             "--no-sync", "-E", "UTF8", "--locale=C"]
        )  # fmt: skip
        (data / "pg_hba.conf").write_text(
            "local all postgres trust\nlocal all all scram-sha-256\n", encoding="utf-8"
        )
        with (data / "postgresql.conf").open("a", encoding="utf-8") as conf:
            conf.write(
                "listen_addresses = ''\n"
                f"unix_socket_directories = '{self.socket_dir}'\n"
                "fsync = off\nsynchronous_commit = off\nfull_page_writes = off\n"
            )
        self._run(
            [str(bin_dir / "pg_ctl"), "-D", str(data), "-l", str(self.directory / "server.log"),
             "-w", "-t", "30", "start"]
        )  # fmt: skip
        self.pid = int((data / "postmaster.pid").read_text().split()[0])
        self.psql(
            f"CREATE ROLE ndrpdr LOGIN PASSWORD '{PASSWORD}'",
            "CREATE DATABASE ndrpdr OWNER ndrpdr",
        )

    def psql(self, *statements: str, database: str = "postgres") -> str:
        """Run SQL statements as the superuser (psql from the same installation)."""
        psql = pg_bin() / "psql"
        if not psql.is_file():
            psql = Path(shutil.which("psql") or "psql")
        argv = [str(psql), "-h", str(self.socket_dir), "-U", "postgres", "-d", database, "-qAt"]
        for statement in statements:
            argv += ["-c", statement]
        return self._run(argv)

    def url(self, *, password: str = PASSWORD, database: str = "ndrpdr") -> str:
        """The store URL of ``database`` as role ``ndrpdr`` over the cluster's socket."""
        return f"postgresql+psycopg://ndrpdr:{password}@/{database}?host={self.socket_dir}"

    def stop(self) -> None:
        """Stop the server by its PID (SIGQUIT, then SIGKILL), then remove the directory.

        Immediate: no checkpoint, the data is thrown away anyway.
        """
        if self.pid is not None:
            try:
                os.kill(self.pid, signal.SIGQUIT)
                deadline = time.monotonic() + 15.0
                while time.monotonic() < deadline:
                    os.kill(self.pid, 0)
                    time.sleep(0.05)
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.pid = None
        if self.directory is not None:
            shutil.rmtree(self.directory, ignore_errors=True)
            self.directory = None
