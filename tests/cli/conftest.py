"""Fixtures shared by the command-line tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from trend_helpers import write_runs


@pytest.fixture(scope="session")
def trend_runs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Record directories of nightly runs on the simulator (``trend_helpers``), made once."""
    return write_runs(tmp_path_factory.mktemp("trend-runs"))
