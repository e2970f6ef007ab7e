"""The manual speaks to an outside reader: no words that only mean something in our workspace.

A reader has a checkout, not the folders beside it (``../shared/...``) nor a
"bundle" of builds. docs/contributing.rst may say where CI gets its TRex and
VPP builds; every other page of docs/ may not. (README.rst is checked by
the lead's rewrite; ``tests/test_docs.py`` holds its own rules.)
"""

from __future__ import annotations

import re

from manual_commands import ROOT

#: Pages that may name CI's workspace (where CI finds its builds).
MAY_NAME_CI = frozenset({"contributing.rst"})
#: What only our workspace has.
_WORKSPACE = re.compile(r"\.\./shared\b|\bthe (?:shared )?bundle\b|\bshared bundle\b", re.I)


def workspace_words(text: str) -> list[tuple[int, str]]:
    """(line, words) of each workspace word in ``text``."""
    return [(text.count("\n", 0, m.start()) + 1, m[0]) for m in _WORKSPACE.finditer(text)]


def test_no_page_names_the_workspace() -> None:
    found = [
        f"docs/{page.name}:{line}: {words}"
        for page in sorted((ROOT / "docs").glob("*.rst"))
        if page.name not in MAY_NAME_CI
        for line, words in workspace_words(page.read_text(encoding="utf-8"))
    ]
    assert not found, "workspace words in the manual:\n" + "\n".join(found)


def test_the_words_found() -> None:
    text = "Run ../shared/trex/install.\nThe bundle ships it; TRex's bundled scapy\n"
    assert workspace_words(text) == [(1, "../shared"), (2, "The bundle")]
