"""CSIT's text for the tests (its test_case schema, suites, profiles), from outside the repository.

CSIT's text is never in the repository: tests read it from a CSIT git
directory at run time (``csit_git_or_skip``, ``git_show``; the suites' rows in
``tests/families``, the TRex profile comparison in ``tests/csit``).

The schema comes from, first found wins:

1. ``NDRPDR_CSIT_SCHEMA``: the path of a ``test_case.schema.yaml``;
2. ``NDRPDR_CSIT_GIT``: a CSIT git directory (a clone or a bare mirror),
   read with ``git show HEAD:resources/model_schema/test_case.schema.yaml``;
3. the bare mirror of FDio/csit on the project's machine, when it exists.

None found: the tests that need it skip, saying how to provide it, unless
``NDRPDR_REQUIRE_CSIT_SCHEMA=1`` (CI sets it where the mirror exists): then
they fail. A schema of another model version than 1.5.1 always fails them
(``ndrpdr.csitexport.csitschema`` checks its ``$id``).

CSIT's suite files and job specifications (``tests/csit_suites.py``) come from a git
directory only: ``NDRPDR_CSIT_GIT``, else the mirror (``csit_git_or_skip``),
with the same skip, or failure under ``NDRPDR_REQUIRE_CSIT_SCHEMA=1``.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any, NoReturn

import pytest

from ndrpdr.csitexport.csitschema import CSIT_SCHEMA_PATH, load_csit_schema, schema_from_text

#: The bare mirror of FDio/csit on the project's machine.
MIRROR = Path("/work/.mirror/FDio+csit/repo")

HOW = (
    "CSIT's test_case schema not found: set NDRPDR_CSIT_SCHEMA to a test_case.schema.yaml"
    f" (model 1.5.1), or NDRPDR_CSIT_GIT to a clone of https://github.com/FDio/csit"
    f" (its {CSIT_SCHEMA_PATH} is read with git show)"
)

#: What to do when no CSIT git directory is found (its suite files are read with git).
HOW_GIT = (
    "CSIT's suites not found: set NDRPDR_CSIT_GIT to a clone of https://github.com/FDio/csit"
    f" (its tests/ are read with git), or mirror it at {MIRROR}"
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


def _from_git(git_dir: Path) -> dict[str, Any]:
    text = git_show(git_dir, CSIT_SCHEMA_PATH)
    return schema_from_text(text, f"{git_dir}:HEAD:{CSIT_SCHEMA_PATH}")


def find_csit_git() -> Path | None:
    """CSIT's git directory: ``NDRPDR_CSIT_GIT``, else the mirror when it exists, else None."""
    git_dir = os.environ.get("NDRPDR_CSIT_GIT")
    if git_dir:
        return Path(git_dir)
    return MIRROR if MIRROR.is_dir() else None


def find_csit_schema() -> dict[str, Any] | None:
    """The schema from the first source found (see the module docstring), else None."""
    path = os.environ.get("NDRPDR_CSIT_SCHEMA")
    if path:
        return load_csit_schema(path)
    git_dir = find_csit_git()
    return None if git_dir is None else _from_git(git_dir)


def _skip_or_fail(how: str) -> NoReturn:
    if os.environ.get("NDRPDR_REQUIRE_CSIT_SCHEMA") == "1":
        pytest.fail(how + " (NDRPDR_REQUIRE_CSIT_SCHEMA=1 requires it)")
    pytest.skip(how)


def csit_schema_or_skip() -> dict[str, Any]:
    """The schema; skips the test (fails it with NDRPDR_REQUIRE_CSIT_SCHEMA=1) when none."""
    schema = find_csit_schema()
    if schema is None:
        _skip_or_fail(HOW)
    return schema


def csit_git_or_skip() -> Path:
    """CSIT's git directory; skips the test (fails with NDRPDR_REQUIRE_CSIT_SCHEMA=1) if none."""
    git_dir = find_csit_git()
    if git_dir is None:
        _skip_or_fail(HOW_GIT)
    return git_dir
