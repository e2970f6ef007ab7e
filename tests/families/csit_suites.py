"""CSIT's NDRPDR suite files, read from a CSIT git directory: each test id's tests and tags.

CSIT keeps one NDRPDR suite per test id and NIC in git,
``tests/vpp/perf/<area>/[2n1l-]<nic>-<id>-ndrpdr.robot`` (``tests/dpdk/perf``
for testpmd and l3fwd); its generator writes the MRR and soak suites from
them (same tests, ``-mrr`` / ``-soak`` for ``-ndrpdr``). ``read_csit_suites``
reads the files of the given ids at HEAD with one ``git cat-file --batch``
and parses them with Robot's own parser: per file its tests (name and
``[Tags]``) and its suite tags (``Force Tags``). The git directory comes
from ``csit_schema_source.csit_git_or_skip``.
"""

from __future__ import annotations

import dataclasses
import re
import subprocess
from collections.abc import Collection
from pathlib import Path

from robot.api import get_model
from robot.api.parsing import ModelVisitor, Tags, TestCase, TestTags

#: Where CSIT keeps its performance suites.
SUITE_DIRS = ("tests/vpp/perf", "tests/dpdk/perf")
#: A suite file: an optional topology (``2n1l-``), the NIC (``10ge2p1x710-``), the id, the type.
_FILE = re.compile(r"(?:\dn[a-z0-9]*-)?\d+ge\d+p\d+[a-z0-9]+-(?P<id>.+)-ndrpdr\.robot")


@dataclasses.dataclass(frozen=True)
class CsitSuite:
    """One of CSIT's NDRPDR suite files: its tests (name, tags) in order and its suite tags."""

    path: str
    tests: tuple[tuple[str, tuple[str, ...]], ...]
    tags: tuple[str, ...]


class _Reader(ModelVisitor):
    def __init__(self) -> None:
        self.tests: list[tuple[str, tuple[str, ...]]] = []
        self.tags: tuple[str, ...] = ()

    def visit_TestCase(self, node: TestCase) -> None:  # noqa: N802 (Robot's visitor names)
        self.tests.append((node.name, ()))
        self.generic_visit(node)

    def visit_Tags(self, node: Tags) -> None:  # noqa: N802
        name, _ = self.tests[-1]
        self.tests[-1] = (name, tuple(node.values))

    def visit_TestTags(self, node: TestTags) -> None:  # noqa: N802 (``Force Tags`` too)
        self.tags = tuple(node.values)


def _git(git_dir: Path, *args: str, stdin: bytes = b"") -> bytes:
    process = subprocess.run(
        ["git", "-C", str(git_dir), *args],
        input=stdin,
        capture_output=True,
        timeout=120,
        check=False,
    )
    if process.returncode != 0:
        raise RuntimeError(f"git -C {git_dir} {' '.join(args)}: {process.stderr.decode().strip()}")
    return process.stdout


def _files(git_dir: Path, ids: Collection[str]) -> list[tuple[str, str, str]]:
    """(blob, path, id) of each NDRPDR suite file of ``ids`` at HEAD (two may share a blob)."""
    listing = _git(git_dir, "ls-tree", "-r", "HEAD", "--", *SUITE_DIRS).decode()
    files = []
    for line in listing.splitlines():
        meta, path = line.split("\t", 1)
        match = _FILE.fullmatch(path.rsplit("/", 1)[-1])
        if match and match["id"] in ids:
            files.append((meta.split()[2], path, match["id"]))
    return files


def read_csit_suites(git_dir: Path, ids: Collection[str]) -> dict[str, list[CsitSuite]]:
    """CSIT's NDRPDR suites of ``ids`` (every NIC's), by id; an id without one is left out."""
    files = _files(git_dir, ids)
    asked = "".join(f"{blob}\n" for blob, _, _ in files).encode()
    out = _git(git_dir, "cat-file", "--batch", stdin=asked)
    suites: dict[str, list[CsitSuite]] = {}
    at = 0
    for _, path, test_id in files:  # cat-file answers in the order asked
        header_end = out.index(b"\n", at)
        size = int(out[at:header_end].split()[2])
        text = out[header_end + 1 : header_end + 1 + size].decode()
        at = header_end + 1 + size + 1
        reader = _Reader()
        reader.visit(get_model(text))
        suites.setdefault(test_id, []).append(CsitSuite(path, tuple(reader.tests), reader.tags))
    return suites
