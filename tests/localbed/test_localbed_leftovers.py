"""cleanup_leftovers: removes what a SIGKILLed run left, never a live run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from localbed_helpers import netns_names, run_namespaces, topology_2n1l

from ndrpdr.localbed import LocalTestbed, cleanup_leftovers
from ndrpdr.localbed.leftovers import remove_run
from ndrpdr.localbed.procs import is_alive
from ndrpdr.localbed.state import RunState, StateStore, temp_file

pytestmark = pytest.mark.real  # a real system part: tests/testkinds.py

MakeTestbed = Callable[..., LocalTestbed]

_ROOT = Path(__file__).resolve().parents[2]

_CHILD = textwrap.dedent(
    """
    import json, sys, time
    from localbed_helpers import topology_2n1l
    from ndrpdr.localbed import LocalTestbed
    from ndrpdr.localbed.procs import namespace_pids
    import secrets, subprocess
    testbed = LocalTestbed(topology_2n1l())
    testbed.setup()
    shell = testbed.access("DUT1").start(["sh", "-c", "sleep 60 & wait"])
    veth = f"ndt{secrets.token_hex(4)}"
    testbed.track_interface(veth)
    subprocess.run(["ip", "link", "add", veth, "type", "veth", "peer", "name", "m0",
                    "netns", testbed.namespace("DUT1")], check=True)
    deadline = time.monotonic() + 5
    while len(namespace_pids(testbed.namespace("DUT1"))) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    sleeper = [p for p in namespace_pids(testbed.namespace("DUT1")) if p != shell.pid]
    print(json.dumps({"run_id": testbed.run_id, "shell": shell.pid, "sleeper": sleeper[0],
                      "veth": veth, "reaper": testbed.reaper_pid}), flush=True)
    time.sleep(60)
    """
)


@pytest.fixture
def extra_namespaces() -> Iterator[list[str]]:
    """Namespaces a test makes by hand; deleted afterwards if still there."""
    made: list[str] = []
    yield made
    for name in made:
        if name in netns_names():
            subprocess.run(["ip", "netns", "del", name], check=False)


def dead_pid() -> int:
    """The PID of a process that has exited (and been reaped)."""
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def test_cleanup_removes_a_killed_run_and_keeps_a_live_one(
    make_testbed: MakeTestbed, state_dir: Path, extra_namespaces: list[str]
) -> None:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(_ROOT / "libraries"), str(Path(__file__).parent)]),
    }
    child = subprocess.Popen(
        [sys.executable, "-c", _CHILD], stdout=subprocess.PIPE, text=True, env=env
    )
    try:
        assert child.stdout is not None
        line = child.stdout.readline()
        assert line, "the child process did not set up its testbed"
        info = json.loads(line)
        # Its reaper first, as an OOM kill or a kill of everything might: cleanup must cope.
        os.kill(info["reaper"], signal.SIGKILL)
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        if child.stdout is not None:
            child.stdout.close()
    run_id, shell, sleeper, veth = info["run_id"], info["shell"], info["sleeper"], info["veth"]
    extra_namespaces.extend(run_namespaces(run_id))  # removed even if the test fails
    assert len(run_namespaces(run_id)) == 2
    assert (state_dir / f"{run_id}.json").exists()
    deadline = time.monotonic() + 2
    while is_alive(shell) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not is_alive(shell)  # the parent-death signal ended what the runner started...
    assert is_alive(sleeper)  # ...but not what that forked: only a reaper or cleanup can
    assert Path(f"/sys/class/net/{veth}").exists()
    logs = json.loads((state_dir / f"{run_id}.json").read_text())["logs"]
    assert len(logs) == 1
    assert Path(logs[0]).exists()

    with make_testbed(topology_2n1l()) as live:
        removed = cleanup_leftovers()
        assert not run_namespaces(run_id)
        assert not (state_dir / f"{run_id}.json").exists()
        assert not is_alive(sleeper)
        assert not Path(logs[0]).exists()
        assert not Path(f"/sys/class/net/{veth}").exists()
        assert f"interface {veth}" in "\n".join(removed)
        assert any(f"ndrpdr-{run_id}-tg" in r for r in removed)
        assert any(str(sleeper) in r for r in removed)
        # the live run is untouched
        assert len(run_namespaces(live.run_id)) == 2
        assert live.state_file.exists()
        assert not any(live.run_id in r for r in removed)
        assert not [r for r in cleanup_leftovers() if run_id in r or live.run_id in r]


def test_cleanup_judges_namespaces_without_state_by_their_pid(
    state_dir: Path, extra_namespaces: list[str]
) -> None:
    dead = f"ndrpdr-{dead_pid()}-abcd-tg"
    live = f"ndrpdr-{os.getpid()}-abcd-tg"
    other = "ndrpdr-handmade-x"
    for name in (dead, live, other):
        extra_namespaces.append(name)
        subprocess.run(["ip", "netns", "add", name], check=True)
    removed = cleanup_leftovers()
    assert any(dead in r for r in removed)
    names = netns_names()
    assert dead not in names
    assert live in names
    assert other in names


def test_cleanup_handles_a_dead_owner_with_a_reused_pid(
    make_testbed: MakeTestbed, state_dir: Path
) -> None:
    testbed = make_testbed(topology_2n1l())
    testbed.setup()
    # Pretend the owner was an earlier process with our PID (start time differs).
    state = json.loads(testbed.state_file.read_text())
    state["owner"]["start_time"] -= 1
    testbed.state_file.write_text(json.dumps(state))
    removed = cleanup_leftovers()
    assert any(testbed.run_id in r for r in removed)
    assert not run_namespaces(testbed.run_id)
    assert not testbed.state_file.exists()
    testbed.teardown()  # already gone: no error


def test_remove_run_takes_the_state_temp_file_of_an_owner_killed_while_saving(
    tmp_path: Path,
) -> None:
    """A runner SIGKILLed inside StateStore.save leaves ``.tmp-<pid>-<run>``: it goes with the run.

    The owner is a real process that has exited; another writer's temp file stays.
    """
    owner = subprocess.Popen([sys.executable, "-c", "pass"])
    owner.wait()
    store = StateStore(tmp_path)
    state = RunState("t13temp-1", owner.pid, 1)
    store.create(state)
    mine = temp_file(tmp_path, owner.pid, state.run_id)
    mine.write_text("{")
    other = temp_file(tmp_path, os.getpid(), "t13temp-2")
    other.write_text("{")
    removed = remove_run(store.path(state.run_id), state)
    assert f"temporary file {mine}" in removed
    assert removed[-1] == f"state file {store.path(state.run_id)}"  # the state file goes last
    assert not mine.exists() and not store.path(state.run_id).exists()
    assert other.exists()
