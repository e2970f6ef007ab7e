"""The package's shape docs/architecture.rst promises: module and folder sizes, its packages."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIBRARIES = ROOT / "libraries"
#: The longest a module of libraries/ may be [lines].
MAX_MODULE_LINES = 450
#: The most modules a folder of libraries/ may hold (``__init__.py`` not counted).
MAX_FOLDER_MODULES = 21


def _modules() -> list[Path]:
    return sorted(p for p in LIBRARIES.rglob("*.py") if "__pycache__" not in p.parts)


def test_no_module_is_longer_than_the_limit() -> None:
    long = {
        str(p.relative_to(ROOT)): n
        for p in _modules()
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert not long, f"modules over {MAX_MODULE_LINES} lines (split them by concept): {long}"


def test_no_folder_holds_more_modules_than_the_limit() -> None:
    counts: dict[str, int] = {}
    for p in _modules():
        if p.name != "__init__.py":
            key = str(p.parent.relative_to(ROOT))
            counts[key] = counts.get(key, 0) + 1
    full = {k: n for k, n in counts.items() if n > MAX_FOLDER_MODULES}
    assert not full, f"folders over {MAX_FOLDER_MODULES} modules: {full}"


def test_the_architecture_page_states_the_limits_the_tests_hold() -> None:
    page = (ROOT / "docs" / "architecture.rst").read_text(encoding="utf-8")
    said = re.search(
        r"No folder holds more than (\d+) modules and no module more than\s+(\d+) lines", page
    )
    assert said, "docs/architecture.rst no longer states the folder and module limits"
    assert (int(said[1]), int(said[2])) == (MAX_FOLDER_MODULES, MAX_MODULE_LINES)


def test_topology_is_a_package_and_testbed_is_none() -> None:
    package = LIBRARIES / "ndrpdr"
    assert (package / "topology" / "__init__.py").is_file()
    assert not (package / "testbed").exists(), "ndrpdr.testbed is now ndrpdr.topology"
