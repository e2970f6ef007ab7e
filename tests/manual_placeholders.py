"""Which paths in the manual are the user's own (placeholders), not the repository's.

A path is a placeholder, never looked for, when

- it holds a placeholder mark: ``<`` or ``>`` (``suites/<kind>/``), ``$``
  (``$TESTBEDS``), ``...``, or a part all in capitals (``FILE``, ``DIR``,
  ``lab/DUT.yaml``, ``SCHEMA_FILE``);
- a part of it starts with ``my-`` or ``my_`` (``topologies/my-lab.yaml``);
- or it does not start with one of the repository's folders (``REPOSITORY``):
  the user's files (``lab/dut1.yaml``, ``lab.yaml``, ``~/csit/...``), what a run
  writes (``results/output.xml``, ``last-good/results``, ``pabot_results/``)
  and absolute paths (``/opt/trex/v3.08``).

Every other path, starting with a folder of the repository, names a file of
it: it must exist (a glob, ``topologies/*.yaml``, must match one), unless git
ignores it (``docs/_build/html``: what a build writes).
"""

from __future__ import annotations

import re
import subprocess
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: The repository's top-level folders: a path starting with one names a file of the repository.
REPOSITORY = (
    ".ci", "benchmarks", "bin", "docs", "examples", "libraries", "resources", "suites", "tests",
    "topologies",
)  # fmt: skip

_MARK = re.compile(r"[<>$]|\.\.\.|(?:^|[/.:_-])my[-_]|(?:^|[/.:-])[A-Z][A-Z0-9_]+(?=$|[/.:-])")


def has_placeholder_mark(word: str) -> bool:
    """Whether ``word`` holds a placeholder mark (``<file>``, ``$TESTBEDS``, ``FILE``, ``my-``)."""
    return _MARK.search(word) is not None


def is_placeholder(path: str) -> bool:
    """Whether ``path`` is the user's (or a run's) and not a file of the repository."""
    return has_placeholder_mark(path) or path.split("/", 1)[0] not in REPOSITORY


@cache
def ignored(paths: tuple[str, ...]) -> frozenset[str]:
    """Which of ``paths`` (relative to the repository) git ignores: a build's or a run's output."""
    if not (ROOT / ".git").exists():
        return frozenset()
    done = subprocess.run(
        ["git", "check-ignore", "--no-index", "--stdin"],
        cwd=ROOT, input="\n".join(paths), capture_output=True, text=True, check=False,
    )  # fmt: skip
    return frozenset(done.stdout.splitlines())
