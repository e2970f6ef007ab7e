"""The runtime dependencies: a small base and extras, one pin each, said the same everywhere.

pyproject.toml's base dependencies and its extra ``all`` are what
requirements.txt pins (``bin/run-suites`` installs requirements.txt); each
optional package of ``ndrpdr.optionaldeps`` is in the extra its error
names; every tox env that installs the package takes ``all``. And the
one-line error an optional part gives when it is missing.
"""

from __future__ import annotations

import configparser
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from ndrpdr.cli.main import main
from ndrpdr.optionaldeps import (
    OPTIONAL_PARTS,
    MissingPartError,
    missing_message,
    optional_part,
    require,
)

ROOT = Path(__file__).resolve().parents[2]
#: The extras that add a runtime part (the others add tools: test, lint, bench, docs).
RUNTIME_EXTRAS = ("local", "lab", "store")
#: psycopg's compiled build: installed with psycopg, never imported by name.
BINARY_BUILDS = {"psycopg-binary"}


def _pyproject() -> dict[str, Any]:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    project: dict[str, Any] = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return project


def _pins(lines: list[str]) -> dict[str, str]:
    """``{normalised name: version}`` of ``name==version`` lines; each name once."""
    pins: dict[str, str] = {}
    for line in lines:
        name, _, version = line.partition("==")
        assert version, f"{line!r} is not pinned (name==version)"
        key = re.sub(r"[-_.]+", "-", name).lower()
        assert key not in pins, f"{name} is listed twice"
        pins[key] = version
    return pins


def _requirements() -> dict[str, str]:
    text = (ROOT / "requirements.txt").read_text()
    lines = [line.split("#")[0].strip() for line in text.splitlines()]
    return _pins([line for line in lines if line])


def test_requirements_txt_is_the_base_and_every_extra() -> None:
    project = _pyproject()
    base = _pins(project["dependencies"])
    everything = _pins(project["optional-dependencies"]["all"])
    assert not base.keys() & everything.keys(), "a base dependency is in the extra all too"
    assert _requirements() == base | everything


def test_all_is_every_runtime_extra() -> None:
    extras = _pyproject()["optional-dependencies"]
    everything = _pins(extras["all"])
    joined: dict[str, str] = {}
    for name in RUNTIME_EXTRAS:
        for package, version in _pins(extras[name]).items():
            assert joined.setdefault(package, version) == version, f"{package}: two pins"
    assert joined == everything


def test_each_optional_part_is_pinned_in_the_extra_its_error_names() -> None:
    project = _pyproject()
    base = _pins(project["dependencies"])
    for module, part in OPTIONAL_PARTS.items():
        package = part.package.lower()
        assert package in _pins(project["optional-dependencies"][part.extra]), module
        assert package not in base, f"{part.package} is optional but in the base"
    named = {part.package.lower() for part in OPTIONAL_PARTS.values()}
    assert set(_pins(project["optional-dependencies"]["all"])) - BINARY_BUILDS == named


def test_every_tox_env_that_installs_the_package_takes_all() -> None:
    tox = configparser.ConfigParser(interpolation=None)
    tox.read(ROOT / "tox.ini")
    envs = [s for s in tox.sections() if s.startswith("testenv")]
    assert "testenv:ci" in envs
    for env in envs:
        if tox[env].get("skip_install", "false").strip() == "true":
            continue
        extras = tox[env].get("extras", tox["testenv"]["extras"]).split()
        assert "all" in extras, f"tox.ini [{env}]: extras lack all (the optional parts)"


def test_a_missing_optional_module_becomes_one_line_naming_the_extra() -> None:
    with pytest.raises(MissingPartError) as caught, optional_part("the results store"):
        raise ModuleNotFoundError("No module named 'sqlalchemy.engine'", name="sqlalchemy.engine")
    assert str(caught.value) == "the results store needs SQLAlchemy: pip install 'ndrpdr[store]'"
    with pytest.raises(MissingPartError) as bigger, optional_part("a lab in a box", extra="lab"):
        raise ModuleNotFoundError("No module named 'cryptography'", name="cryptography")
    assert str(bigger.value).endswith("needs cryptography: pip install 'ndrpdr[lab]'")


def test_a_missing_module_that_is_no_optional_part_is_raised_as_it_is() -> None:
    with pytest.raises(ModuleNotFoundError, match="yaml"), optional_part("reading a topology"):
        raise ModuleNotFoundError("No module named 'yaml'", name="yaml")


def test_require_names_the_first_missing_part(monkeypatch: pytest.MonkeyPatch) -> None:
    absent = "ndrpdr_test_no_such_module"
    monkeypatch.setitem(OPTIONAL_PARTS, absent, OPTIONAL_PARTS["paramiko"])
    require(("json",), "nothing")  # installed: no error
    with pytest.raises(MissingPartError) as caught:
        require(("json", absent), "a lab in a box", extra="lab")
    assert str(caught.value) == "a lab in a box needs paramiko: pip install 'ndrpdr[lab]'"


def test_the_cli_says_an_unwrapped_missing_part_in_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A command that imports an optional part without optional_part(...) still exits 1 with
    one line naming the extra, no traceback (ndrpdr.cli.main)."""
    from ndrpdr.cli import summary_cmd

    def run(_args: object) -> int:
        raise ModuleNotFoundError("No module named 'scapy'", name="scapy")

    monkeypatch.setattr(summary_cmd, "run", run)
    assert main(["summary", "output.xml"]) == 1
    err = capsys.readouterr().err
    assert err == missing_message("scapy", "ndrpdr summary") + "\n"
    assert err == "ndrpdr summary needs scapy: pip install 'ndrpdr[local]'\n"


def test_a_missing_postgresql_driver_names_the_store_extra(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """psycopg not installed (None in sys.modules: importing it fails as for a missing one);
    the store is opened before any record is read, so an empty directory will do."""
    for module in [m for m in sys.modules if m.partition(".")[0] == "psycopg"] + ["psycopg"]:
        monkeypatch.setitem(sys.modules, module, None)
    url = "postgresql://ndrpdr:hunter2@db.invalid/ndrpdr"
    assert main(["ingest", str(tmp_path), "--store", url]) == 1
    assert capsys.readouterr().err == (
        "ndrpdr ingest: store postgresql+psycopg://ndrpdr:***@db.invalid/ndrpdr needs psycopg: "
        "pip install 'ndrpdr[store]'\n"
    )
