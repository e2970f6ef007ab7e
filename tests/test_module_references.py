"""Every module a docstring, a comment or the manual names exists.

Renamed and moved modules leave their old names behind in prose (issue 37:
``ndrpdr.prepare``, ``astfchild.py``); this test finds the names and fails
on each one that no longer resolves, naming the file, the line and the name.

Where it looks: the comments and triple-quoted strings (docstrings, help
texts) of ``libraries/**/*.py``, ``benchmarks/*.py`` and ``docs/_ext/*.py``,
and the whole text of ``docs/**/*.rst`` (the generated reference pages too),
``README.rst`` and ``resources/*.resource``.

What it takes for a reference, and what that must resolve to (on disk,
nothing is imported):

- A dotted name that begins with one of our packages (``ndrpdr``,
  ``NdrPdrLibrary``, ``benchmarks``): ``ndrpdr.searchrun.run_search``. Its
  longest prefix that is a module or package must be followed by nothing, or
  by a name that module defines at its top level (``def``, ``class``, an
  assignment, an import), then by names that occur in its source (a
  method, a field).
- A dotted name without the package's name whose first two parts are a
  module of ``ndrpdr`` (``dut.base.DutDriver``): it is read as
  ``ndrpdr.<name>``. Other names without it are left alone: a variable's
  attributes (``topology.tg.key``), a topology file's keys
  (``search.ramp_up``) and a table's name (``store.samples``) look the same.
- A Python file's path or name (``libraries/ndrpdr/families/table.py``,
  ``families/registry.py``, ``astf/child.py``, ``child.py``): the path, or
  the end of the path, of a file under ``libraries/``, ``bin/``, ``examples/``,
  ``tests/``, ``benchmarks/`` or ``docs/``; one that begins with ``../``
  or ``./``, relative to the folder of the file that names it. A short
  path or a bare name does not say which folder it means, so any will do.

Not references: a name ending in a file suffix other than ``.py``
(``ndrpdr.json``, ``NdrPdrLibrary.html``), a name inside a longer name or
path (``64B-1c-ethip4-ip4base-ndrpdr.json``), and a name right after a
possessive (CSIT's ``trex_stl_profile.py``: another project's file).
"""

from __future__ import annotations

import ast
import bisect
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIBRARIES = ROOT / "libraries"
#: Our packages, by the folder that holds each: a dotted name beginning with one is ours.
PACKAGES = {"ndrpdr": LIBRARIES, "NdrPdrLibrary": LIBRARIES, "benchmarks": ROOT}
#: Where a Python file a path or a bare name names must be.
FILE_FOLDERS = ("libraries", "bin", "tests", "benchmarks", "docs", "examples")
#: File suffixes that make a dotted name a file's name, not a module's.
FILE_SUFFIXES = frozenset(
    {"html", "json", "robot", "resource", "xml", "yaml", "yml", "rst", "txt", "log", "csv", "db"}
)

#: Python's comments and strings, in the order they start: a triple-quoted one's text is
#: prose (group "text"); a comment's is too ("comment"); one-line strings are skipped.
_PY_PROSE = re.compile(
    r"""(?P<text>[rRbBuUfF]{0,2}(?P<q>\"\"\"|''')(?s:\\.|.)*?(?P=q))"""
    r"""|(?P<comment>\#[^\n]*)"""
    r"""|[rRbBuUfF]{0,2}"(?:\\.|[^"\\\n])*\""""
    r"""|[rRbBuUfF]{0,2}'(?:\\.|[^'\\\n])*'"""
)
#: A dotted name, not inside a longer name or path: ``ndrpdr.searchrun.run_search``.
_DOTTED = re.compile(r"(?<![\w./-])[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?![\w/-])")
#: A path to a Python file, or its bare name: ``families/registry.py``, ``../child.py``.
_PY_FILE = re.compile(r"(?<![\w./-])(?:\.\./|\./)*(?:[\w-]+/)*\w+\.py\b")
#: What comes right before another project's file: CSIT's ``trex_stl_profile.py``.
_POSSESSIVE = re.compile(r"\w's\s+(?:``|`|\*)?$")


def _sources() -> list[Path]:
    patterns = ("libraries/**/*.py", "benchmarks/*.py", "docs/_ext/*.py", "docs/**/*.rst")
    found = [path for pattern in patterns for path in ROOT.glob(pattern)]
    return sorted([*found, ROOT / "README.rst", *ROOT.glob("resources/*.resource")])


def _prose(path: Path, text: str) -> Iterator[tuple[int, str]]:
    """(offset, text) of each stretch of ``path``'s prose: all of it but in Python."""
    if path.suffix != ".py":
        yield 0, text
        return
    for match in _PY_PROSE.finditer(text):
        kind = "text" if match["text"] else "comment" if match["comment"] else None
        if kind is not None:
            yield match.start(kind), match[kind]


@cache
def _modules() -> dict[str, Path]:
    """Our modules and packages by dotted name, each to its file (a package's ``__init__``)."""
    modules: dict[str, Path] = {}
    for package, base in PACKAGES.items():
        for path in (base / package).rglob("*.py"):
            parts = path.relative_to(base).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join(parts)] = path
    return modules


@cache
def _top_level_names(path: Path) -> frozenset[str]:
    """The names a module defines at its top level (also under ``if``, ``try``, ``with``)."""
    names: set[str] = set()
    pending: list[ast.AST] = list(ast.parse(path.read_text(encoding="utf-8")).body)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
        elif isinstance(node, (ast.If, ast.Try, ast.With, ast.ExceptHandler)):
            for block in ("body", "orelse", "finalbody", "handlers"):
                pending.extend(getattr(node, block, ()))
    return frozenset(names)


@cache
def _source_words(path: Path) -> frozenset[str]:
    return frozenset(re.findall(r"\w+", path.read_text(encoding="utf-8")))


def _resolves(name: str) -> bool:
    """Whether ``name`` is one of our modules, or something its longest module prefix holds."""
    parts = name.split(".")
    modules = _modules()
    for cut in range(len(parts), 0, -1):
        path = modules.get(".".join(parts[:cut]))
        if path is not None:
            rest = parts[cut:]
            return not rest or (
                rest[0] in _top_level_names(path) and set(rest[1:]) <= _source_words(path)
            )
    return False


def _dotted_reference(name: str) -> str | None:
    """The module reference a dotted name makes (``ndrpdr.`` added where implied), or None."""
    parts = name.split(".")
    if parts[-1] in FILE_SUFFIXES:
        return None
    if parts[0] in PACKAGES:
        return name
    if len(parts) > 2 and f"ndrpdr.{parts[0]}.{parts[1]}" in _modules():
        return f"ndrpdr.{name}"
    return None


def _file_resolves(reference: str, referrer: Path) -> bool:
    if reference.startswith(("../", "./")):
        return (referrer.parent / reference).is_file()
    return reference in _file_path_ends()


@cache
def _file_path_ends() -> frozenset[str]:
    """Every end of every path (``a/b/c.py``: also ``b/c.py``, ``c.py``) of our files."""
    ends: set[str] = set()
    for folder in FILE_FOLDERS:
        for path in (ROOT / folder).rglob("*"):
            parts = path.relative_to(ROOT).parts
            if "__pycache__" not in parts and path.is_file():
                ends.update("/".join(parts[i:]) for i in range(len(parts)))
    return frozenset(ends)


def _dangling(path: Path, text: str) -> Iterator[tuple[int, str]]:
    """(line, reference) of each reference in the prose of ``path`` (``text``) that
    resolves to nothing."""
    line_starts = [0, *(m.end() for m in re.finditer("\n", text))]
    for offset, prose in _prose(path, text):
        found: list[tuple[int, str, bool]] = []
        for match in _DOTTED.finditer(prose):
            reference = _dotted_reference(match[0])
            if reference is not None:
                found.append((match.start(), match[0], _resolves(reference)))
        for match in _PY_FILE.finditer(prose):
            found.append((match.start(), match[0], _file_resolves(match[0], path)))
        for start, reference, resolves in sorted(found):
            if not resolves and not _POSSESSIVE.search(prose, max(0, start - 12), start):
                yield bisect.bisect_right(line_starts, offset + start), reference


def test_every_module_the_prose_names_exists() -> None:
    dangling = [
        f"{path.relative_to(ROOT)}:{line}: {reference}"
        for path in _sources()
        for line, reference in _dangling(path, path.read_text(encoding="utf-8"))
    ]
    assert not dangling, "names of modules that do not exist:\n" + "\n".join(dangling)


def test_the_rules_on_a_made_up_module() -> None:
    """What the docstring above says resolves, and what does not, in a module of ndrpdr."""
    source = '''"""Calls ``ndrpdr.searchrun.run_search`` of ``ndrpdr.topology``, not
``ndrpdr.prepare`` nor ``ndrpdr.searchrun.no_such_function``; ``dut.base.DutDriver``,
``dut.base.NoSuchDriver``; ``topology.tg.key``, ``search.ramp_up``, ``ndrpdr.json``.

Files: ``families/registry.py``, ``tests/testkinds.py``, ``../search/goal.py``,
``astf/child.py``, ``child.py``, CSIT's ``trex_stl_profile.py``; ``families/nosuch.py``,
``../goal.py``, ``astfchild.py``.
"""

NAME = "ndrpdr.gone"  # one-line strings are code; comments are prose: astfprofile.py
'''
    path = LIBRARIES / "ndrpdr" / "results" / "made_up.py"
    assert list(_dangling(path, source)) == [
        (2, "ndrpdr.prepare"),
        (2, "ndrpdr.searchrun.no_such_function"),
        (3, "dut.base.NoSuchDriver"),
        (6, "families/nosuch.py"),
        (7, "../goal.py"),
        (7, "astfchild.py"),
        (10, "astfprofile.py"),
    ]
