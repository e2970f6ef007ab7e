"""Fixtures shared by the command-line tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import ROOT, CliCall, CliRun
from trend_helpers import write_runs

from ndrpdr.cli.main import main


@pytest.fixture(scope="session")
def trend_runs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Record directories of nightly runs on the simulator (``trend_helpers``), made once."""
    return write_runs(tmp_path_factory.mktemp("trend-runs"))


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> CliCall:
    """``ndrpdr ARGS`` through ``main(argv)`` in this process, from the repository root, as
    ``run_cli`` runs it in a child process: a new interpreter per call costs far more than
    the command (test_cli_subprocess keeps the real child processes)."""
    monkeypatch.chdir(ROOT)

    def call(*args: str) -> CliRun:
        capsys.readouterr()  # only this call's output
        try:
            status = main(list(args))
        except SystemExit as exc:  # argparse: --help, bad usage
            status = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
        out, err = capsys.readouterr()
        return CliRun(status, out, err)

    return call
