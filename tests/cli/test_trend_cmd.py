"""``ndrpdr trend``: record directories of real simulated nightly runs in, one HTML page out."""

from __future__ import annotations

from pathlib import Path

import pytest
from trend_helpers import FLAT, NIGHTS, STEP_NIGHT, STEPPED

from ndrpdr.cli.main import main


@pytest.fixture
def runs(trend_runs: list[Path]) -> list[Path]:
    return trend_runs


def test_the_page_has_a_chart_per_test_and_the_stepped_test_in_the_regressions(
    runs: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report" / "trend.html"
    assert main(["trend", *map(str, runs), "-o", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    assert page.count('<svg xmlns="http://www.w3.org/2000/svg" class="trend-plot"') == 3
    assert page.count('class="latency-plot"') == 1
    table = page[page.index('id="regressions"') : page.index('id="latest"')]
    assert STEPPED.name in table and f"nightly-{STEP_NIGHT:03d}" in table
    assert all(test.name not in table for test in FLAT)
    printed = capsys.readouterr().out
    assert f"3 tests, {NIGHTS} runs" in printed and str(out) in printed


def test_since_names_the_last_good_run_and_an_unknown_one_is_refused(
    runs: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "trend.html"
    late = f"nightly-{NIGHTS - 3:03d}"
    assert main(["trend", *map(str, runs), "-o", str(out), "--since", late]) == 0
    page = out.read_text(encoding="utf-8")
    table = page[page.index('id="regressions"') : page.index('id="latest"')]
    assert STEPPED.name not in table  # the step came before the run named
    assert f"<b>{late}</b>" in page
    assert main(["trend", *map(str, runs), "-o", str(out), "--since", "nightly-999"]) == 2
    assert "--since 'nightly-999' is not a run" in capsys.readouterr().err


def test_a_path_that_is_no_run_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["trend", str(empty), "-o", str(tmp_path / "t.html")]) == 2
    assert f"{empty}: not a results directory" in capsys.readouterr().err
    assert not (tmp_path / "t.html").exists()


def test_runs_in_directories_of_the_same_name_keep_apart(
    trend_runs: list[Path], tmp_path: Path
) -> None:
    """Archived runs often sit as ``<build>/results``: the build number tells them apart."""
    import shutil

    from ndrpdr.trend.trendruns import read_runs, run_ids

    copies = []
    for build, run in enumerate(trend_runs[:3], start=410):
        copy = tmp_path / str(build) / "results"
        shutil.copytree(run, copy)
        copies.append(copy)
    assert run_ids(copies) == ["410/results", "411/results", "412/results"]
    found = read_runs(copies)
    assert {s.run_id for s in found.samples} == {"410/results", "411/results", "412/results"}
    assert run_ids(trend_runs[:2]) == [trend_runs[0].name, trend_runs[1].name]


def test_the_store_gives_the_same_trend_as_the_record_directories(
    runs: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``ndrpdr ingest`` each run into a SQLite store, then ``ndrpdr trend --store`` alone."""
    store = tmp_path / "store.sqlite"
    for run in runs:
        assert main(["ingest", "--store", str(store), "--run-id", run.name, str(run)]) == 0
    from_dirs, from_store = tmp_path / "dirs.html", tmp_path / "store.html"
    assert main(["trend", *map(str, runs), "-o", str(from_dirs)]) == 0
    assert main(["trend", "--store", str(store), "-o", str(from_store)]) == 0
    dirs_page, store_page = (p.read_text(encoding="utf-8") for p in (from_dirs, from_store))
    for page in (dirs_page, store_page):
        assert page.count('class="trend-plot"') == 3
        assert page.count('class="latency-plot"') == 1
        table = page[page.index('id="regressions"') : page.index('id="latest"')]
        assert STEPPED.name in table and f"nightly-{STEP_NIGHT:03d}" in table
    # Both at once: each run once, not twice.
    assert main(["trend", "--store", str(store), *map(str, runs), "-o", str(from_store)]) == 0
    assert f"3 tests, {NIGHTS} runs" in capsys.readouterr().out.splitlines()[-1]
    assert main(["trend", "-o", str(from_store)]) == 2
    assert "give RUN paths, --store URL, or both" in capsys.readouterr().err
