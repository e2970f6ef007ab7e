"""The output directory's lock (``outdir.outdirlock.claim``): who holds it, who shares it.

Another run is stood in for by a second open file description of the lock
file (flock locks conflict between them even in one process) naming a live
process that is not this one's ancestor: a ``sleep`` child.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from ndrpdr.outdir.outdirlock import LOCK_NAME, Claim, ancestors, claim, holder, holder_pid


@pytest.fixture
def stranger() -> Iterator[int]:
    """The pid of a live process outside this one's ancestry."""
    process = subprocess.Popen(["sleep", "60"])
    try:
        yield process.pid
    finally:
        process.kill()
        process.wait()


def _hold(directory: Path, text: str, operation: int = fcntl.LOCK_EX) -> int:
    """Lock ``directory`` as another run does and write ``text``; the descriptor to close."""
    fd = os.open(directory / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, operation | fcntl.LOCK_NB)
    os.write(fd, text.encode())
    return fd


def _claim(directory: Path, *, pid: int | None = None, shared: bool = False) -> Claim:
    return claim(
        directory,
        pid=os.getpid() if pid is None else pid,
        run_id="ours",
        started="2026-12-06T10:00:00+00:00",
        shared=shared,
    )


def test_ancestors_start_with_this_process_and_its_parent() -> None:
    found = ancestors()
    assert found[:2] == [os.getpid(), os.getppid()]
    assert len(set(found)) == len(found)


def test_a_free_directory_is_taken_and_says_who_holds_it(tmp_path: Path) -> None:
    outdir = tmp_path / "results"
    taken = _claim(outdir)
    assert taken.other is None and taken.fd is not None
    assert holder(outdir) == f"pid={os.getpid()} run=ours started=2026-12-06T10:00:00+00:00"
    os.close(taken.fd)
    assert holder(outdir) is None  # the lock went with its descriptor


def test_a_directory_another_live_run_holds_names_that_run(tmp_path: Path, stranger: int) -> None:
    theirs = f"pid={stranger} run=theirs started=2026-12-06T09:00:00+00:00"
    fd = _hold(tmp_path, theirs)
    try:
        for shared in (False, True):  # a plain robot run, a pabot worker
            found = _claim(tmp_path, shared=shared)
            assert (found.other, found.fd) == (theirs, None)
    finally:
        os.close(fd)
    assert (tmp_path / LOCK_NAME).read_text() == theirs  # left as the holder wrote it
    assert _claim(tmp_path).other is None  # the holder ended: the directory is free


def test_the_lock_of_a_parent_run_is_this_runs(tmp_path: Path) -> None:
    """bin/run-suites holds the lock and runs robot: the robot writes there as its run."""
    parent = f"pid={os.getppid()} run=run-suites started=2026-12-06T09:00:00+00:00"
    fd = _hold(tmp_path, parent)
    try:
        found = _claim(tmp_path)
        assert (found.other, found.fd) == (None, None)
    finally:
        os.close(fd)


def test_pabot_workers_share_their_parents_lock(tmp_path: Path) -> None:
    first = _claim(tmp_path, pid=os.getppid(), shared=True)  # the first worker takes it
    second = _claim(tmp_path, pid=os.getppid(), shared=True)  # the next one shares it
    assert first.other is None and second.other is None
    assert first.fd is not None and second.fd is not None
    assert holder_pid(holder(tmp_path) or "") == os.getppid()
    os.close(first.fd)  # the first worker ended: the run still holds the directory
    assert holder(tmp_path) is not None
    os.close(second.fd)
    assert holder(tmp_path) is None


def test_a_pabot_run_holding_the_directory_keeps_a_plain_run_out(
    tmp_path: Path, stranger: int
) -> None:
    theirs = f"pid={stranger} run=their-pabot started=2026-12-06T09:00:00+00:00"
    fd = _hold(tmp_path, theirs, fcntl.LOCK_SH)  # a worker of another pabot run
    try:
        assert _claim(tmp_path).other == theirs
        assert _claim(tmp_path, pid=os.getppid(), shared=True).other == theirs
    finally:
        os.close(fd)


def test_a_lock_file_naming_no_pid_is_anothers(tmp_path: Path) -> None:
    fd = _hold(tmp_path, "")  # taken, not yet written
    try:
        assert _claim(tmp_path).other == "a run that has not said who it is yet"
    finally:
        os.close(fd)
