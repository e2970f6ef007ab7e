"""What a new run clears from its output directory: only an earlier run's own files."""

from __future__ import annotations

import json
from pathlib import Path

from ndrpdr.cli.clear_results_cmd import removed_line
from ndrpdr.outdir.ownoutputs import clear_earlier_outputs, earlier_outputs, is_own_record


def _fill(directory: Path) -> dict[str, Path]:
    """An output directory as an earlier run and its user left it."""
    files = {
        "record": directory / "Old_Test.json",
        "mrr": directory / "Old_Mrr-2.json",
        "output": directory / "output.xml",
        "log": directory / "log.html",
        "xunit": directory / "xunit.xml",
        "foreign_json": directory / "other.json",
        "list_json": directory / "list.json",
        "bad_json": directory / "broken.json",
        "notes": directory / "notes.txt",
        "foreign_output": directory / "report.html",
    }
    files["record"].write_text(json.dumps({"kind": "ndrpdr", "tool": {"name": "ndrpdr"}}))
    files["mrr"].write_text(json.dumps({"kind": "mrr", "tool": {"name": "ndrpdr"}}))
    files["output"].write_text('<?xml version="1.0"?>\n<robot generator="Robot 7.1">\n</robot>')
    files["log"].write_text("<!DOCTYPE html>\n<html lang='en'></html>")
    files["xunit"].write_text('<?xml version="1.0"?>\n<testsuite name="x"></testsuite>')
    files["foreign_json"].write_text(json.dumps({"tool": {"name": "nfvbench"}}))
    files["list_json"].write_text("[1, 2]")
    files["bad_json"].write_text('{"tool": ')
    files["notes"].write_text("keep me")
    files["foreign_output"].write_text("not a Robot report")
    (directory / "sub").mkdir()
    (directory / "sub" / "Nested.json").write_text(json.dumps({"tool": {"name": "ndrpdr"}}))
    return files


def test_only_an_earlier_runs_files_are_removed(tmp_path: Path) -> None:
    files = _fill(tmp_path)
    ours = [files[k] for k in ("record", "mrr", "output", "log", "xunit")]
    assert earlier_outputs(tmp_path) == sorted(ours)
    assert clear_earlier_outputs(tmp_path) == sorted(ours)
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == sorted(
        ["other.json", "list.json", "broken.json", "notes.txt", "report.html", "sub"]
    )
    assert (tmp_path / "sub" / "Nested.json").exists()  # subdirectories are not ours to clear
    assert clear_earlier_outputs(tmp_path) == []


def test_is_own_record(tmp_path: Path) -> None:
    files = _fill(tmp_path)
    assert is_own_record(files["record"])
    assert not is_own_record(files["foreign_json"])
    assert not is_own_record(files["bad_json"])
    assert not is_own_record(tmp_path / "missing.json")


def test_missing_directory_has_nothing(tmp_path: Path) -> None:
    assert earlier_outputs(tmp_path / "nope") == []


def test_removed_line(tmp_path: Path) -> None:
    removed = [tmp_path / "a.json", tmp_path / "b.json", tmp_path / "output.xml"]
    assert removed_line(tmp_path, removed) == (
        f"{tmp_path}: removed the earlier run's 2 result record(s), output.xml"
    )
    assert removed_line(tmp_path, []) == f"{tmp_path}: no earlier results to remove"
