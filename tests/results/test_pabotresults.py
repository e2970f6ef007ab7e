"""What a new run clears of pabot's working directory: pabot_results/, if pabot's files mark it."""

from __future__ import annotations

from pathlib import Path

from ndrpdr.cli.clear_results_cmd import removed_line
from ndrpdr.outdir.pabotresults import clear_pabot_results, pabot_results


def _pabot_left(directory: Path, *, manager_log: bool = True, argfile_level: int = 1) -> Path:
    """pabot_results/ as pabot 5 leaves it: a directory per robot process, its manager log."""
    results = directory / "pabot_results"
    process = results / "0" if argfile_level == 1 else results / "1" / "0"
    process.mkdir(parents=True)
    (process / "robot_argfile.txt").write_text("--outputdir x\n")
    (process / "robot_stdout.out").write_text("")
    if manager_log:
        (results / "pabot_manager.log").write_text("started\n")
    return results


def test_pabots_directory_is_removed_with_everything_in_it(tmp_path: Path) -> None:
    results = _pabot_left(tmp_path)
    (results / "0" / "output.xml").write_text("<robot ></robot>")
    (tmp_path / "keep.txt").write_text("keep")
    assert pabot_results(tmp_path) == results
    assert clear_pabot_results(tmp_path) == results
    assert not results.exists()
    assert (tmp_path / "keep.txt").read_text() == "keep"
    assert clear_pabot_results(tmp_path) is None


def test_process_directories_alone_mark_it(tmp_path: Path) -> None:
    """No manager log (another pabot version): an argument file per process is enough,
    also one level down (pabot's --argumentfile<n> runs)."""
    results = _pabot_left(tmp_path, manager_log=False, argfile_level=2)
    assert clear_pabot_results(tmp_path) == results
    assert not results.exists()


def test_a_directory_of_that_name_without_pabots_files_stays(tmp_path: Path) -> None:
    results = tmp_path / "pabot_results"
    (results / "0").mkdir(parents=True)
    (results / "0" / "notes.txt").write_text("mine")
    (results / "report.json").write_text("{}")
    assert pabot_results(tmp_path) is None
    assert clear_pabot_results(tmp_path) is None
    assert (results / "0" / "notes.txt").read_text() == "mine"


def test_a_symlink_named_pabot_results_is_not_followed(tmp_path: Path) -> None:
    elsewhere = _pabot_left(tmp_path / "elsewhere")
    out = tmp_path / "out"
    out.mkdir()
    (out / "pabot_results").symlink_to(elsewhere, target_is_directory=True)
    assert clear_pabot_results(out) is None
    assert (elsewhere / "pabot_manager.log").exists()


def test_missing_output_directory(tmp_path: Path) -> None:
    assert clear_pabot_results(tmp_path / "missing") is None


def test_removed_line_names_pabot_results(tmp_path: Path) -> None:
    removed = [tmp_path / "a.json", tmp_path / "output.xml", tmp_path / "pabot_results"]
    line = removed_line(tmp_path, removed)
    expected = "removed the earlier run's 1 result record(s), output.xml, pabot_results/"
    assert line == f"{tmp_path}: {expected}"
