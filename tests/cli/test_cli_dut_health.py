"""A DUT that dies or stops mid-search on the real local testbed fails ``ndrpdr search``.

``ndrpdr search`` runs as a child process on local-testpmd.yaml (or
local-linux.yaml) with ``--json``; once the record written as the search
goes holds three trials, the test kills (or SIGSTOPs) the dpdk-testpmd that
this child started, found among the child's own descendants by PID, or
sets a port of the child's own DUT namespace down (the kernel DUT has no
process). The search must then exit 1 within 10 s, say ``search failed:``
with the node, the process, its exit status or state and its log tail, and
leave a record (status failed, incomplete) with the trials from before.
Root, dpdk-testpmd and the local testbed's tools are needed (else skipped).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import ROOT, TOPOLOGIES

from ndrpdr.results.schema import validate_record

pytestmark = pytest.mark.real  # a real system part: tests/testkinds.py

TOOLS = ("ip", "nft", "tc", "sysctl", "taskset", "stdbuf", "tcpreplay")
#: The contract: the search ends this soon after the DUT dies [s].
DETECT_LIMIT_S = 10.0


def _require(*tools: str) -> None:
    if os.geteuid() != 0:
        pytest.skip("the local testbed needs root")
    missing = [tool for tool in (*TOOLS, *tools) if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"not installed: {', '.join(missing)}")


def _descendants(pid: int) -> list[int]:
    """PIDs below ``pid`` (children, their children...), from /proc."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        parents[int(entry.name)] = int(stat.rpartition(")")[2].split()[1])
    found, frontier = [], [pid]
    while frontier:
        parent = frontier.pop()
        children = [child for child, ppid in parents.items() if ppid == parent]
        found += children
        frontier += children
    return found


def _comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


class Search:
    """``ndrpdr search`` in a child process, its record read as it goes."""

    def __init__(self, topology: str, record: Path) -> None:
        self.record = record
        env = {**os.environ, "PYTHONPATH": str(ROOT / "libraries")}
        self.process = subprocess.Popen(
            [
                sys.executable, "-m", "ndrpdr", "search", "--topology",
                str(TOPOLOGIES / topology), "--json", str(record), "--no-latency",
                "--max-search-time", "120s", "--console", "verbose",
            ],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip

    def trials(self) -> list[dict[str, Any]]:
        try:
            trials: list[dict[str, Any]] = json.loads(self.record.read_text())["trials"]
        except (OSError, ValueError):
            return []
        return trials

    def wait_for_trials(self, count: int, timeout_s: float = 90.0) -> list[dict[str, Any]]:
        deadline = time.monotonic() + timeout_s
        while len(trials := self.trials()) < count:
            if self.process.poll() is not None:
                out, err = self.process.communicate()
                pytest.fail(f"the search ended before {count} trials:\n{out}\n{err}")
            assert time.monotonic() < deadline, f"no {count} trials in {timeout_s} s"
            time.sleep(0.05)
        return trials

    def finish(self) -> tuple[int, str, str, float]:
        """Exit status, stdout, stderr and seconds until the exit."""
        started = time.monotonic()
        try:
            out, err = self.process.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            self.process.kill()
            out, err = self.process.communicate()
            pytest.fail(f"the search did not end:\n{out}\n{err}")
        return self.process.returncode, out, err, time.monotonic() - started

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            self.finish()


@pytest.fixture
def search(tmp_path: Path) -> Any:
    made: list[Search] = []

    def start(topology: str) -> Search:
        made.append(Search(topology, tmp_path / "record.json"))
        return made[-1]

    yield start
    for one in made:
        one.kill()
        assert not [pid for pid in _descendants(one.process.pid) if _comm(pid)]


def _check_failed_record(search: Search, before: list[dict[str, Any]], error: str) -> None:
    record = json.loads(search.record.read_text())
    validate_record(record)
    assert record["status"] == "failed"
    assert record["incomplete"] is True
    assert record["error"] in error  # stderr holds "search failed: " + the record's error
    assert record["trials"][: len(before)] == before  # the trials from before, unchanged


@pytest.mark.parametrize(
    ("sent", "says"),
    [
        (signal.SIGKILL, "has exited, killed by SIGKILL (exit status -9)"),
        (signal.SIGSTOP, "is stopped (SIGSTOP), state T"),
    ],
    ids=["killed", "stopped"],
)
def test_testpmd_killed_or_stopped_fails_the_search(
    search: Any, sent: signal.Signals, says: str
) -> None:
    _require("dpdk-testpmd")
    run = search("local-testpmd.yaml")
    before = run.wait_for_trials(3)
    duts = [pid for pid in _descendants(run.process.pid) if _comm(pid) == "dpdk-testpmd"]
    assert len(duts) == 1, duts
    os.kill(duts[0], sent)
    status, _out, err, seconds = run.finish()
    assert status == 1, err
    assert seconds < DETECT_LIMIT_S, f"{seconds:.1f} s from the signal to the exit"
    assert f"search failed: DUT1 (testpmd): health check: dpdk-testpmd (pid {duts[0]}) " in err
    assert says in err
    assert "log tail:\n" in err
    assert "Traceback" not in err
    _check_failed_record(run, before, err)
    assert not Path(f"/proc/{duts[0]}").exists()  # the stopped one was ended too


def test_linux_dut_with_a_port_down_fails_the_search(search: Any) -> None:
    _require()
    run = search("local-linux.yaml")
    before = run.wait_for_trials(3)
    prefix = f"ndrpdr-{run.process.pid}-"  # the child's own namespaces (named by its PID)
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=True)
    names = [line.split()[0] for line in listed.stdout.splitlines() if line.startswith(prefix)]
    dut = [name for name in names if name.endswith("-dut")]
    assert len(dut) == 1, names
    down = ["ip", "netns", "exec", dut[0], "ip", "link", "set", "dut-if1", "down"]
    subprocess.run(down, check=True)
    status, _out, err, seconds = run.finish()
    assert status == 1, err
    assert seconds < DETECT_LIMIT_S, f"{seconds:.1f} s from the link down to the exit"
    assert "search failed: DUT1 (linux): health check: " in err
    assert "dut-if1" in err  # "link dut-if1 is not up", or its route gone with it
    _check_failed_record(run, before, err)
