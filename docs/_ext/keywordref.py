"""The keywords' reference page (``docs/reference/keywords.rst``), from Libdoc's model.

Libdoc (``robot.libdoc.LibraryDocumentation``) reads ``NdrPdrLibrary`` and the
Robot resource files the suites import; the page lists, for each, every keyword
with its arguments (defaults as users type them, as Libdoc shows them), what it
returns and the first paragraph of its documentation, and the argument and
return types the library defines. The text is plain reStructuredText (no
Sphinx roles), so a code host renders it as Sphinx does. Robot's own markup in
the documentation is turned into RST: ``code`` stays, a `Keyword` or `Type`
this page lists becomes a link to its section, other `names` emphasis, and a
``| =Key= | =Value= |`` table an RST table.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterable
from pathlib import Path

from robot.libdoc import LibraryDocumentation
from robot.libdocpkg.model import LibraryDoc
from robot.running.arguments.argumentspec import ArgInfo

_WIDTH = 79
#: Libdoc's type kinds the page lists (the others are Robot's standard types).
_OWN_TYPES = ("Custom", "Enum", "TypedDict")
#: A row of a Robot table in documentation (other lines starting ``| `` are preformatted).
_ROBOT_TABLE_ROW = re.compile(r"^\| (.* |)\|$")
#: Robot's link syntax in documentation: `Name` (not ``code``).
_ROBOT_LINK = re.compile(r"(?<![`\w])`([^`\n]+)`(?![`\w])")


def _paragraphs(doc: str) -> list[list[str]]:
    """The documentation's blocks: runs of non-empty lines (a table is one block)."""
    blocks: list[list[str]] = [[]]
    for line in doc.splitlines():
        if line.strip():
            blocks[-1].append(line.strip())
        elif blocks[-1]:
            blocks.append([])
    return [block for block in blocks if block]


def _inline(text: str, sections: frozenset[str]) -> str:
    """Robot's inline markup as RST: `Name` a link when the page has that section."""

    def link(match: re.Match[str]) -> str:
        name = match[1]
        return f"`{name}`_" if name in sections else f"*{name}*"

    return _ROBOT_LINK.sub(link, text)


def _wrap(text: str, indent: str = "", first: str | None = None) -> list[str]:
    """``text`` wrapped to the page's width, never inside a word or at a hyphen."""
    return textwrap.wrap(
        text,
        _WIDTH,
        initial_indent=indent if first is None else first,
        subsequent_indent=indent,
        break_long_words=False,
        break_on_hyphens=False,
    )


def _table(rows: list[str], sections: frozenset[str]) -> list[str]:
    """A Robot table (``| a | b |`` lines, ``=Header=`` cells in the first) as a list-table."""
    cells = [[cell.strip() for cell in row.strip().strip("|").split(" | ")] for row in rows]
    header = all(cell.startswith("=") and cell.endswith("=") for cell in cells[0])
    lines = [".. list-table::"]
    if header:
        cells[0] = [cell.strip("=") for cell in cells[0]]
        lines.append("   :header-rows: 1")
    lines.append("")
    for row in cells:
        for index, cell in enumerate(row):
            lead = "   * - " if index == 0 else "     - "
            lines += _wrap(_inline(cell, sections) or "..", " " * 7, lead)
    return lines


def _rst(doc: str, sections: frozenset[str], *, first_only: bool = False) -> list[str]:
    """Robot-format documentation as RST lines: paragraphs, tables, preformatted text."""
    blocks = _paragraphs(doc)[:1] if first_only else _paragraphs(doc)
    lines: list[str] = []
    for block in blocks:
        if lines:
            lines.append("")
        if all(_ROBOT_TABLE_ROW.match(line) for line in block):
            lines += _table(block, sections)
        elif all(line.startswith("|") for line in block):
            lines += ["::", "", *(f"    {line[2:]}".rstrip() for line in block)]
        else:
            lines += _wrap(_inline(" ".join(block), sections))
    return lines


def _heading(title: str, underline: str) -> list[str]:
    return [title, underline * len(title), ""]


def _argument(arg: ArgInfo, sections: frozenset[str]) -> str:
    """One argument: its name as typed, its type (a link to an own type's section) and
    its default as Libdoc shows it; the ``*`` marker says what it means."""
    if str(arg) == "*":
        return "``*``: the arguments after it are given by name only (``name=value``)"
    name = str(arg).split(":", 1)[0].split("=", 1)[0].strip()
    text = f"``{name}``"
    kind = str(arg.type or "")
    if kind:
        text += f" (`{kind}`_)" if kind in sections else f" (``{kind}``)"
    if arg.default_repr is not None:
        text += f", default ``{arg.default_repr}``"
    elif arg.required:
        text += ", required"
    return text


def _keywords(doc: LibraryDoc, sections: frozenset[str], level: str) -> list[str]:
    lines: list[str] = []
    for keyword in doc.keywords:
        lines += _heading(keyword.name, level)
        arguments = [_argument(arg, sections) for arg in keyword.args]
        if arguments:
            lines.append("Arguments:")
            lines.append("")
            for text in arguments:
                lines += _wrap(text, "  ", "- ")
        else:
            lines.append("Arguments: none.")
        returns = keyword.args.return_type
        returned = str(returns or "")
        if returned not in {"", "None"}:
            shown = f"`{returned}`_" if returned in sections else f"``{returned}``"
            lines += ["", f"Returns: {shown}."]
        lines.append("")
        lines += _rst(keyword.doc, sections, first_only=True)
        lines.append("")
    return lines


def _types(doc: LibraryDoc, sections: frozenset[str], level: str) -> list[str]:
    lines: list[str] = []
    for typedoc in sorted(doc.type_docs, key=lambda t: t.name):
        if typedoc.type not in _OWN_TYPES:
            continue
        lines += _heading(typedoc.name, level)
        # A returned dictionary's documentation is its keys' table: all of it.
        lines += _rst(typedoc.doc, sections, first_only=typedoc.type != "TypedDict")
        if typedoc.members:
            values = ", ".join(f"``{member.name}``" for member in typedoc.members)
            lines += ["", f"Values: {values}."]
        lines.append("")
    return lines


def _section_names(docs: Iterable[LibraryDoc]) -> frozenset[str]:
    """The titles a page's `Name` links may point to: keywords and own types."""
    names: set[str] = set()
    for doc in docs:
        names.update(keyword.name for keyword in doc.keywords)
        names.update(t.name for t in doc.type_docs if t.type in _OWN_TYPES)
    return frozenset(names)


def keywords_page(library: str, resources: list[Path], root: Path) -> list[str]:
    """The page's lines after its header comment: ``library`` (importable by name) and
    each resource file (shown relative to ``root``)."""
    lib = LibraryDocumentation(library)
    res = [LibraryDocumentation(str(path)) for path in resources]
    sections = _section_names([lib, *res])
    names = ", ".join(f"``{path.relative_to(root).as_posix()}``" for path in resources)
    lines = [
        *_heading("Keywords", "="),
        *_wrap(
            f"Every keyword of ``{lib.name}`` (version {lib.version}) and of {names}: "
            "its arguments with their defaults, what it returns and the first paragraph "
            "of its documentation. The whole documentation of each keyword, with an "
            "example, is its Libdoc: ``python3 -m robot.libdoc libraries/NdrPdrLibrary "
            "NdrPdrLibrary.html`` writes it (the manual's build does, as "
            "``_static/NdrPdrLibrary.html``)."
        ),
        "",
        *_heading(lib.name, "-"),
        *_rst(lib.doc, sections, first_only=True),
        "",
        *_heading("Importing", "~"),
        "Arguments:",
        "",
    ]
    for init in lib.inits:
        for arg in init.args:
            lines += _wrap(_argument(arg, sections), "  ", "- ")
        lines += ["", *_rst(init.doc, sections), ""]  # one paragraph an argument: all
    lines += _keywords(lib, sections, "~")
    lines += _heading("Argument and return types", "-")
    lines += _types(lib, sections, "~")
    for path, doc in zip(resources, res, strict=True):
        lines += _heading(path.relative_to(root).as_posix(), "-")
        lines += [*_rst(doc.doc, sections, first_only=True), ""]
        lines += _keywords(doc, sections, "~")
    return lines
