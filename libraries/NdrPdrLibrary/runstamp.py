"""The ``run`` section each record gets when the keywords write it (record format 1.5.0).

* id: ``$NDRPDR_RUN_ID`` (``bin/run-suites`` exports one per invocation),
  else one made once per library process (``new_run_id``);
* started: ``$NDRPDR_RUN_STARTED``, else the start of the first record
  this process wrote;
* test, suite, tags: the running Robot test's (tags as they are when the
  record is written);
* revision: ``$NDRPDR_SUITES_REVISION``, else ``git rev-parse HEAD`` of the
  suite's directory when it is a git checkout, else None;
* versions: the nodes' software (``ndrpdr.activebed.versions``), asked once
  per testbed set-up.

Nothing here fails a test: a bad ``$NDRPDR_RUN_STARTED`` is warned about
once and ignored; an unknown version is left out.
"""

from __future__ import annotations

import dataclasses
import datetime
import functools
import os
import weakref
from collections.abc import Mapping
from typing import Any

from ndrpdr.activebed.testbed import ActiveTestbed
from ndrpdr.activebed.versions import node_versions
from ndrpdr.results.runsection import (
    REVISION_ENV,
    RUN_ID_ENV,
    RUN_STARTED_ENV,
    git_revision,
    new_run_id,
    parse_started,
    run_section,
    with_run,
)
from NdrPdrLibrary import robotout
from NdrPdrLibrary.context import LibraryContext

UTC = datetime.timezone.utc


@dataclasses.dataclass
class _ProcessRun:
    """The run as this process knows it when the environment does not say."""

    id: str | None = None
    started: datetime.datetime | None = None
    warned: bool = False
    versions: weakref.WeakKeyDictionary[ActiveTestbed, dict[str, str]] = dataclasses.field(
        default_factory=weakref.WeakKeyDictionary
    )


@functools.cache
def _process_run() -> _ProcessRun:
    """One per library process (made on the first record, not at import)."""
    return _ProcessRun()


def _record_start(record: Mapping[str, Any]) -> datetime.datetime:
    text = record.get("started")
    if isinstance(text, str):
        try:
            return parse_started(text)
        except ValueError:
            pass
    return datetime.datetime.now(UTC)


def run_started(record: Mapping[str, Any]) -> datetime.datetime:
    """``$NDRPDR_RUN_STARTED``, else the start of this process's first record."""
    state = _process_run()
    text = os.environ.get(RUN_STARTED_ENV)
    if text:
        try:
            return parse_started(text)
        except ValueError as exc:
            if not state.warned:
                state.warned = True
                robotout.warn(f"{RUN_STARTED_ENV} ignored: {exc}")
    if state.started is None:
        state.started = _record_start(record)
    return state.started


def run_id() -> str:
    """``$NDRPDR_RUN_ID``, else this process's own run id."""
    given = os.environ.get(RUN_ID_ENV, "").strip()
    if given:
        return given
    state = _process_run()
    if state.id is None:
        state.id = new_run_id()
    return state.id


def suites_revision() -> str | None:
    """``$NDRPDR_SUITES_REVISION``, else the git revision of the running suite's directory."""
    given = os.environ.get(REVISION_ENV, "").strip()
    if given:
        return given
    source = robotout.suite_source()
    if source is None:
        return None
    return git_revision((source if source.is_dir() else source.parent).resolve())


def testbed_versions(ctx: LibraryContext) -> dict[str, str]:
    """``node -> version`` of the testbed in use, asked once per set-up ({} when none is up)."""
    if not ctx.is_set_up:
        return {}
    testbed = ctx.testbed
    cache = _process_run().versions
    if testbed not in cache:
        cache[testbed] = node_versions(testbed)
    return dict(cache[testbed])


def stamp_run(ctx: LibraryContext, record: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``record`` with its ``run`` section."""
    section = run_section(
        run_id=run_id(),
        started=run_started(record),
        test=robotout.test_name(),
        suite=robotout.suite_name(),
        tags=robotout.test_tags(),
        revision=suites_revision(),
        versions=testbed_versions(ctx),
    )
    return with_run(record, section)
