"""The reaper: a SIGKILLed runner's run is gone within 5 s; a torn-down run leaves no reaper.

Real: root, real namespaces, a real runner process killed with SIGKILL,
and (when dpdk-testpmd is installed) a real DPDK testpmd DUT. Each test
looks only at its own run (its run id, the PIDs it captured).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from localbed_helpers import netns_names, run_namespaces, topology_2n1l

from ndrpdr.localbed import LocalTestbed
from ndrpdr.localbed.procs import is_alive, start_time
from ndrpdr.localbed.reaper import reap
from ndrpdr.localbed.state import RunState, StateStore

pytestmark = pytest.mark.real  # a real system part: tests/testkinds.py

MakeTestbed = Callable[..., LocalTestbed]

_ROOT = Path(__file__).resolve().parents[2]

#: The issue's target: everything of a SIGKILLed run gone this soon after the kill [s].
GONE_WITHIN_S = 5.0

#: A runner with a LocalTestbed, a process that forks a grandchild (no parent-death signal:
#: only the reaper can end it) and a root-namespace veth end; prints what it made.
_RUNNER = textwrap.dedent(
    """
    import json, secrets, subprocess, time
    from localbed_helpers import topology_2n1l
    from ndrpdr.localbed import LocalTestbed
    from ndrpdr.localbed.procs import namespace_pids
    testbed = LocalTestbed(topology_2n1l())
    testbed.setup()
    shell = testbed.access("DUT1").start(["sh", "-c", "sleep 60 & wait"])
    veth = f"ndr{secrets.token_hex(4)}"
    testbed.track_interface(veth)
    subprocess.run(["ip", "link", "add", veth, "type", "veth", "peer", "name", "r0",
                    "netns", testbed.namespace("DUT1")], check=True)
    deadline = time.monotonic() + 5
    while len(namespace_pids(testbed.namespace("DUT1"))) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    print(json.dumps({"run_id": testbed.run_id, "reaper": testbed.reaper_pid,
                      "pids": namespace_pids(testbed.namespace("DUT1")), "veth": veth,
                      "state": str(testbed.state_file)}), flush=True)
    time.sleep(60)
    """
)

#: A runner that sets the testpmd topology up and starts the DUT, then prints what it made.
_TESTPMD_RUNNER = textwrap.dedent(
    """
    import json, sys, time
    from pathlib import Path
    from ndrpdr.localbed.procs import namespace_pids
    from ndrpdr.activebed.testbed import ActiveTestbed
    from ndrpdr.topology.loader import load_topology
    testbed = ActiveTestbed(load_topology(Path(sys.argv[1])))
    testbed.setup()
    testbed.configure_duts("ip4base")
    local = testbed._localbed
    print(json.dumps({"run_id": testbed.run_id, "reaper": local.reaper_pid,
                      "pids": namespace_pids(local.namespace("DUT1")),
                      "state": str(local.state_file)}), flush=True)
    time.sleep(120)
    """
)


def _start_runner(code: str, *args: str) -> tuple[subprocess.Popen[str], dict[str, Any]]:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(_ROOT / "libraries"), str(Path(__file__).parent)]),
    }
    runner = subprocess.Popen(
        [sys.executable, "-c", code, *args], stdout=subprocess.PIPE, text=True, env=env
    )
    assert runner.stdout is not None
    line = runner.stdout.readline()
    if not line:
        runner.kill()
        runner.wait()
        pytest.fail("the runner did not set its testbed up")
    return runner, json.loads(line)


def _left(run_id: str, state: Path, pids: list[int], veth: str | None) -> list[str]:
    left = sorted(run_namespaces(run_id))
    if state.exists():
        left.append(str(state))
    left += [f"pid {p}" for p in pids if is_alive(p)]
    if veth is not None and Path(f"/sys/class/net/{veth}").exists():
        left.append(f"interface {veth}")
    return left


def _kill_and_time(
    runner: subprocess.Popen[str], run_id: str, state: Path, pids: list[int], veth: str | None
) -> tuple[float, list[str]]:
    """SIGKILL the runner; seconds until nothing of its run is left (or what is left at 10 s)."""
    killed = time.monotonic()
    runner.kill()
    runner.wait()
    if runner.stdout is not None:
        runner.stdout.close()
    left = _left(run_id, state, pids, veth)
    while left and time.monotonic() - killed < 2 * GONE_WITHIN_S:
        time.sleep(0.02)
        left = _left(run_id, state, pids, veth)
    return time.monotonic() - killed, left


def _remove_if_left(run_id: str) -> None:
    for name in run_namespaces(run_id):
        subprocess.run(["ip", "netns", "del", name], check=False)


def test_a_sigkilled_runners_run_is_gone_within_5_s(state_dir: Path) -> None:
    runner, made = _start_runner(_RUNNER)
    run_id, veth, state = str(made["run_id"]), str(made["veth"]), Path(str(made["state"]))
    pids = [int(p) for p in made["pids"]]
    reaper = int(made["reaper"])
    try:
        assert len(pids) == 2  # the shell and its grandchild
        assert is_alive(reaper)
        assert json.loads(state.read_text())["reaper"]["pid"] == reaper
        seconds, left = _kill_and_time(runner, run_id, state, [*pids, reaper], veth)
        print(f"\nSIGKILLed run {run_id}: all gone after {seconds:.2f} s")
        assert not left, f"left {seconds:.1f} s after SIGKILL: {left}"
        assert seconds < GONE_WITHIN_S
    finally:
        _remove_if_left(run_id)


def test_a_sigkilled_runners_testpmd_dut_is_gone_within_5_s(state_dir: Path) -> None:
    if shutil.which("dpdk-testpmd") is None:
        pytest.skip("dpdk-testpmd is not installed")
    runner, made = _start_runner(_TESTPMD_RUNNER, str(_ROOT / "topologies/local-testpmd.yaml"))
    run_id, state = str(made["run_id"]), Path(str(made["state"]))
    pids = [int(p) for p in made["pids"]]
    try:
        names = {Path(f"/proc/{p}/comm").read_text().strip() for p in pids}
        assert "dpdk-testpmd" in names, names
        seconds, left = _kill_and_time(runner, run_id, state, [*pids, int(made["reaper"])], None)
        print(f"\nSIGKILLed testpmd run {run_id}: all gone after {seconds:.2f} s")
        assert not left, f"left {seconds:.1f} s after SIGKILL: {left}"
        assert seconds < GONE_WITHIN_S
    finally:
        _remove_if_left(run_id)


def test_a_torn_down_run_leaves_no_reaper(make_testbed: MakeTestbed) -> None:
    testbed = make_testbed(topology_2n1l())
    assert testbed.reaper_pid is None
    testbed.setup()
    reaper = testbed.reaper_pid
    assert reaper is not None
    assert is_alive(reaper)
    recorded = json.loads(testbed.state_file.read_text())["reaper"]
    assert recorded == {"pid": reaper, "start_time": start_time(reaper)}
    testbed.teardown()
    assert testbed.reaper_pid is None
    assert not Path(f"/proc/{reaper}").exists()  # ended and collected, no zombie


def test_the_reaper_leaves_a_live_run_alone_and_quits_when_its_state_file_goes(
    state_dir: Path,
) -> None:
    store = StateStore()
    own = os.getpid()
    namespace = f"ndrpdr-t13reap-{os.urandom(2).hex()}-x"
    state = RunState("t13reap", own, start_time(own) or 0, namespaces=[namespace])
    store.create(state)
    subprocess.run(["ip", "netns", "add", namespace], check=True)
    try:
        result: list[list[str]] = []
        waiter = threading.Thread(
            target=lambda: result.append(reap("t13reap", own, state.owner_start_time, store))
        )
        waiter.start()
        time.sleep(0.5)
        assert waiter.is_alive()  # the owner (this process) lives: the reaper waits
        assert namespace in netns_names()
        store.remove("t13reap")
        waiter.join(2.0)
        assert not waiter.is_alive()
        assert result == [[]]
        assert namespace in netns_names()  # a torn-down run's reaper removes nothing
    finally:
        subprocess.run(["ip", "netns", "del", namespace], check=False)
