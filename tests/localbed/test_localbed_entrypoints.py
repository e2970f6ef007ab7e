"""Entry points remove dead runs' leftovers before they create anything, and say what.

Real: root, a namespace made here with a process in it, a state file whose
owner is a process that has exited (a "dead run" as a SIGKILLed runner
whose reaper was killed too would leave), and the real commands run in
child processes: ``ndrpdr cleanup``, ``ndrpdr trial`` (sim), and Robot with
``Set Up Testbed`` (sim). The run ids are not of the generated kind
(``<pid>-<hex>``), so no other process's cleanup removes these namespaces
for lack of a state file; each test checks only its own run.
"""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from localbed_helpers import netns_names

from ndrpdr.localbed.beforerun import HEADER
from ndrpdr.localbed.procs import start_time
from ndrpdr.localbed.state import RunState, StateStore

pytestmark = pytest.mark.real  # a real system part: tests/testkinds.py

_ROOT = Path(__file__).resolve().parents[2]
_SIM = _ROOT / "topologies" / "sim.yaml"


class DeadRun:
    """A run whose owner has exited: its state file, namespace and a process inside."""

    def __init__(self, state_dir: Path) -> None:
        self.run_id = f"t13dead-{secrets.token_hex(3)}"
        self.namespace = f"ndrpdr-{self.run_id}-dut"
        self.state_file = state_dir / f"{self.run_id}.json"
        owner = subprocess.Popen(["true"])
        owner.wait()
        subprocess.run(["ip", "netns", "add", self.namespace], check=True)
        self.sleeper = subprocess.Popen(
            ["ip", "netns", "exec", self.namespace, "sleep", "60"], start_new_session=True
        )
        state = RunState(self.run_id, owner.pid, 1, namespaces=[self.namespace])
        StateStore(state_dir).create(state)

    def gone(self) -> bool:
        """True when nothing of the run is left."""
        return (
            self.namespace not in netns_names()
            and not self.state_file.exists()
            and self.sleeper.poll() is not None
        )

    def remove(self) -> None:
        """Remove what is still there (the test failed)."""
        if self.sleeper.poll() is None:
            self.sleeper.kill()
        self.sleeper.wait()
        if self.namespace in netns_names():
            subprocess.run(["ip", "netns", "del", self.namespace], check=False)
        self.state_file.unlink(missing_ok=True)


@pytest.fixture
def dead_run(state_dir: Path) -> Iterator[DeadRun]:
    """A dead run in the test's own state directory, removed afterwards if still there."""
    run = DeadRun(state_dir)
    try:
        yield run
    finally:
        run.remove()


def _env(state_dir: Path) -> dict[str, str]:
    paths = [str(_ROOT / "libraries"), str(_ROOT)]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths), "NDRPDR_STATE_DIR": str(state_dir)}


def _cli(state_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ndrpdr", *args],
        env=_env(state_dir),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _report(stderr: str) -> list[str]:
    """The ``  - <what>`` lines after the leftovers header on stderr."""
    lines = stderr.splitlines()
    start = lines.index(f"ndrpdr: {HEADER}")
    items = []
    for line in lines[start + 1 :]:
        if not line.startswith("  - "):
            break
        items.append(line[4:])
    return items


def _mine(items: list[str], run: DeadRun) -> list[str]:
    return [item for item in items if run.run_id in item]


def test_ndrpdr_cleanup_removes_a_dead_run_and_says_what(
    state_dir: Path, dead_run: DeadRun
) -> None:
    done = _cli(state_dir, "cleanup")
    assert done.returncode == 0, done.stderr
    items = _mine(_report(done.stderr), dead_run)
    assert f"namespace {dead_run.namespace} (run {dead_run.run_id}, owner pid" in "\n".join(items)
    assert any(f"processes {dead_run.sleeper.pid} in run {dead_run.run_id}" in i for i in items)
    assert any(i.startswith(f"state file {dead_run.state_file}") for i in items)
    dead_run.sleeper.wait(5)
    assert dead_run.gone()
    again = _cli(state_dir, "cleanup")
    assert again.returncode == 0, again.stderr
    assert dead_run.run_id not in again.stdout + again.stderr
    # Nothing of ours left; another run on the machine may have died meanwhile.
    assert again.stdout == "nothing to remove\n" or f"ndrpdr: {HEADER}" in again.stderr


def test_ndrpdr_trial_removes_leftovers_before_its_testbed(
    state_dir: Path, dead_run: DeadRun
) -> None:
    done = _cli(
        state_dir, "trial", "--topology", str(_SIM), "--rate", "1Mpps", "--duration", "0.1s"
    )
    assert done.returncode == 0, done.stderr
    items = _mine(_report(done.stderr), dead_run)
    assert any(dead_run.namespace in i for i in items), done.stderr
    assert "received:" in done.stdout  # the trial ran after the cleanup
    dead_run.sleeper.wait(5)
    assert dead_run.gone()


def test_robot_set_up_testbed_removes_leftovers_and_warns(
    state_dir: Path, dead_run: DeadRun, tmp_path: Path
) -> None:
    suite = tmp_path / "leftovers.robot"
    suite.write_text(
        "*** Settings ***\n"
        f"Library           NdrPdrLibrary    {_SIM}\n"
        "Suite Setup       Set Up Testbed\n"
        "Suite Teardown    Tear Down Testbed\n\n"
        "*** Test Cases ***\n"
        "Nothing\n"
        "    No Operation\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "robot", "--outputdir", str(tmp_path), str(suite)],
        env=_env(state_dir),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    output = (tmp_path / "output.xml").read_text()
    assert 'level="WARN"' in output
    assert HEADER in output
    assert f"  - namespace {dead_run.namespace} (run {dead_run.run_id}" in output
    assert f"[ WARN ] {HEADER}" in done.stderr  # Robot shows warnings on the console too
    dead_run.sleeper.wait(5)
    assert dead_run.gone()


def test_a_live_run_is_not_touched(state_dir: Path) -> None:
    run_id = f"t13live-{secrets.token_hex(3)}"
    namespace = f"ndrpdr-{run_id}-dut"
    own = os.getpid()
    StateStore(state_dir).create(RunState(run_id, own, start_time(own) or 0, [namespace]))
    subprocess.run(["ip", "netns", "add", namespace], check=True)
    try:
        done = _cli(state_dir, "cleanup")
        assert done.returncode == 0, done.stderr
        assert run_id not in done.stderr + done.stdout
        assert namespace in netns_names()
        assert (state_dir / f"{run_id}.json").exists()
    finally:
        subprocess.run(["ip", "netns", "del", namespace], check=False)


def test_ndrpdr_cleanup_as_non_root_removes_nothing_and_succeeds(
    state_dir: Path, dead_run: DeadRun
) -> None:
    code = (
        "import os, sys\n"
        "from ndrpdr.cli.main import build_parser, main\n"
        "build_parser().parse_args(['cleanup'])\n"  # imports the command's module (lazily loaded)
        "os.setegid(65534); os.seteuid(65534)\n"  # nobody, after the imports
        "sys.exit(main(['cleanup']))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        env=_env(state_dir),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("not root: nothing removed")
    assert not dead_run.gone()
