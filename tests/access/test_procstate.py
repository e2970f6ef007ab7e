"""procstate: a process tree's states read with ps through a real local access, exit statuses."""

from __future__ import annotations

import os
import signal
import time

import pytest

from ndrpdr.access.local import LocalTransport
from ndrpdr.access.procstate import describe_exit, parse_ps, process_tree


def test_describe_exit() -> None:
    assert describe_exit(None) == "exit status unknown"
    assert describe_exit(0) == "exit status 0"
    assert describe_exit(-15) == "killed by SIGTERM (exit status -15)"
    assert describe_exit(-200) == "killed by signal 200 (exit status -200)"
    assert describe_exit(137) == "exit status 137"  # not a shell's: a plain status
    assert describe_exit(137, shell=True) == "killed by SIGKILL (exit status 137)"
    assert describe_exit(1, shell=True) == "exit status 1"


def test_parse_ps_skips_what_is_not_a_process_line() -> None:
    table = parse_ps("  1     0 Ss   init\nPID PPID STAT COMMAND\n 42     1 Tl   _t-rex-64\n\n")
    assert sorted(table) == [1, 42]
    parent, state = table[42]
    assert parent == 1 and state.stopped and state.command == "_t-rex-64"
    assert state.describe() == "_t-rex-64 (pid 42) is stopped (SIGSTOP, state T)"


def test_a_stopped_grandchild_is_found_below_its_wrapper() -> None:
    access = LocalTransport("TG")
    wrapper = access.start(["sh", "-c", "sh -c 'sleep 30; true' & wait"])
    try:
        deadline = time.monotonic() + 5
        tree = process_tree(access, wrapper.pid)
        while len(tree) < 3:  # sh (the wrapper), sh, sleep
            assert time.monotonic() < deadline, tree
            time.sleep(0.02)
            tree = process_tree(access, wrapper.pid)
        assert tree[0].pid == wrapper.pid
        sleeper = next(p for p in tree if p.command == "sleep")
        assert not any(p.stopped for p in tree)
        os.kill(sleeper.pid, signal.SIGSTOP)
        while not any(p.stopped for p in process_tree(access, wrapper.pid)):
            assert time.monotonic() < deadline
            time.sleep(0.02)
        stopped = [p for p in process_tree(access, wrapper.pid) if p.stopped]
        assert [p.pid for p in stopped] == [sleeper.pid]
    finally:
        wrapper.stop(5.0)
    assert process_tree(access, wrapper.pid) == ()


@pytest.mark.parametrize("pid", [0x7FFFFFFF])
def test_a_process_that_is_gone_has_no_tree(pid: int) -> None:
    assert process_tree(LocalTransport("TG"), pid) == ()
