"""The record file kept up to date while a search runs, so no stop loses what was measured.

``RecordJournal`` rewrites the record file after the trials of a running
search (``update``): each time a whole, schema-valid record marked
``status`` "failed", ``incomplete`` true, with an ``error`` saying the run
had not finished and every trial so far. A SIGKILL of the runner then loses
at most the trial in flight. The caller's final record replaces it
(``write_record``, atomic too).

Every write is atomic: the JSON goes to a temporary file in the record's
directory, then ``os.replace`` puts it in place, so a reader (or a crash)
sees the previous record or the new one, never half of one. In progress,
the JSON is one line (much faster to write); the final record is indented.
Rewrites are
throttled only when trials come faster than the record can be written: a
rewrite is skipped while less than ``COST_FACTOR`` times the last one's
cost has passed since it (so writing costs at most about 1/``COST_FACTOR``
of the wall time), and never held back longer than ``max_pause_s``
[s]; ``flush`` writes the last pending one. Trials of a real testbed (a
second or more) are each written; a simulator's instant ones are not.

A write that fails (a full disk, a read-only directory) is reported once
through ``notice`` and the search goes on: the in-progress record is a
safety net, not the result.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

_log = logging.getLogger(__name__)

#: Longest pause the throttle may put between two rewrites of the in-progress record [s].
DEFAULT_MAX_PAUSE_S = 0.2
#: A rewrite waits at least this many times the previous rewrite's cost.
COST_FACTOR = 10.0


def unfinished_error(trial_count: int) -> str:
    """The ``error`` of an in-progress record holding ``trial_count`` trials."""
    return (
        "the run had not finished when this record was written: "
        f"{trial_count} trial{'' if trial_count == 1 else 's'} so far"
    )


def write_json_atomically(
    document: Mapping[str, Any], path: Path, *, indent: int | None = 2
) -> None:
    """Write ``document`` as JSON to ``path`` through a temporary file and a rename.

    ``indent`` None writes one line (json's C encoder: about ten times
    faster than indented output, which is pure Python).
    Parent directories are created. OSError (no space, no permission)
    propagates, and the temporary file is removed; ``path`` then still holds
    what it held before.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(document, indent=indent, sort_keys=False) + "\n"
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            file.write(text)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


class RecordJournal:
    """Rewrites one record file while a search runs (``update`` after each trial, ``flush``)."""

    def __init__(
        self,
        path: Path,
        build: Callable[[], Mapping[str, Any]],
        *,
        notice: Callable[[str], None] | None = None,
        max_pause_s: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """``build()`` makes the in-progress record from the trials so far (called per write).

        ``clock()`` [s] times the throttle and the writes (monotonic).
        ``notice(text)`` hears of the first failed write (later ones are
        counted silently); ``max_pause_s`` [s] is the longest pause the
        throttle may put between rewrites (None: ``DEFAULT_MAX_PAUSE_S``,
        read now).
        """
        self.path = path
        self._build = build
        self._notice = notice
        self._max_pause_s = DEFAULT_MAX_PAUSE_S if max_pause_s is None else max_pause_s
        self._clock = clock
        self._last_write: float | None = None
        self._last_cost = 0.0  # wall time of the last rewrite [s]
        self._pending = False
        #: Rewrites done, and the ones that failed.
        self.writes = 0
        self.failures = 0
        #: Wall time spent building and writing the in-progress record [s].
        self.seconds = 0.0

    def update(self) -> None:
        """A trial was added: rewrite the record unless the last rewrite was too recent."""
        now = self._clock()
        if self._last_write is not None:
            pause = min(self._max_pause_s, COST_FACTOR * self._last_cost)
            if now - self._last_write < pause:
                self._pending = True
                return
        self._write(now)

    def flush(self) -> None:
        """Write the record if an ``update`` was held back by the throttle."""
        if self._pending:
            self._write(self._clock())

    def _write(self, now: float) -> None:
        self._pending = False
        self._last_write = now
        try:
            write_json_atomically(self._build(), self.path, indent=None)
        except OSError as exc:
            self.failures += 1
            if self.failures == 1:
                text = (
                    f"cannot write the in-progress result record {self.path}: {exc}; "
                    "the search goes on (the final record is written at the end)"
                )
                if self._notice is not None:
                    self._notice(text)
                else:
                    _log.warning("%s", text)
        else:
            self.writes += 1
        finally:
            self._last_cost = self._clock() - now
            self.seconds += self._last_cost
