"""``ndrpdr ingest``: results directories into the store, once; default store; errors named."""

from __future__ import annotations

from pathlib import Path

import pytest
from pgcluster import PASSWORD
from store_helpers import MRR_TEST, NDRPDR_TEST, mrr_record, search_record, with_run, write_run

from ndrpdr.cli.main import main
from ndrpdr.store import open_store
from ndrpdr.store.ingest import fallback_run_id

pytestmark = pytest.mark.real  # a real system part: tests/testkinds.py


def _two_runs(tmp_path: Path) -> tuple[Path, Path]:
    """A results directory of records naming run nightly-7, and one of older records."""
    named = write_run(
        tmp_path / "night7" / "results",
        {
            NDRPDR_TEST: with_run(
                search_record(), "nightly-7", "2026-11-24T22:00:00Z", NDRPDR_TEST
            ),
            MRR_TEST: with_run(mrr_record(), "nightly-7", "2026-11-24T22:00:00Z", MRR_TEST),
        },
    )
    old = write_run(tmp_path / "old" / "results", {NDRPDR_TEST: search_record()})
    return named, old


def test_ingest_twice_adds_nothing_the_second_time(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("NDRPDR_STORE", raising=False)
    named, old = _two_runs(tmp_path)
    assert main(["ingest", str(named), str(old)]) == 0
    first = capsys.readouterr().out.splitlines()
    legacy = fallback_run_id({NDRPDR_TEST: search_record()})
    store_file = tmp_path / "night7" / "ndrpdr-results.sqlite"  # beside the first directory
    assert first == [
        f"{named}: 2 records of run nightly-7, 2 new in the store",
        f"{old}: 1 records of run {legacy}, 1 new in the store",
        f"store: sqlite:///{store_file}",
    ]
    assert main(["ingest", str(named), str(old)]) == 0
    second = capsys.readouterr().out
    assert "2 records of run nightly-7, 0 new" in second and "1 records of run legacy-" in second
    with open_store(str(store_file)) as store:
        assert [run.id for run in store.runs()] == ["nightly-7", legacy]  # by start time
        assert len(store.samples()) == 3


def test_the_store_from_the_environment_and_a_given_run_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, old = _two_runs(tmp_path)
    store_file = tmp_path / "team.sqlite"
    monkeypatch.setenv("NDRPDR_STORE", f"sqlite:///{store_file}")
    assert main(["ingest", str(old), "--run-id", "jenkins-41"]) == 0
    assert "1 records of run jenkins-41, 1 new" in capsys.readouterr().out
    with open_store(str(store_file)) as store:
        assert [s.run_id for s in store.samples()] == ["jenkins-41"]


def test_a_path_without_records_is_named_and_the_others_ingested(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    named, _ = _two_runs(tmp_path)
    missing = tmp_path / "no-such-results"
    empty = tmp_path / "empty"
    empty.mkdir()
    store = f"sqlite:///{tmp_path / 's.sqlite'}"
    assert main(["ingest", str(missing), str(empty), str(named), "--store", store]) == 2
    out, err = capsys.readouterr()
    assert f"ndrpdr ingest: {missing}: no such file or directory" in err
    assert f"ndrpdr ingest: {empty}: not a results directory" in err
    assert "2 records of run nightly-7, 2 new" in out


def test_a_sqlite_file_in_a_missing_directory_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    named, _ = _two_runs(tmp_path)
    target = tmp_path / "nowhere" / "s.sqlite"
    assert main(["ingest", str(named), "--store", f"sqlite:///{target}"]) == 1
    err = capsys.readouterr().err
    assert f"the directory {target.parent} of the SQLite file does not exist" in err


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("nosuchdb://user:hunter2@host/db", "SQLAlchemy has no database kind 'nosuchdb'"),
        ("mysql+nosuchdriver://u:hunter2@h/d", "SQLAlchemy has no database kind"),
        ("sqlite://user:hunter2@:bad:port/x", "not a database URL"),
    ],
)
def test_a_bad_store_url_is_named_without_its_password(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], url: str, expected: str
) -> None:
    named, _ = _two_runs(tmp_path)
    assert main(["ingest", str(named), "--store", url]) == 1
    captured = capsys.readouterr()
    assert expected in captured.err and "***" in captured.err
    assert "hunter2" not in captured.err + captured.out


def test_ingest_into_postgresql_hides_the_password(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], pg_url: str
) -> None:
    named, old = _two_runs(tmp_path)
    assert main(["ingest", str(named), str(old), "--store", pg_url]) == 0
    assert main(["ingest", str(named), "--store", pg_url]) == 0
    out = capsys.readouterr().out
    assert "2 new in the store" in out and "0 new in the store" in out
    assert "store: postgresql+psycopg://ndrpdr:***@/ndrpdr" in out
    assert PASSWORD not in out
    with open_store(pg_url) as store:
        assert len(store.samples()) == 3


def test_a_wrong_postgresql_password_is_refused_and_not_shown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], pg_url: str
) -> None:
    named, _ = _two_runs(tmp_path)
    wrong = pg_url.replace(PASSWORD, "not-the-password-42")
    assert main(["ingest", str(named), "--store", wrong]) == 1
    captured = capsys.readouterr()
    assert "password authentication failed" in captured.err
    assert "store postgresql+psycopg://ndrpdr:***@/ndrpdr" in captured.err
    assert "not-the-password-42" not in captured.err + captured.out


def test_no_store_is_made_when_no_path_exists(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store_file = tmp_path / "s.sqlite"
    missing = tmp_path / "results"
    assert main(["ingest", str(missing), "--store", str(store_file)]) == 2
    assert f"{missing}: no such file or directory" in capsys.readouterr().err
    assert not store_file.exists()
