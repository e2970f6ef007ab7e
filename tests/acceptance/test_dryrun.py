"""Static checks of the Robot side: dry runs, Libdoc, robocop.

``robot --dryrun`` with a topology file that does not exist proves that
importing the library reads nothing; Libdoc shows the keywords by their
exact names, each with an example, and the argument types; robocop finds
nothing in the .robot and .resource files.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from acceptance_helpers import (
    ACCEPTANCE,
    KEYWORDS,
    LIBRARIES,
    RESOURCES,
    ROOT,
    SUITES,
    collect_tests,
    read_output,
    run_python_module,
    run_robot,
)
from robot.api import TestSuiteBuilder

from ndrpdr.families.registry import builtin_families
from ndrpdr.families.table import suite_types, suites
from suite_sample import first_family_per_folder

TYPES = ("Rate", "Duration", "FrameSize", "TrafficProfile")
ROBOT_FILES = ("suites", "resources", "tests/acceptance")


def dry_run(outputdir: Path, *args: str, timeout: float = 120.0) -> None:
    """``robot --dryrun ARGS`` must pass every test and report no errors."""
    done = run_robot(
        outputdir, "--dryrun", "--log", "NONE", "--report", "NONE", *args, timeout=timeout
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "[ ERROR ]" not in done.stderr, done.stderr
    assert "[ WARN ]" not in done.stderr, done.stderr
    result = read_output(outputdir)
    tests = collect_tests(result.suite)
    assert tests
    assert [t.name for t in tests if t.status != "PASS"] == []


def test_the_whole_table_parses_to_its_test_names() -> None:
    """Every generated suite and test (the whole table), read by Robot's own parser."""
    names = sorted(t.name for t in collect_tests(TestSuiteBuilder().build(str(SUITES))))
    assert names == sorted(row.name for s in suites(builtin_families()) for row in s.rows)


def test_dryrun_reads_no_topology(tmp_path: Path) -> None:
    """Every row of the first family of each suites/ folder (``suite_sample``), all its test
    types, passes a dry run with a topology that does not exist.

    So a dry run is the same whatever ``TOPOLOGY`` names: a dry run with each shipped
    topology (25 robot runs, about 40 s of CI) proved nothing more and is gone; the
    topologies themselves are loaded and checked in tests/topology."""
    chosen = first_family_per_folder()
    assert {s.folder for s in chosen} == {p.name for p in SUITES.iterdir() if p.is_dir()}
    dry_run(
        tmp_path, "--variable", "TOPOLOGY:/nonexistent/topology.yaml",
        *(str(SUITES / s.path) for s in chosen), timeout=300,
    )  # fmt: skip
    names = sorted(t.name for t in collect_tests(read_output(tmp_path).suite))
    assert names == sorted(row.name for s in chosen for row in s.rows)


def test_dryrun_of_the_keywords_suite(tmp_path: Path) -> None:
    dry_run(tmp_path, str(ACCEPTANCE / "keywords.robot"))


@pytest.fixture(scope="module")
def spec(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Libdoc's JSON spec of NdrPdrLibrary (with a topology that does not exist)."""
    out = tmp_path_factory.mktemp("libdoc") / "NdrPdrLibrary.json"
    done = run_python_module(
        "robot.libdoc",
        "--format",
        "JSON",
        "--specdocformat",
        "RAW",
        f"{LIBRARIES / 'NdrPdrLibrary'}::/nonexistent/topology.yaml",
        str(out),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    data = json.loads(out.read_text())
    assert isinstance(data, dict)
    return data


def test_libdoc_html(tmp_path: Path) -> None:
    out = tmp_path / "out.html"
    done = run_python_module("robot.libdoc", "libraries/NdrPdrLibrary", str(out))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Error" not in done.stderr
    text = out.read_text(encoding="utf-8")
    assert text.lstrip().lower().startswith("<!doctype html>")
    assert "NdrPdrLibrary" in text
    for name in (*KEYWORDS, *TYPES):
        assert name in text, name


def test_libdoc_keyword_names_are_exact(spec: dict[str, Any]) -> None:
    assert spec["name"] == "NdrPdrLibrary"
    names = [kw["name"] for kw in spec["keywords"]]
    assert sorted(names) == sorted(KEYWORDS)


@pytest.mark.parametrize("name", KEYWORDS)
def test_every_keyword_doc_has_an_example(spec: dict[str, Any], name: str) -> None:
    keyword = next(kw for kw in spec["keywords"] if kw["name"] == name)
    lines = keyword["doc"].splitlines()
    assert lines and lines[0].strip(), f"{name}: no short doc"
    assert "Example:" in lines, f"{name}: no 'Example:' line"
    after = lines[lines.index("Example:") + 1 :]
    assert after and after[0].startswith("| "), f"{name}: no '| ' line after 'Example:'"


def test_custom_types_are_documented(spec: dict[str, Any]) -> None:
    typedocs = {t["name"]: t for t in spec["typedocs"]}
    for name in TYPES:
        assert name in typedocs, name
        assert typedocs[name]["doc"].strip(), f"{name}: no doc"
        assert typedocs[name]["usages"], f"{name}: used by no keyword"
    send = next(kw for kw in spec["keywords"] if kw["name"] == "Send Traffic At Rate For Duration")
    arg_types = {a["name"]: a["type"]["name"] if a["type"] else None for a in send["args"]}
    assert arg_types["rate"] == "Rate"
    assert arg_types["duration"] == "Duration"
    assert arg_types["frame_size"] == "FrameSize"
    assert arg_types["profile"] == "TrafficProfile"
    doc = typedocs["TrafficProfile"]["doc"]
    for family in builtin_families():  # the table of the built-in families, generated
        assert f"``{family.id}``" in doc or f"<code>{family.id}</code>" in doc, family.id
    assert "NDRPDR_FAMILIES" in doc


def _robocop(*args: str) -> str:
    done = run_python_module("robocop", *args, *ROBOT_FILES)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    return output


def test_robocop_check_finds_nothing() -> None:
    assert (ROOT / "pyproject.toml").is_file()  # robocop reads [tool.robocop] there
    assert "No issues found" in _robocop("check")


def test_robocop_format_would_change_nothing() -> None:
    output = _robocop("format", "--check", "--diff")
    assert "Would reformat" not in output


def test_robot_files_checked_exist() -> None:
    assert len(list(SUITES.glob("*/*.robot"))) == sum(
        len(suite_types(f)) for f in builtin_families()
    )
    assert list(RESOURCES.glob("*.resource"))
    assert (ACCEPTANCE / "keywords.robot").is_file()
