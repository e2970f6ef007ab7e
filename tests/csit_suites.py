"""CSIT's own files about its test ids, read from a CSIT git directory at run time.

Never copied into the repository; the git directory comes from
``csit_schema_source.csit_git_or_skip``.

- CSIT keeps one NDRPDR suite per test id and NIC in git,
  ``tests/vpp/perf/<area>/[2n1l-]<nic>-<id>-ndrpdr.robot`` (``tests/dpdk/perf``
  for testpmd and l3fwd); its generator writes the MRR and soak suites from
  them (same tests, ``-mrr`` / ``-soak`` for ``-ndrpdr``). ``read_csit_suites``
  reads the files of the given ids at HEAD with one ``git cat-file --batch``
  and parses them with Robot's own parser: per file its tests (name and
  ``[Tags]``) and its suite tags (``Force Tags``).
- A suite's TRex profile is its ``${traffic_profile}`` variable, whose
  ``${...}`` parts are the suite's own variables (``${n_tunnels}``,
  ``${rts_per_flow}``): ``csit_profiles``.
- The daily job (``csit-vpp-perf-mrr-daily-master-{node-arch}`` in
  ``resources/job_specifications/jobs.yaml``) runs, per node-arch, a test
  set of the ``ts_*.yaml`` files, whose ``tests`` are groups of
  ``test_groups.yaml``: their ids are the daily ids (``daily_ids``).
"""

from __future__ import annotations

import dataclasses
import functools
import re
import subprocess
from collections.abc import Collection
from pathlib import Path
from typing import Any

import yaml
from robot.api import get_model
from robot.api.parsing import ModelVisitor, Tags, TestCase, TestTags

from csit_schema_source import git_show

#: Where CSIT keeps its performance suites, its TRex profiles and its job specifications.
SUITE_DIRS = ("tests/vpp/perf", "tests/dpdk/perf")
PROFILES_DIR = "GPL/traffic_profiles/trex"
JOBS = "resources/job_specifications"
DAILY_JOB = "csit-vpp-perf-mrr-daily-master-{node-arch}"

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


_VARIABLE = re.compile(r"^\|\s*\$\{(\w+)\}=?\s*\|\s*(\S+)\s*$", re.MULTILINE)
_REFERENCE = re.compile(r"\$\{(\w+)\}")


@functools.cache
def _tree(git_dir: Path, *under: str) -> tuple[str, ...]:
    return tuple(_git(git_dir, "ls-tree", "-r", "--name-only", "HEAD", *under).decode().split())


def suites_of(git_dir: Path, test_id: str) -> list[str]:
    """The paths of CSIT's NDR/PDR suites of ``test_id`` (one per NIC)."""
    return [
        path
        for path in _tree(git_dir, *SUITE_DIRS)
        if (match := _FILE.fullmatch(path.rsplit("/", 1)[-1])) and match["id"] == test_id
    ]


def _resolve(variables: dict[str, str]) -> Any:
    def one(match: re.Match[str]) -> str:
        name = match.group(1)
        return name if name.isdigit() else variables.get(name, match.group(0))  # ${10000}: 10000

    return one


def suite_profile(text: str, where: str) -> str:
    """The suite's ``${traffic_profile}`` with its ``${...}`` references resolved."""
    variables = dict(_VARIABLE.findall(text))
    value = variables.get("traffic_profile")
    if value is None:
        raise ValueError(f"{where}: no ${{traffic_profile}} variable")
    for _ in range(5):
        value = _REFERENCE.sub(_resolve(variables), value)
    if "${" in value:
        raise ValueError(f"{where}: ${{traffic_profile}} {value!r} has unresolved variables")
    return value


@functools.cache
def csit_profiles(git_dir: Path, test_id: str) -> frozenset[str]:
    """The TRex profiles CSIT's suites of ``test_id`` name (empty: CSIT has no such suite)."""
    return frozenset(
        suite_profile(git_show(git_dir, path), path) for path in suites_of(git_dir, test_id)
    )


def profile_names(git_dir: Path) -> frozenset[str]:
    """The TRex profiles CSIT has (file names without ``.py``)."""
    return frozenset(
        path.rsplit("/", 1)[1][:-3] for path in _tree(git_dir, PROFILES_DIR) if path.endswith(".py")
    )


def _yaml(git_dir: Path, name: str) -> Any:
    return yaml.safe_load(git_show(git_dir, f"{JOBS}/{name}"))


@functools.cache
def daily_ids(git_dir: Path) -> frozenset[str]:
    """The test ids CSIT's daily VPP job runs on any node-arch."""
    job = _yaml(git_dir, "jobs.yaml")["jobs"][DAILY_JOB]
    wanted = {next(iter(item.values())) for item in job["node-arch"]}
    groups = _yaml(git_dir, "test_groups.yaml")["test-groups"]
    ids: set[str] = set()
    for path in _tree(git_dir, JOBS):
        name = path.rsplit("/", 1)[1]
        if not name.startswith("ts_"):
            continue
        for set_name, test_set in (_yaml(git_dir, name).get("test-sets") or {}).items():
            if set_name not in wanted:
                continue
            for item in test_set.get("tests") or []:
                group = item if isinstance(item, str) else next(iter(item))
                ids.update(groups.get(group) or ())
    return frozenset(ids)
