"""Test kinds: ``unit`` and ``real``, and the check that keeps the marker honest.

A test is ``real`` when it needs a real system part: it starts one of
``REAL_PROGRAMS`` (network namespaces, sshd, VPP, TRex, DPDK, Open vSwitch,
tcpreplay, nftables, PostgreSQL, Chromium, mounts) or uses a fixture that did.
Ordinary tools a unit test may run (``UNIT_PROGRAMS``: sh, sleep, git, ps,
...) do not count. A unit test that starts a program in neither list fails
too, asking for it to be put in one: so a new system part cannot pass as a
unit test because nobody thought of adding it (a program that is not
installed cannot run, so it needs no class).
Such a module says so with ``pytestmark = pytest.mark.real``; every other
test is marked ``unit`` here, so ``pytest -m unit`` is the quick run (no
root, nothing installed beyond the Python packages) and ``pytest -m real``
the rest. ``slow`` (a long real run CI leaves out) is declared in
pyproject.toml beside them.

The marker is checked, not trusted: an audit hook (``sys.addaudithook``) sees
every program a test or a fixture starts, and a test marked ``unit`` that
started one, or used a fixture that did, fails with the program's name and the
line to add. What a Python child (``python -m ndrpdr``, ``python -m robot``)
starts is not seen: a test that runs the CLI or a suite on a real testbed is
marked by hand (it is the one that checks for root first).

Loaded by pyproject.toml's addopts (``-p tests.testkinds``); setting
``NDRPDR_TESTKINDS_REPORT`` to a file path writes, per test, the programs
other than ``UNIT_PROGRAMS`` it started (JSON), which is how the real modules
were first found.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

#: The programs that make a test real: the system parts a unit test never needs.
REAL_PROGRAMS = frozenset(
    {
        "ip", "unshare", "nsenter", "mount", "umount", "tc", "ethtool", "nft",
        "sshd", "runuser", "postgres", "initdb", "pg_ctl", "chromium", "chromedriver",
        "vpp", "vppctl", "t-rex-64", "_t-rex-64", "dpdk-testpmd", "dpdk-l3fwd", "l3fwd",
        "ovs-vswitchd", "ovsdb-server", "ovsdb-tool", "ovs-vsctl", "ovs-appctl",
        "tcpreplay",
    }
)  # fmt: skip

#: Ordinary tools unit tests start (found by the audit on the whole unit suite), and
#: the helpers Python's own modules may start on first use, whichever test that is
#: (ctypes.util.find_library: ldconfig, gcc, cc, ld, objdump; platform: uname).
UNIT_PROGRAMS = frozenset(
    {
        "sh", "bash", "test", "true", "false", "printf", "echo", "cat", "wc", "id",
        "sleep", "ps", "pgrep", "git", "dpkg", "run-suites", "lscpu",
        "ldconfig", "gcc", "cc", "ld", "objdump", "uname",
        "ndrpdr",  # the project's own command, installed in a test's venv (tests/packaging)
    }
)  # fmt: skip

#: Where the audit hook files what it sees: the current test's node id, or the fixture.
_current: dict[str, str | None] = {"test": None, "fixture": None}
#: Programs other than UNIT_PROGRAMS each test (node id) started in its setup, call
#: and teardown.
_by_test: dict[str, set[str]] = {}
#: The same for each fixture (by name) when it was set up.
_by_fixture: dict[str, set[str]] = {}


def _program(argv: Any) -> str | None:
    """The program an audited start runs, None for Python itself."""
    if isinstance(argv, (str, bytes, os.PathLike)):
        words = os.fsdecode(argv).split()
        first = words[0] if words else ""
    elif isinstance(argv, (list, tuple)) and argv:
        first = os.fsdecode(argv[0])
    else:
        return None
    name = Path(first).name
    if not name or name.startswith("python") or first == sys.executable:
        return None
    if name not in REAL_PROGRAMS and name not in UNIT_PROGRAMS and not _runnable(first):
        return None  # not installed: it cannot start, so it is nothing real
    return name


def _runnable(first: str) -> bool:
    return shutil.which(first) is not None or Path(first).is_file()


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if event == "subprocess.Popen":
        program = _program(args[1] if args[1] is not None else args[0])
    elif event in ("os.posix_spawn", "os.exec"):
        program = _program(args[1])
    elif event == "os.system":
        program = _program(args[0])
    else:
        return
    if program is None or program in UNIT_PROGRAMS:
        return
    fixture, test = _current["fixture"], _current["test"]
    if fixture is not None:
        _by_fixture.setdefault(fixture, set()).add(program)
    if test is not None:
        _by_test.setdefault(test, set()).add(program)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "real: needs a real system part (namespaces, sshd, VPP, TRex, DPDK, OVS, tcpreplay, "
        "PostgreSQL, Chromium: tests/testkinds.py); pytest -m real",
    )
    config.addinivalue_line(
        "markers", "unit: needs no real system part (set by tests/testkinds.py); pytest -m unit"
    )
    sys.addaudithook(_audit)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker("real") is None:
            item.add_marker(pytest.mark.unit)


@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(fixturedef: pytest.FixtureDef[Any]) -> Generator[None, Any, Any]:
    outer = _current["fixture"]
    _current["fixture"] = fixturedef.argname
    try:
        return (yield)
    finally:
        _current["fixture"] = outer


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, Any, Any]:
    _current["test"] = item.nodeid
    try:
        return (yield)
    finally:
        _current["test"] = None


def _unit_but_real(item: pytest.Item) -> str | None:
    """Why ``item``, marked unit, is real (or may be): the programs it or its
    fixtures started that are real, or in neither list."""
    if item.get_closest_marker("unit") is None:
        return None
    fixtures = [f for f in getattr(item, "fixturenames", ()) if _by_fixture.get(f)]
    programs = set(_by_test.get(item.nodeid, ())).union(*(_by_fixture[f] for f in fixtures))
    if not programs:
        return None
    started = sorted(_by_test.get(item.nodeid, ()))
    said = [f"started {', '.join(started)}"] if started else []
    said += [f"uses fixture {f} (started {', '.join(sorted(_by_fixture[f]))})" for f in fixtures]
    if programs & REAL_PROGRAMS:
        return (
            f"{item.nodeid} is marked unit but {'; '.join(said)}: it needs a real system "
            "part; add `pytestmark = pytest.mark.real` to its module (tests/testkinds.py)"
        )
    return (
        f"{item.nodeid} is marked unit but {'; '.join(said)}, which tests/testkinds.py "
        f"does not know: add {', '.join(sorted(programs))} to REAL_PROGRAMS (a real system "
        "part: then mark the module real) or to UNIT_PROGRAMS (an ordinary tool)"
    )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if call.when == "call" and report.passed:
        reason = _unit_but_real(item)
        if reason is not None:
            report.outcome = "failed"
            report.longrepr = reason
    return report


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    _no_tests_of_this_kind_is_fine(session, exitstatus)
    target = os.environ.get("NDRPDR_TESTKINDS_REPORT")
    if not target:
        return
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    path = Path(f"{target}.{worker}" if worker else target)
    seen = {
        "tests": {k: sorted(v) for k, v in sorted(_by_test.items())},
        "fixtures": {k: sorted(v) for k, v in sorted(_by_fixture.items())},
    }
    path.write_text(json.dumps(seen, indent=1) + "\n")


def _no_tests_of_this_kind_is_fine(session: pytest.Session, exitstatus: int) -> None:
    """tox runs the unit and the real tests of the paths it is given in two commands: a
    path with tests of one kind only leaves the other command with none, which is not
    a failure (pytest's exit code 5 would fail the tox env)."""
    kinds = str(session.config.getoption("markexpr", "") or "")
    if exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED and ("unit" in kinds or "real" in kinds):
        session.exitstatus = pytest.ExitCode.OK
