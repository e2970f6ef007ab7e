"""README.rst (short, the two commands, every link into docs/ resolving) and the manual's facts."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ndrpdr.families.registry import builtin_families
from ndrpdr.families.table import suites

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.rst"
#: README's size limit [bytes]: a quick start (what it is, install, the two commands, a first
#: suite, the picture, links into the manual); the rest is in the manual.
MAX_BYTES = 8_000
#: A reStructuredText link whose target is a path in docs/: `text <docs/...>`_
_DOCS_LINK = re.compile(r"<(docs/[^>\s]+)>`_")
#: The manual's pages (docs/<name>.rst) that README must link to. Not "search": Sphinx
#: reserves that name (with genindex, modindex) for its own search page, which would replace it.
PAGES = (
    "getting-started",
    "running",
    "topologies",
    "lab",
    "lab-host",
    "families",
    "csit",
    "search-engine",
    "results",
    "trends",
    "cli",
    "drivers",
    "troubleshooting",
    "architecture",
    "contributing",
)


def _readme() -> str:
    return README.read_text(encoding="utf-8")


def test_readme_is_short() -> None:
    size = README.stat().st_size
    assert size <= MAX_BYTES, f"README.rst is {size} bytes; keep it at most {MAX_BYTES}"


def test_readme_holds_the_two_commands_as_literal_blocks() -> None:
    lines = _readme().splitlines()
    main_job = "    bin/run-suites"
    tests = "    python3 -m pip install tox==4.67.13 && python3 -m tox -e ci"
    assert main_job in lines
    assert tests in lines
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert tests.split("&& ")[1] in ci, ".ci/run must run README's test command"


def test_readme_and_ci_count_the_tests_and_families_the_suites_hold() -> None:
    """README's main command and .ci/run's comment say how many tests the generated suites hold."""
    families = builtin_families()
    counts = (sum(len(s.rows) for s in suites(families)), len(families))
    readme = re.search(r"the (\d+) tests \((\d+) families", " ".join(_readme().split()))
    ci = re.search(r"(\d+) tests of (\d+) families", " ".join(
        (ROOT / ".ci" / "run").read_text(encoding="utf-8").replace("#", " ").split()))  # fmt: skip
    assert readme and ci, "README.rst and .ci/run must say 'N tests (M families' / 'N tests of M'"
    assert (int(readme[1]), int(readme[2])) == counts, "README.rst's count of tests"
    assert (int(ci[1]), int(ci[2])) == counts, ".ci/run's count of tests"


def test_every_docs_link_in_the_readme_resolves_to_a_file() -> None:
    links = _DOCS_LINK.findall(_readme())
    assert links, "README.rst links to no page of docs/"
    missing = [link for link in links if not (ROOT / link).is_file()]
    assert not missing, f"README.rst links to missing files: {missing}"


def test_readme_links_every_page_of_the_manual() -> None:
    linked = set(_DOCS_LINK.findall(_readme()))
    assert {f"docs/{page}.rst" for page in PAGES} <= linked
    pages = {path.stem for path in (ROOT / "docs").glob("*.rst")}
    assert pages == {*PAGES, "index"}, "a page of docs/ is not in README's list (or PAGES)"


def test_readme_states_the_test_count_once() -> None:
    # Other changes update the count of tests; one place keeps their merges simple.
    assert len(re.findall(r"\b\d+ tests \(\d+ families", _readme())) == 1


def test_the_architecture_page_lists_the_layers_import_linter_checks() -> None:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contract = next(
        c
        for c in config["tool"]["importlinter"]["contracts"]
        if c.get("containers") == ["ndrpdr"] and c["type"] == "layers"
    )
    layers = [set(re.split(r"\s*[|:]\s*", layer.strip())) for layer in contract["layers"]]
    page = (ROOT / "docs" / "architecture.rst").read_text(encoding="utf-8")
    section = page.split("\nLayers\n------\n", 1)[1].split("\n\n``topology``", 1)[0]
    items = re.split(r"\n\d+\. ", "\n" + section.split("\n\n", 1)[1])[1:]
    listed = [set(re.findall(r"``(\w+)``", item)) for item in items]
    assert listed == layers[::-1], "docs/architecture.rst's layers differ from pyproject's"
