"""The suites the manual shows are suites: each dry-runs where the manual puts it.

A literal block of README.rst or docs/*.rst that begins with ``*** Settings
***`` is a suite written by hand; the manual puts such a suite in
``suites/<kind>/``, so it is written to a folder that deep under a temporary
copy of the layout (``resources/`` linked in) and dry-run by Robot: its
settings, template and rows must work, and its ``Resource`` paths must lead
from ``suites/<kind>/`` to a file (checked first and on their own: Robot
would also find ``../resources/...`` through Python's path, whose
``libraries`` is one folder below the project root). A failure names
the file and the line of the block.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from manual_commands import MANUAL, ROOT, literal_blocks
from robot_runner import run_robot

#: Where the manual puts a suite written by hand, under the project root.
SUITE_FOLDER = ("suites", "ip4")


def _suites() -> list[tuple[Path, int, str]]:
    """(page, line, text) of each suite the manual shows."""
    found = []
    for page in MANUAL:
        for line, body in literal_blocks(page.read_text(encoding="utf-8")):
            lines = [b for b in body if b.strip()]
            if lines and lines[0].strip() == "*** Settings ***":
                indent = len(lines[0]) - len(lines[0].lstrip())
                found.append((page, line, "\n".join(b[indent:] for b in body) + "\n"))
    return found


SUITES = _suites()


def test_the_manual_shows_a_suite() -> None:
    assert SUITES, "docs/running.rst's suite written by hand"


@pytest.mark.parametrize(
    ("page", "line", "text"), SUITES, ids=[f"{p.name}:{n}" for p, n, _ in SUITES]
)
def test_each_suite_dry_runs_in_a_suite_folder(
    page: Path, line: int, text: str, tmp_path: Path
) -> None:
    folder = ROOT.joinpath(*SUITE_FOLDER)
    where = f"{page.relative_to(ROOT)}:{line}: the suite"
    for resource in re.findall(r"^Resource +(.+?)\s*$", text, re.MULTILINE):
        # Robot would also find it on Python's path (libraries/../resources): not a suite's way
        assert (folder / resource).is_file(), f"{where}: no {resource} from {folder}/"
    (tmp_path / "resources").symlink_to(ROOT / "resources")
    suite = tmp_path.joinpath(*SUITE_FOLDER, "example.robot")
    suite.parent.mkdir(parents=True)
    suite.write_text(text)
    done = run_robot(
        ["--dryrun", "--outputdir", str(tmp_path / "out"), "--console", "quiet", str(suite)]
    )
    said = done.stdout + done.stderr
    assert done.returncode == 0, f"{where} fails a dry run in {'/'.join(SUITE_FOLDER)}/:\n{said}"
    assert "[ ERROR ]" not in said and "[ WARN ]" not in said, f"{where}:\n{said}"
