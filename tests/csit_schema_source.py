"""CSIT's test_case schema (and CSIT's other files) for the tests, from outside the repository.

CSIT's text is never in the repository: tests read it from a CSIT git
directory at run time (``csit_git_or_skip`` / ``git_show``; the TRex
profile comparison in ``tests/csit`` reads suites and profiles so).

Where it comes from, first found wins:

1. ``NDRPDR_CSIT_SCHEMA``: the path of a ``test_case.schema.yaml``;
2. ``NDRPDR_CSIT_GIT``: a CSIT git directory (a clone or a bare mirror),
   read with ``git show HEAD:resources/model_schema/test_case.schema.yaml``;
3. the bare mirror of FDio/csit on the project's machine, when it exists.

None found: the tests that need it skip, saying how to provide it, unless
``NDRPDR_REQUIRE_CSIT_SCHEMA=1`` (CI sets it where the mirror exists): then
they fail. A schema of another model version than 1.5.1 always fails them
(``ndrpdr.results.csit.csitschema`` checks its ``$id``).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from ndrpdr.results.csit.csitschema import CSIT_SCHEMA_PATH, load_csit_schema, schema_from_text

#: The bare mirror of FDio/csit on the project's machine.
MIRROR = Path("/work/.mirror/FDio+csit/repo")

HOW = (
    "CSIT's test_case schema not found: set NDRPDR_CSIT_SCHEMA to a test_case.schema.yaml"
    f" (model 1.5.1), or NDRPDR_CSIT_GIT to a clone of https://github.com/FDio/csit"
    f" (its {CSIT_SCHEMA_PATH} is read with git show)"
)


GIT_HOW = (
    "no CSIT git directory: set NDRPDR_CSIT_GIT to a clone of https://github.com/FDio/csit"
    f" (or keep its bare mirror at {MIRROR})"
)


def git_show(git_dir: Path, path: str) -> str:
    """The text of ``path`` at HEAD of the CSIT git directory (the test fails when absent)."""
    spec = f"HEAD:{path}"
    process = subprocess.run(
        ["git", "-C", str(git_dir), "show", spec],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    if process.returncode != 0:
        pytest.fail(f"git -C {git_dir} show {spec}: {process.stderr.strip()}")
    return process.stdout


def find_csit_git() -> Path | None:
    """``NDRPDR_CSIT_GIT``, else the mirror when it exists, else None."""
    git_dir = os.environ.get("NDRPDR_CSIT_GIT")
    if git_dir:
        return Path(git_dir)
    return MIRROR if MIRROR.is_dir() else None


def csit_git_or_skip() -> Path:
    """CSIT's git directory; skips the test (fails it with NDRPDR_REQUIRE_CSIT_SCHEMA=1) when none."""
    git_dir = find_csit_git()
    if git_dir is None:
        if os.environ.get("NDRPDR_REQUIRE_CSIT_SCHEMA") == "1":
            pytest.fail(GIT_HOW + " (NDRPDR_REQUIRE_CSIT_SCHEMA=1 requires it)")
        pytest.skip(GIT_HOW)
    return git_dir


def _from_git(git_dir: Path) -> dict[str, Any]:
    text = git_show(git_dir, CSIT_SCHEMA_PATH)
    return schema_from_text(text, f"{git_dir}:HEAD:{CSIT_SCHEMA_PATH}")


def find_csit_schema() -> dict[str, Any] | None:
    """The schema from the first source found (see the module docstring), else None."""
    path = os.environ.get("NDRPDR_CSIT_SCHEMA")
    if path:
        return load_csit_schema(path)
    git_dir = find_csit_git()
    return None if git_dir is None else _from_git(git_dir)


def csit_schema_or_skip() -> dict[str, Any]:
    """The schema; skips the test (fails it with NDRPDR_REQUIRE_CSIT_SCHEMA=1) when none."""
    schema = find_csit_schema()
    if schema is None:
        if os.environ.get("NDRPDR_REQUIRE_CSIT_SCHEMA") == "1":
            pytest.fail(HOW + " (NDRPDR_REQUIRE_CSIT_SCHEMA=1 requires it)")
        pytest.skip(HOW)
    return schema
