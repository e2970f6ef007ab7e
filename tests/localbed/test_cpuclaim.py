"""CPU claims between real processes: flock'd claim files, seen, shared, freed by death.

Every claim here is a real ``flock`` held by a real process (this one or
a child Python process), in a private state directory under tmp_path.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from ndrpdr.localbed.cpuclaim import CpuClaims, CpuHolder, remove_stale_claims
from ndrpdr.localbed.leftovers import cleanup_leftovers
from ndrpdr.localbed.state import StateStore

LIBRARIES = str(Path(__file__).resolve().parents[2] / "libraries")

#: A child that claims the CPUs in argv[3:] for DUT1 of run argv[1], says "ready", then
#: waits for a line on stdin; with "pick", it waits first, then claims the lowest free CPU
#: among argv[3:] and prints it.
CHILD = """
import sys
from pathlib import Path
from ndrpdr.localbed.cpuclaim import CpuClaims
claims = CpuClaims(sys.argv[1], Path(sys.argv[2]))
if sys.argv[3] == "pick":
    print("ready", flush=True)
    sys.stdin.readline()
    with claims.choosing() as holders:
        cpu = min(int(c) for c in sys.argv[4:] if int(c) not in holders)
        claims.claim("DUT1", cpu)
    print(cpu, flush=True)
else:
    with claims.choosing():
        for cpu in sys.argv[3:]:
            claims.claim("DUT1", int(cpu))
    print("ready", flush=True)
sys.stdin.readline()
claims.release()
"""

Start = Callable[..., subprocess.Popen[str]]


@pytest.fixture
def claim_dir(tmp_path: Path) -> Path:
    return tmp_path / "state" / "cpus"


@pytest.fixture
def start_child(claim_dir: Path) -> Iterator[Start]:
    """Start claiming children; each is killed (by PID) at the end if still running."""
    children: list[subprocess.Popen[str]] = []

    def start(run_id: str, *args: str, wait: bool = True) -> subprocess.Popen[str]:
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD, run_id, str(claim_dir), *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": LIBRARIES},
        )
        children.append(child)
        if wait:
            assert child.stdout is not None
            assert child.stdout.readline().strip() == "ready"
        return child

    yield start
    for child in children:
        if child.poll() is None:
            child.kill()
        child.wait()


def test_a_claim_of_another_process_is_seen(claim_dir: Path, start_child: Start) -> None:
    child = start_child("c-1", "1")
    with CpuClaims("p-1", claim_dir) as mine:
        assert mine.holders() == {1: [CpuHolder(1, "c-1", "DUT1", child.pid)]}
        with mine.choosing() as holders:
            mine.claim("DUT1", 1)  # sharing is allowed: both hold CPU 1
            assert 0 not in holders
        assert sorted(h.run_id for h in mine.holders()[1]) == ["c-1", "p-1"]


def test_a_run_that_joins_later_is_told_to_the_holder(claim_dir: Path, start_child: Start) -> None:
    with CpuClaims("p-6", claim_dir) as mine:
        with mine.choosing():
            mine.claim("DUT1", 1)
        assert mine.joined("DUT1") == []
        child = start_child("c-6", "1", "0")
        child.kill()  # gone before the holder looks: still named
        child.wait()
        assert mine.joined("DUT1") == [CpuHolder(1, "c-6", "DUT1", child.pid)]
        assert mine.joined("TG") == []


def test_a_killed_claimer_frees_its_claim(claim_dir: Path, start_child: Start) -> None:
    child = start_child("c-2", "0", "1")
    with CpuClaims("p-2", claim_dir) as mine:
        assert set(mine.holders()) == {0, 1}
        child.send_signal(signal.SIGKILL)
        child.wait()
        assert sorted(claim_dir.glob("cpu*.lock")) != []  # its files are still there...
        assert mine.holders() == {}  # ...but no lock: the look removes them
        assert sorted(claim_dir.glob("cpu*.lock")) == []


def test_remove_stale_claims_says_what_it_removed(claim_dir: Path, start_child: Start) -> None:
    live = start_child("c-live", "0")
    dead = start_child("c-dead", "1")
    dead.kill()
    dead.wait()
    removed = remove_stale_claims(claim_dir)
    assert removed == [f"CPU claim file {claim_dir}/cpu1.c-dead.DUT1.lock (its runner is gone)"]
    assert [p.name for p in claim_dir.iterdir()] == ["cpu0.c-live.DUT1.lock"]
    assert live.poll() is None
    assert remove_stale_claims(claim_dir.parent / "nothing") == []


def test_concurrent_claimers_never_take_the_same_free_cpu(
    claim_dir: Path, start_child: Start
) -> None:
    cpus = [str(c) for c in range(6)]
    children = [start_child(f"c-{i}", "pick", *cpus, wait=False) for i in range(6)]
    for child in children:  # all wait for "go": then they choose at the same moment
        assert child.stdin is not None and child.stdout is not None
        assert child.stdout.readline().strip() == "ready"
    for child in children:
        assert child.stdin is not None
        child.stdin.write("go\n")
        child.stdin.flush()
    picked = []
    for child in children:
        assert child.stdout is not None
        picked.append(int(child.stdout.readline()))
    assert sorted(picked) == list(range(6))


def test_claims_are_not_inherited_by_child_processes(claim_dir: Path) -> None:
    with CpuClaims("p-3", claim_dir) as mine:
        with mine.choosing():
            mine.claim("TG", 0)
        (path,) = mine.held
        sleeper = subprocess.Popen(["sleep", "30"], close_fds=False)
        try:
            links = [
                os.readlink(f"/proc/{sleeper.pid}/fd/{fd}")
                for fd in os.listdir(f"/proc/{sleeper.pid}/fd")
            ]
        finally:
            sleeper.kill()
            sleeper.wait()
        assert str(path) not in links
        assert str(claim_dir.parent) not in links


def test_release_leaves_nothing_behind(claim_dir: Path, start_child: Start) -> None:
    claims = CpuClaims("p-4", claim_dir)
    with claims.choosing():
        claims.claim("DUT1", 1)
        claims.claim("DUT2", 1)
    assert len(claims.held) == 2
    claims.release()
    claims.release()  # idempotent
    assert claims.held == ()
    assert list(claim_dir.parent.iterdir()) == []  # the cpus directory went with its last claim
    child = start_child("c-5", "1")
    assert child.stdin is not None
    child.stdin.write("done\n")
    child.stdin.flush()
    assert child.wait(10) == 0
    assert list(claim_dir.parent.iterdir()) == []


def test_cleanup_leftovers_removes_a_dead_runners_claims(
    claim_dir: Path, start_child: Start
) -> None:
    """The entry points' cleanup (and so a SIGKILLed run's next run) takes stale claims too."""
    live = start_child("c-on", "0")
    dead = start_child("c-off", "1")
    dead.kill()
    dead.wait()
    removed = cleanup_leftovers(StateStore(claim_dir.parent), reaper_wait_s=0)
    assert f"CPU claim file {claim_dir}/cpu1.c-off.DUT1.lock (its runner is gone)" in removed
    assert [p.name for p in claim_dir.iterdir()] == ["cpu0.c-on.DUT1.lock"]
    assert live.poll() is None
