"""Where records go and how the log links them, with Robot alone and under pabot.

Robot's variables are given by replacing ``robotout._variable`` (a stand-in for a
running Robot: the real runs are tests/acceptance/test_pabot_testbeds.py); the
files are real, and the claim of a name is raced by real processes.
"""

from __future__ import annotations

import json
import multiprocessing
import re
from collections.abc import Mapping
from pathlib import Path

import pytest

from NdrPdrLibrary import publish, robotout
from NdrPdrLibrary.context import LibraryContext


def _robot(monkeypatch: pytest.MonkeyPatch, variables: Mapping[str, object]) -> None:
    monkeypatch.setattr(robotout, "_variable", variables.get)


def _pabot_vars(outdir: Path, *parts: str, test: str = "64B-1c-x-ndrpdr") -> dict[str, object]:
    """Robot's variables in pabot's robot process ``parts`` (``"3"``, or ``"1", "3"``)."""
    process_dir = outdir.joinpath("pabot_results", *parts)
    process_dir.mkdir(parents=True)
    return {
        "${OUTPUT DIR}": str(process_dir),
        "${LOG FILE}": "NONE",
        "${TEST NAME}": test,
        "${PABOTQUEUEINDEX}": parts[-1],
    }


def _href(link: str) -> str:
    match = re.search(r'href="([^"]+)"', link)
    assert match is not None, link
    return match.group(1)


def test_plain_robot_keeps_its_output_dir_and_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "logs").mkdir()
    _robot(
        monkeypatch,
        {
            "${OUTPUT DIR}": str(tmp_path),
            "${LOG FILE}": str(tmp_path / "logs" / "log.html"),
            "${TEST NAME}": "64B test",
        },
    )
    assert robotout.final_output_dir() == tmp_path
    assert not robotout.in_shared_output_dir()
    ctx = LibraryContext()
    path = publish.record_path(ctx, "ndrpdr")
    assert path == tmp_path / "64B_test.json"
    assert not path.exists()  # no claim outside pabot: a plain run writes as before
    assert publish.record_path(ctx, "ndrpdr") == tmp_path / "64B_test-2.json"
    assert _href(publish._link(path)) == "../64B_test.json"


@pytest.mark.parametrize("parts", [("3",), ("1", "3")], ids=["process", "argumentfile"])
def test_under_pabot_records_go_next_to_the_merged_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, parts: tuple[str, ...]
) -> None:
    _robot(monkeypatch, _pabot_vars(tmp_path, *parts))
    assert robotout.final_output_dir() == tmp_path
    assert robotout.in_shared_output_dir()
    path = publish.record_path(LibraryContext(), "ndrpdr")
    assert path == tmp_path / "64B-1c-x-ndrpdr.json"
    assert path.exists()  # claimed
    assert _href(publish._link(path)) == "64B-1c-x-ndrpdr.json"  # relative to the merged log


def test_a_name_another_process_claimed_gets_the_next_number(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _robot(monkeypatch, _pabot_vars(tmp_path, "2"))
    (tmp_path / "64B-1c-x-ndrpdr.json").write_text("{}")  # another process's record
    path = publish.record_path(LibraryContext(), "ndrpdr")
    assert path == tmp_path / "64B-1c-x-ndrpdr-2.json"
    assert (tmp_path / "64B-1c-x-ndrpdr.json").read_text() == "{}"


def test_pabot_variable_without_pabot_results_above(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``PABOTQUEUEINDEX`` given by hand to a plain robot run: its own output dir."""
    _robot(monkeypatch, {"${OUTPUT DIR}": str(tmp_path), "${PABOTQUEUEINDEX}": "0"})
    assert robotout.final_output_dir() == tmp_path
    assert not robotout.in_shared_output_dir()


def _claim_in_process(outdir: str, index: int, queue: multiprocessing.Queue[str]) -> None:
    variables = {
        "${OUTPUT DIR}": str(Path(outdir, "pabot_results", str(index))),
        "${LOG FILE}": "NONE",
        "${TEST NAME}": "same test",
        "${PABOTQUEUEINDEX}": str(index),
    }
    robotout._variable = variables.get  # type: ignore[assignment]  # this child only
    queue.put(publish.record_path(LibraryContext(), "ndrpdr").name)


def test_processes_racing_for_one_name_get_distinct_ones(tmp_path: Path) -> None:
    processes = 6
    for index in range(processes):
        (tmp_path / "pabot_results" / str(index)).mkdir(parents=True)
    context = multiprocessing.get_context("fork")
    queue: multiprocessing.Queue[str] = context.Queue()
    children = [
        context.Process(target=_claim_in_process, args=(str(tmp_path), i, queue))
        for i in range(processes)
    ]
    for child in children:
        child.start()
    names = sorted(queue.get(timeout=30) for _ in children)
    for child in children:
        child.join(timeout=30)
        assert child.exitcode == 0
    assert names == sorted(
        ["same_test.json"] + [f"same_test-{n}.json" for n in range(2, processes + 1)]
    )


def test_a_plain_run_keeps_another_runs_record_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An earlier plain robot run's record (or any other file) is never written over."""
    _robot(monkeypatch, {"${OUTPUT DIR}": str(tmp_path), "${TEST NAME}": "T"})
    monkeypatch.setattr(publish, "run_id", lambda: "this-run")
    logged: list[str] = []
    monkeypatch.setattr(robotout, "info", lambda text, html=False: logged.append(text))
    theirs = json.dumps({"tool": {"name": "ndrpdr"}, "run": {"id": "an-earlier-run"}})
    (tmp_path / "T.json").write_text(theirs)
    (tmp_path / "T-2.json").write_text("notes")  # not a record at all
    path = publish.record_path(LibraryContext(), "ndrpdr")
    assert path == tmp_path / "T-3.json"
    assert logged == ["result record T-3.json: kept T.json, T-2.json (another run's)"]
    assert (tmp_path / "T.json").read_text() == theirs


def test_a_plain_run_writes_over_a_record_of_its_own_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A test of this run run again (``--rerunfailed`` with the same ``$NDRPDR_RUN_ID``)."""
    _robot(monkeypatch, {"${OUTPUT DIR}": str(tmp_path), "${TEST NAME}": "T"})
    monkeypatch.setattr(publish, "run_id", lambda: "this-run")
    (tmp_path / "T.json").write_text(json.dumps({"run": {"id": "this-run"}}))
    assert publish.record_path(LibraryContext(), "ndrpdr") == tmp_path / "T.json"


def test_a_path_that_cannot_be_a_file_is_left_to_the_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A directory at the path, or a name too long: the record's write fails naming it."""
    (tmp_path / "T.json").mkdir()
    _robot(monkeypatch, {"${OUTPUT DIR}": str(tmp_path), "${TEST NAME}": "T"})
    assert publish.record_path(LibraryContext(), "ndrpdr") == tmp_path / "T.json"
    _robot(monkeypatch, {"${OUTPUT DIR}": str(tmp_path), "${TEST NAME}": "T" * 300})
    assert publish.record_path(LibraryContext(), "ndrpdr") == tmp_path / f"{'T' * 300}.json"
