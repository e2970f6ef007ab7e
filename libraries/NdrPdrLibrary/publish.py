"""What searches, MRR runs and soaks leave in a Robot run: JSON records, log, message, metadata."""

from __future__ import annotations

import html
import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ndrpdr.report.recordview import RecordView, view_of
from ndrpdr.report.trialtable import trials_html
from ndrpdr.results.record import write_record
from ndrpdr.runflow import RunOutcome
from NdrPdrLibrary import robotout
from NdrPdrLibrary.context import LibraryContext
from NdrPdrLibrary.runstamp import run_id, stamp_run

#: Rows of the trial table in log.html before the middle ones are elided.
MAX_LOGGED_TRIALS = 400


def record_path(ctx: LibraryContext, kind: str) -> Path:
    """Where this record goes: ``<output dir>/<test name>.json`` (unique in the run).

    A test's second record (a second search, or an MRR measurement after a
    search) is ``<test name>-2.json``, its third ``-3`` and so on; outside a
    test ``<kind>-<n>.json``. Chosen before a search starts (the record is
    rewritten there as it goes), then given to ``publish_record`` for the
    final write.

    Under pabot the record goes next to the merged output.xml, not into the
    robot process's own ``pabot_results/<n>/`` (so the merged log's link and
    ``ndrpdr summary`` find it), and the name is claimed by creating the file
    exclusively: of two processes wanting one name (the same test run twice,
    e.g. with pabot's ``--argumentfile<n>``), the second gets ``-2``.

    A file never replaces another run's: a name whose file exists and is not
    a record of this run (``runstamp.run_id``: an earlier plain robot run's
    record, any other regular file) is skipped for the next number, and the log says
    so. ``bin/run-suites`` clears its directory's earlier records first, so
    its records keep their plain names.
    """
    ctx.records_written += 1
    name = robotout.safe_file_name(robotout.test_name() or f"{kind}-{ctx.records_written}")
    directory = robotout.final_output_dir()
    shared = robotout.in_shared_output_dir()
    path = directory / f"{name}.json"
    number = 1
    kept: list[str] = []
    while path in ctx.written_paths or _taken(path, shared, kept):
        number += 1
        path = directory / f"{name}-{number}.json"
    if kept:
        robotout.info(f"result record {path.name}: kept {', '.join(kept)} (another run's)")
    ctx.written_paths.add(path)
    return path


def _taken(path: Path, shared: bool, kept: list[str]) -> bool:
    """True when ``path`` may not be this record's; another run's file is added to ``kept``."""
    if shared:
        return not _claim(path)
    if _not_this_runs(path):
        kept.append(path.name)
        return True
    return False


def _not_this_runs(path: Path) -> bool:
    """True when ``path`` is a regular file but not a record of this run (``run.id``), so kept.

    Anything else at ``path`` (nothing, a directory, a name the system refuses)
    is left to the record's write, which fails naming the file.
    """
    if not os.path.isfile(path):
        return False
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError):  # empty, cut short, not JSON, unreadable: not ours to replace
        return True
    run = data.get("run") if isinstance(data, dict) else None
    return not (isinstance(run, dict) and run.get("id") == run_id())


def _claim(path: Path) -> bool:
    """Create ``path`` empty unless it exists; False when it does (another process has it).

    Atomic (``O_EXCL``), so of several robot processes exactly one gets a
    name. Another error (no permission) is left to the record's write, which
    warns naming the file.
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("x"):
            pass
    except FileExistsError:
        return False
    except OSError:
        return True
    return True


def _link(path: Path) -> str:
    """An HTML link to the record, relative to the log.html that shows it.

    Without a log of its own (``--log NONE``, and every robot process under
    pabot) it is relative to ``robotout.final_output_dir()``: where pabot's
    merged log.html and output.xml go.
    """
    log_file = robotout.log_file()
    base = log_file.parent if log_file is not None else robotout.final_output_dir()
    try:
        href = os.path.relpath(path, base)
    except ValueError:  # another drive (Windows)
        href = str(path)
    href = Path(href).as_posix()
    return f'<a href="{html.escape(href)}">{html.escape(path.name)}</a>'


def publish_record(
    ctx: LibraryContext, record: Mapping[str, Any], *, path: Path | None = None
) -> Path | None:
    """What a search, an MRR run or a soak leaves in Robot, its record's kind telling how
    (``ndrpdr.report.recordview``): the record written next to output.xml (at ``path`` if
    chosen before), logged (message, link, plots, trial table, warnings), and the test's
    message, metadata, caveat tags (``TG_LIMITED``, ``INCOMPLETE``) and suite line.

    Returns the record's path, or None when it could not be written (a
    warning says why, ``ctx.record_error`` too; the test message and
    metadata are set anyway). A failed MRR or soak record sets no test
    message or metadata: the keyword fails with the error.
    """
    view = view_of(record)
    message = view.message(record)
    if record["kind"] == "ndrpdr":  # `Get Last Search Record`
        ctx.last_record = dict(record)
    path = _write(ctx, record, record_path(ctx, str(record["kind"])) if path is None else path)
    robotout.info(
        "<b>"
        + html.escape(message).replace("\n", "<br>")
        + "</b>"
        + (f"<br>result record: {_link(path)}" if path is not None else ""),
        html=True,
    )
    _log_details(view, record)
    for warning in view.warnings(record):
        robotout.warn(f"{robotout.test_name()}: {warning}")
    if record["status"] == "failed" and not view.failed_result:
        return path
    metadata = view.metadata(record)
    if path is None:  # the test fails for it: its metadata must not say passed
        metadata["STATUS"] = "failed (the record could not be written)"
    test = robotout.test_name()
    previous = ctx.metadata_keys.get(test, set()) if test is not None else set()
    if robotout.set_test_result(message, metadata, replaces=previous):
        assert test is not None  # set_test_result is False outside a test
        ctx.metadata_keys = {test: set(metadata)}
        robotout.add_tags(*view.tags(record))  # TG_LIMITED, INCOMPLETE
        robotout.set_suite_result_line(view.suite_line(metadata))  # what --xunit files carry
    return path


def record_publisher(ctx: LibraryContext) -> Callable[[RunOutcome], None]:
    """A run's ``finish`` hook: ``publish_record`` of its record, however the run ended."""

    def finish(run: RunOutcome) -> None:
        publish_record(ctx, run.record_json())

    return finish


def log_record(record: Mapping[str, Any]) -> None:
    """Log a record of any kind read back (`Log Result Record`): the message its test got,
    its plots and its trial table."""
    view = view_of(record)
    robotout.info(view.message(record))
    _log_details(view, record)


def _log_details(view: RecordView, record: Mapping[str, Any]) -> None:
    """The record's plots and trial table (as its kind's ``view`` draws them), in the log."""
    for plot in view.plots(record):
        robotout.info(plot, html=True)
    robotout.info(trials_html(view.trial_rows(record), max_rows=MAX_LOGGED_TRIALS), html=True)


def check_writable(target: Path) -> str | None:
    """Why a record cannot be written to ``target`` (None: it can), found before a search.

    The file is opened for appending (made, empty, if new: the search
    rewrites it as it goes), so a read-only or missing directory, a full
    disk's refusal to make a file or a file without write permission is
    known before the first trial rather than after the last.
    """
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with target.open("a"):
            pass
    except OSError as exc:
        return f"cannot write the result record: {exc} (file {target})"
    return None


def _write(ctx: LibraryContext, record: Mapping[str, Any], target: Path) -> Path | None:
    """Write ``record`` with its ``run`` section (``runstamp``) to ``target``.

    On failure warn, keep why in ``ctx.record_error``, return None.
    """
    ctx.record_error = None
    try:
        write_record(stamp_run(ctx, record), target)
    except OSError as exc:
        ctx.record_error = f"cannot write the result record: {exc} (file {target})"
        robotout.warn(ctx.record_error)
        return None
    return target
