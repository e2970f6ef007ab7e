"""Every repository path the manual names exists: suites, topologies, resources, examples...

``tests/test_module_references.py`` checks the Python modules and files the
prose names; this checks the other paths of README.rst and docs/*.rst, in
their text and their literal blocks alike: a path that starts with a folder
of the repository (``suites/ip4/ethip4-ip4base-ndrpdr.robot``,
``topologies/labbox-2n.yaml``, ``examples/testbeds.dat``, ``.ci/run``,
``resources/``) must be a file or folder of it, and a glob
(``topologies/*.yaml``) must match one. A failure names the file, the line
and the path.

Not checked: placeholders and what is not the repository's
(``tests/manual_placeholders.py``: ``lab/dut1.yaml``, ``suites/<kind>/``,
``FILE``, ``results/output.xml``), what git ignores (``docs/_build/html``),
a path inside a longer one (``~/csit/resources/model_schema/...``), and
another project's path: one up to three words after a possessive (CSIT's 32
``tests/vpp/perf/sfdp`` ids, its ``topologies/available/lf_*.yaml``) or
after a git revision (``git show HEAD:resources/...``).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from pathlib import Path

from manual_commands import MANUAL, ROOT
from manual_placeholders import REPOSITORY, ignored, is_placeholder

#: A path beginning with a repository folder, not inside a longer name or path; it ends at
#: a space, quote, bracket or punctuation (a sentence's full stop is not part of it).
_PATH = re.compile(
    r"(?<![\w./~$<-])(?:" + "|".join(re.escape(f) for f in REPOSITORY) + r")/"
    r"[^\s`'\"()\[\],;]*"
)
#: What comes before another project's path: a possessive a few words before (CSIT's 32
#: ``tests/vpp/perf/sfdp`` ids, its ``topologies/...``) or a git revision (``HEAD:resources/``).
_OTHERS = re.compile(r"(?:(?:\w's|\bits)(?:\s+[\w-]+){0,3}\s+\(?(?:``|`|\*)?|\bHEAD:)$")


def manual_paths(path: Path, text: str) -> Iterator[tuple[int, str]]:
    """(line, path) of each repository path the page ``path`` (its ``text``) names."""
    line_starts = [0, *(m.end() for m in re.finditer("\n", text))]
    for match in _PATH.finditer(text):
        name = match[0].rstrip(".:")
        if name.endswith(">") and "<" not in name:
            name = name[:-1]  # the end of a link's target: `text <docs/lab.rst>`_
        if _OTHERS.search(text, max(0, match.start() - 60), match.start()):
            continue
        yield bisect.bisect_right(line_starts, match.start()), name


def _exists(name: str) -> bool:
    if any(c in name for c in "*?"):
        return next(ROOT.glob(name), None) is not None
    return (ROOT / name).exists()


def dangling(files: tuple[Path, ...]) -> list[str]:
    """``file:line: path`` of each repository path named in ``files`` that does not exist."""
    found = [
        (page, line, name)
        for page in files
        for line, name in manual_paths(page, page.read_text(encoding="utf-8"))
        if not is_placeholder(name)
    ]
    outputs = ignored(tuple(sorted({name for _, _, name in found})))
    return [
        f"{page.relative_to(ROOT) if page.is_relative_to(ROOT) else page}:{line}: {name}"
        for page, line, name in found
        if name not in outputs and not _exists(name)
    ]


def test_every_repository_path_the_manual_names_exists() -> None:
    named = [name for page in MANUAL for _, name in manual_paths(page, page.read_text())]
    assert len(named) >= 50, "the manual names repository paths"
    missing = dangling(MANUAL)
    assert not missing, "paths of the manual that do not exist:\n" + "\n".join(missing)


def test_the_rules_on_a_made_up_page(tmp_path: Path) -> None:
    """What the docstrings say is checked, and what is not."""
    page = tmp_path / "page.rst"
    page.write_text(
        "Run ``suites/ip4/ethip4-ip4base-ndrpdr.robot`` with topologies/sim.yaml.\n"
        "Also suites/ip4/no-such.robot, ``--variable TOPOLOGY:topologies/gone.yaml``,\n"
        "topologies/*.yaml and topologies/*.nothing; `a page <docs/lab.rst>`_.\n"
        "Placeholders: lab/dut1.yaml, suites/<kind>/, topologies/my-lab.yaml,\n"
        "examples/FILE, results/output.xml, ~/csit/resources/x.yaml, CSIT's 32 tests/vpp/perf\n"
        "ids, its ``topologies/lf_*.yaml``, ``git show HEAD:resources/x.yaml``.\n"
        "Outputs: docs/_build/html. Not a possessive: the suites suites/ip4/gone.robot.\n"
    )
    assert dangling((page,)) == [
        f"{page}:2: suites/ip4/no-such.robot",
        f"{page}:2: topologies/gone.yaml",
        f"{page}:3: topologies/*.nothing",
        f"{page}:7: suites/ip4/gone.robot",
    ]
    assert [name for _, name in manual_paths(page, page.read_text())][:4] == [
        "suites/ip4/ethip4-ip4base-ndrpdr.robot",
        "topologies/sim.yaml",
        "suites/ip4/no-such.robot",
        "topologies/gone.yaml",
    ]
