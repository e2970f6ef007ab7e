"""The unit / real markers are checked: a unit test that starts a real system part fails."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from robot_runner import ROOT

_MODULE = """
import subprocess

import pytest


@pytest.fixture(scope="module")
def namespaces() -> str:
    return subprocess.run(["ip", "-V"], capture_output=True, text=True, check=False).stdout


def test_starts_ip() -> None:
    subprocess.run(["ip", "-V"], capture_output=True, check=False)


def test_uses_a_fixture_that_started_ip(namespaces: str) -> None:
    pass


def test_starts_only_ordinary_tools() -> None:
    subprocess.run(["true"], check=True)


def test_starts_a_program_no_list_names() -> None:
    subprocess.run(["nproc"], capture_output=True, check=True)


def test_starts_a_program_that_is_not_installed() -> None:
    try:
        subprocess.run(["ndrpdr-no-such-program"], check=False)
    except FileNotFoundError:
        pass


@pytest.mark.real
def test_marked_real_starts_ip() -> None:
    subprocess.run(["ip", "-V"], capture_output=True, check=False)
"""


def _pytest(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    module = tmp_path / "test_kinds_sample.py"
    module.write_text(_MODULE)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
         "-c", str(ROOT / "pyproject.toml"), "--rootdir", str(ROOT), *args, str(module)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *sys.path])},
        check=False,
    )  # fmt: skip


def test_a_unit_test_that_starts_a_real_program_fails_naming_it(tmp_path: Path) -> None:
    done = _pytest(tmp_path)
    out = done.stdout + done.stderr
    assert done.returncode == 1, out
    assert "test_starts_ip is marked unit but started ip" in out
    assert "uses fixture namespaces (started ip)" in out
    assert "add `pytestmark = pytest.mark.real` to its module" in out
    unknown = "test_starts_a_program_no_list_names is marked unit but started nproc, which"
    assert unknown in out
    assert "add nproc to REAL_PROGRAMS (a real system part" in out
    assert "3 failed, 3 passed" in out


def test_the_kinds_select_and_an_empty_kind_is_not_a_failure(tmp_path: Path) -> None:
    real = _pytest(tmp_path, "-m", "real")
    assert real.returncode == 0 and "1 passed, 5 deselected" in real.stdout, real.stdout
    none = _pytest(tmp_path, "-m", "real and unit")
    assert none.returncode == 0, none.stdout
