"""The ``run`` section of a record (format 1.5.0): which run the record belongs to.

``{"id", "started", "test", "suite", "tags", "revision", "versions"}``:
the run's id and start (ISO 8601), the Robot test, suite and tags, the
git revision of the suites (None when unknown) and ``node -> version``
of the software that ran (``ndrpdr.activebed.versions``). The keyword layer
fills it; ``ndrpdr.trend.history`` reads it.

One run, one id: ``bin/run-suites`` exports ``NDRPDR_RUN_ID`` and
``NDRPDR_RUN_STARTED`` once per invocation, so every test (also pabot's
workers) names the same run; without them each library process makes its
own (``new_run_id``). ``NDRPDR_SUITES_REVISION`` gives the revision when
the suites are no git checkout (a copied tree in CI).
"""

from __future__ import annotations

import datetime
import functools
import logging
import secrets
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

_log = logging.getLogger(__name__)

#: The run's id, shared by every test of one run.
RUN_ID_ENV = "NDRPDR_RUN_ID"
#: The run's start, ISO 8601 (``2026-11-25T22:00:00+00:00``).
RUN_STARTED_ENV = "NDRPDR_RUN_STARTED"
#: The suites' revision, when they are no git checkout.
REVISION_ENV = "NDRPDR_SUITES_REVISION"

#: Time limit of ``git rev-parse`` [s].
GIT_TIMEOUT_S = 5.0

UTC = datetime.timezone.utc


def new_run_id(now: datetime.datetime | None = None) -> str:
    """``20261125T220000Z-3fa2c1``: the UTC time and 6 random hex digits."""
    moment = (now or datetime.datetime.now(UTC)).astimezone(UTC)
    return f"{moment:%Y%m%dT%H%M%SZ}-{secrets.token_hex(3)}"


def parse_started(text: str) -> datetime.datetime:
    """The moment ``text`` (ISO 8601) names, aware (UTC when it gives no offset).

    ValueError naming the text when it is no ISO 8601 time.
    """
    try:
        moment = datetime.datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"not an ISO 8601 time: {text!r}") from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


@functools.cache
def git_revision(directory: Path) -> str | None:
    """``git rev-parse HEAD`` in ``directory`` (asked once per directory), None if no checkout."""
    try:
        done = subprocess.run(
            ["git", "-C", str(directory), "rev-parse", "--verify", "-q", "HEAD"],
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        _log.debug("no git revision of %s: %s", directory, exc)
        return None
    revision = done.stdout.strip()
    return revision if done.returncode == 0 and revision else None


def run_section(
    *,
    run_id: str,
    started: datetime.datetime,
    test: str | None,
    suite: str | None,
    tags: Sequence[str],
    revision: str | None,
    versions: Mapping[str, str],
) -> dict[str, Any]:
    """The ``run`` section as a JSON-ready dict."""
    return {
        "id": run_id,
        "started": started.isoformat(timespec="seconds"),
        "test": test,
        "suite": suite,
        "tags": [str(tag) for tag in tags],
        "revision": revision,
        "versions": {str(node): str(text) for node, text in versions.items()},
    }


def with_run(record: Mapping[str, Any], run: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``record`` with ``run`` as its ``run`` section (the last field)."""
    stamped = {key: value for key, value in record.items() if key != "run"}
    stamped["run"] = dict(run)
    return stamped
