"""``ndrpdr summary output.xml``: a header, one line per test, status 1 when a test failed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import ROOT, run_cli

from ndrpdr.cli.main import EXIT_BROKEN_PIPE, main
from ndrpdr.cli.summary_cmd import summary_lines
from ndrpdr.outdir.outputxml import TestOutcome, read_outcomes
from robot_runner import robot_output

_MIXED = """\
*** Test Cases ***
Passes
    Set Test Metadata    NDR_LOWER    2500000
    Set Test Metadata    PDR_LOWER    3000000.5

Fails
    Fail    boom\\nand a second line

Is Skipped
    Skip    not here
"""

_PASS_AND_SKIP = """\
*** Test Cases ***
Passes
    No Operation

Is Skipped
    Skip    not here
"""


def _suite(directory: Path, text: str) -> Path:
    path = directory / "mixed.robot"
    path.write_text(text)
    return robot_output(directory, [str(path)])[1]


@pytest.fixture(scope="module")
def passing_output(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The 64 B NDRPDR and MRR tests of the project's suites, on the simulator."""
    directory = tmp_path_factory.mktemp("passing")
    _, output = robot_output(
        directory,
        [
            "--include",
            "64B AND 1C",
            "--variable",
            "MRR_TRIALS:2",
            str(ROOT / "suites" / "ip4" / "ethip4-ip4base-ndrpdr.robot"),
            str(ROOT / "suites" / "ip4" / "ethip4-ip4base-mrr.robot"),
        ],
    )
    return output


@pytest.fixture(scope="module")
def mixed_output(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _suite(tmp_path_factory.mktemp("mixed"), _MIXED)


def _summary(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str], str]:
    status = main(["summary", str(path)])
    out, err = capsys.readouterr()
    return status, out.splitlines(), err


def _check_frame(lines: list[str], outcomes: list[TestOutcome]) -> None:
    """Header, rule, one line per test starting with its name, and the closing count."""
    header, rule, *rows, total = lines
    assert header.startswith("Test ")
    for title in ("Status", "NDR lower", "PDR lower", "MRR avg", "Soak avg"):
        assert title in header
    assert rule == "-" * len(header)
    assert len(rows) == len(outcomes)
    for row, outcome in zip(rows, outcomes, strict=True):
        assert row.startswith(outcome.name + " ")
        assert row[len(outcome.name) :].split()[0] == outcome.status
    passed = sum(o.status == "PASS" for o in outcomes)
    assert total == f"{len(outcomes)} tests, {passed} passed; rates aggregate over directions"


def test_passing_run(passing_output: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, lines, err = _summary(passing_output, capsys)
    assert status == 0, err
    assert err == ""
    outcomes = read_outcomes(passing_output)
    assert [o.name for o in outcomes] == [
        "64B-1c-ethip4-ip4base-ndrpdr",
        "64B-1c-ethip4-ip4base-mrr",
    ]
    _check_frame(lines, outcomes)
    ndrpdr, mrr = outcomes
    ndrpdr_row, mrr_row = lines[2], lines[3]
    for key in ("NDR_LOWER", "PDR_LOWER"):
        value = ndrpdr.number(key)
        assert value is not None
        assert f"{value / 1e6:.4f} Mpps" in ndrpdr_row
    assert ndrpdr_row.count("Mpps") == 2  # no MRR column for a search
    average = mrr.number("MRR_AVG")
    assert average is not None
    assert mrr_row.endswith(f"{average / 1e6:.4f} Mpps")
    assert mrr_row.count("Mpps") == 1
    assert lines[-1].startswith("2 tests, 2 passed")


def test_failed_test_gives_status_1(mixed_output: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, lines, _ = _summary(mixed_output, capsys)
    assert status == 1
    outcomes = read_outcomes(mixed_output)
    _check_frame(lines, outcomes)
    passes, fails, skipped = lines[2:5]
    assert "2.5000 Mpps" in passes
    assert "3.0000 Mpps" in passes
    assert fails.split()[:2] == ["Fails", "FAIL"]
    assert fails.endswith("  boom")  # the first line of the message only
    assert "second line" not in "\n".join(lines)
    assert skipped.split()[:2] == ["Is", "Skipped"]
    assert "SKIP" in skipped
    assert skipped.endswith("not here")
    assert lines[-1].startswith("3 tests, 1 passed")


def test_skipped_tests_do_not_fail_the_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = _suite(tmp_path, _PASS_AND_SKIP)
    status, lines, _ = _summary(output, capsys)
    assert status == 0
    assert lines[-1].startswith("2 tests, 1 passed")


def test_summary_lines_without_tests() -> None:
    lines = summary_lines([])
    assert len(lines) == 3
    assert lines[0].startswith("Test  Status")
    assert lines[-1].startswith("0 tests, 0 passed")


def test_long_test_names_widen_the_column() -> None:
    name = "a-very-long-test-name-" * 3
    outcome = TestOutcome("S", name, "PASS", "", {"NDR_LOWER": "1000000"}, ())
    header, _, row, _ = summary_lines([outcome])
    assert header.index("Status") == row.index("PASS") == len(name) + 2
    assert row.endswith("1.0000 Mpps")


@pytest.mark.parametrize(
    ("content", "error"),
    [
        (None, "cannot read"),
        ("not xml", "not XML"),
        ("<html/>", "not a Robot Framework output.xml"),
    ],
)
def test_bad_output_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | None, error: str
) -> None:
    path = tmp_path / "output.xml"
    if content is not None:
        path.write_text(content)
    status, lines, err = _summary(path, capsys)
    assert status == 1
    assert lines == []
    assert err.startswith(f"ndrpdr summary: {path}: {error}")


def test_summary_in_a_child_process(mixed_output: Path) -> None:
    process = run_cli("summary", str(mixed_output))
    assert process.returncode == 1, process.stderr
    lines = process.stdout.splitlines()
    assert lines[0].startswith("Test ")
    assert len(lines) == 2 + 3 + 1
    assert "boom" in process.stdout


def test_summary_into_a_pipe_closed_early(mixed_output: Path) -> None:
    """``ndrpdr summary | head -0``: the reader closes the pipe before the first line; the
    command ends quietly with 141 (128 + SIGPIPE), no BrokenPipeError traceback."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "libraries")}
    read, write = os.pipe()
    with subprocess.Popen(
        [sys.executable, "-m", "ndrpdr", "summary", str(mixed_output)],
        cwd=ROOT,
        env=env,
        stdout=write,
        stderr=subprocess.PIPE,
        text=True,
    ) as process:
        os.close(write)
        os.close(read)  # the reader is gone before the child writes anything
        _, stderr = process.communicate(timeout=60)
    assert process.returncode == EXIT_BROKEN_PIPE, stderr
    assert "Traceback" not in stderr and "BrokenPipeError" not in stderr, stderr


def test_summary_into_head(mixed_output: Path) -> None:
    """A real shell pipe into ``head -1``: the first line arrives, the pipeline ends cleanly."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "libraries")}
    command = f"{sys.executable} -m ndrpdr summary {mixed_output} | head -1"
    process = subprocess.run(
        ["bash", "-c", command],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert process.stdout.startswith("Test "), process.stdout
    assert "Traceback" not in process.stderr, process.stderr
