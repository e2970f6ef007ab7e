"""What CSIT's own files say about a test id: its suite's TRex profile, the daily job's ids.

Read from a CSIT git directory at run time (``csit_schema_source``), never
copied into the repository:

- a test id's suites are ``tests/vpp/perf/**/<nic>-<id>-ndrpdr.robot``
  (``<nic>`` like ``10ge2p1x710`` or ``2n1l-10ge2p1x710``); the TRex
  profile is their ``${traffic_profile}`` variable, whose ``${...}`` parts
  are the suite's own variables (``${n_tunnels}``, ``${rts_per_flow}``);
- the daily job (``csit-vpp-perf-mrr-daily-master-{node-arch}`` in
  ``resources/job_specifications/jobs.yaml``) runs, per node-arch, a test
  set of the ``ts_*.yaml`` files, whose ``tests`` are groups of
  ``test_groups.yaml``: their ids are the daily ids.
"""

from __future__ import annotations

import functools
import re
import subprocess
from pathlib import Path
from typing import Any

import yaml

from csit_schema_source import git_show

SUITES_DIR = "tests/vpp/perf"
PROFILES_DIR = "GPL/traffic_profiles/trex"
JOBS = "resources/job_specifications"
DAILY_JOB = "csit-vpp-perf-mrr-daily-master-{node-arch}"
_NIC = re.compile(r"^(2n1l-)?[0-9]+ge[0-9]+p[0-9]+[a-z0-9]+$")
_VARIABLE = re.compile(r"^\|\s*\$\{(\w+)\}=?\s*\|\s*(\S+)\s*$", re.MULTILINE)
_REFERENCE = re.compile(r"\$\{(\w+)\}")


@functools.cache
def _tree(git_dir: Path, under: str) -> tuple[str, ...]:
    process = subprocess.run(
        ["git", "-C", str(git_dir), "ls-tree", "-r", "--name-only", "HEAD", under],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return tuple(process.stdout.split())


def suites_of(git_dir: Path, test_id: str) -> list[str]:
    """The paths of CSIT's NDR/PDR suites of ``test_id`` (one per NIC)."""
    tail = f"-{test_id}-ndrpdr.robot"
    return [
        path
        for path in _tree(git_dir, SUITES_DIR)
        if path.endswith(tail) and _NIC.match(path.rsplit("/", 1)[1][: -len(tail)])
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
