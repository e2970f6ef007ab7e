"""The library takes its run's output directory when Robot imports it (``outdirclaim``).

Robot's variables are stood in for (``robotout._variable``); the locks are real.
The real runs are tests/acceptance/test_outdir_lock.py.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from ndrpdr.outdir.outdirlock import LOCK_NAME, holder, holder_pid
from NdrPdrLibrary import NdrPdrLibrary, outdirclaim, robotout


@pytest.fixture(autouse=True)
def _fresh_claims() -> Iterator[None]:
    outdirclaim._claim.cache_clear()
    yield
    outdirclaim._claim.cache_clear()


def _robot(monkeypatch: pytest.MonkeyPatch, variables: Mapping[str, object]) -> list[str]:
    """Robot running with ``variables``; the warnings logged."""
    monkeypatch.setattr(robotout, "_variable", variables.get)
    monkeypatch.setattr(robotout, "robot_running", lambda: True)
    warned: list[str] = []
    monkeypatch.setattr(robotout, "warn", warned.append)
    return warned


def test_outside_robot_nothing_is_locked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert outdirclaim.claim_output_dir() is None
    assert not (tmp_path / LOCK_NAME).exists()


def test_a_plain_run_holds_its_output_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    warned = _robot(monkeypatch, {"${OUTPUT DIR}": str(tmp_path)})
    assert outdirclaim.claim_output_dir() is None
    assert outdirclaim.claim_output_dir() is None  # a second import of the library: same claim
    assert holder_pid(holder(tmp_path) or "") == os.getpid()
    assert warned == []


def test_a_pabot_worker_holds_the_merged_dir_for_its_parent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    worker = tmp_path / "pabot_results" / "1"
    worker.mkdir(parents=True)
    _robot(monkeypatch, {"${OUTPUT DIR}": str(worker), "${PABOTQUEUEINDEX}": "1"})
    assert outdirclaim.claim_output_dir() is None
    assert holder_pid(holder(tmp_path) or "") == os.getppid()
    assert not (worker / LOCK_NAME).exists()


def test_a_dir_another_run_holds_stops_every_keyword_but_the_teardown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    warned = _robot(monkeypatch, {"${OUTPUT DIR}": str(tmp_path)})
    other = subprocess.Popen(["sleep", "60"])
    fd = os.open(tmp_path / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.write(fd, f"pid={other.pid} run=theirs started=then".encode())
        library = NdrPdrLibrary()
    finally:
        os.close(fd)
        other.kill()
        other.wait()
    said = f"output directory {tmp_path} is in use by another run (pid={other.pid} run=theirs"
    assert library.output_dir_in_use is not None
    assert library.output_dir_in_use.startswith(said)
    assert warned == [library.output_dir_in_use]
    with pytest.raises(outdirclaim.OutputDirInUseError, match=r"this run stops") as failed:
        library.run_keyword("Set Up Testbed", ())
    assert failed.value.ROBOT_EXIT_ON_FAILURE  # Robot stops the whole run
    library.run_keyword("Tear Down Testbed", ())  # nothing set up, nothing to fail
