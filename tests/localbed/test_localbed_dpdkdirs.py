"""Stale DPDK runtime directories, judged by the config lock of a real dpdk-testpmd.

Needs root and Debian's dpdk-testpmd (null vdevs, no hugepages, no NIC);
each test touches only directories with its own unique prefix.
"""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ndrpdr.localbed.dpdkdirs import DPDK_RUNTIME_ROOT, remove_stale_dpdk_dirs

pytestmark = [
    pytest.mark.real,
    pytest.mark.skipif(
        os.geteuid() != 0 or shutil.which("dpdk-testpmd") is None,
        reason="needs root and dpdk-testpmd",
    ),
]


@pytest.fixture
def prefix() -> Iterator[str]:
    name = f"ndrpdr-locktest-{secrets.token_hex(4)}"
    yield name
    shutil.rmtree(DPDK_RUNTIME_ROOT / name, ignore_errors=True)


def _start_testpmd(prefix: str) -> subprocess.Popen[bytes]:
    argv = [
        "dpdk-testpmd", "--lcores", "0@0,1@0", "--no-huge", "-m", "256", "--no-pci",
        "--vdev", "net_null0", "--vdev", "net_null1", "--file-prefix", prefix,
        "--", "--total-num-mbufs=4096", "--stats-period", "10",
    ]  # fmt: skip
    return subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _wait_for(path: Path, deadline_s: float = 20.0) -> None:
    end = time.monotonic() + deadline_s
    while not path.exists():
        assert time.monotonic() < end, f"{path} did not appear"
        time.sleep(0.1)


def test_a_live_processes_dir_stays_and_a_dead_ones_goes(prefix: str) -> None:
    process = _start_testpmd(prefix)
    directory = DPDK_RUNTIME_ROOT / prefix
    try:
        _wait_for(directory / "config")
        time.sleep(1.0)  # the lock is taken right after the file is made
        assert process.poll() is None, "testpmd exited: its lock cannot be judged"
        assert remove_stale_dpdk_dirs(min_age_s=0, prefix=prefix) == []
        assert directory.is_dir()
    finally:
        process.kill()
        process.wait()
    assert directory.is_dir()  # SIGKILL leaves it, as a SIGKILLed runner would
    removed = remove_stale_dpdk_dirs(min_age_s=0, prefix=prefix)
    assert removed == [f"DPDK runtime directory {directory} (no process holds its config)"]
    assert not directory.exists()


def test_young_and_foreign_dirs_are_left_alone(prefix: str, tmp_path: Path) -> None:
    (tmp_path / prefix).mkdir()
    (tmp_path / "rte").mkdir()
    assert remove_stale_dpdk_dirs(tmp_path, prefix=prefix) == []  # younger than a minute
    assert remove_stale_dpdk_dirs(tmp_path, min_age_s=0, prefix="other-") == []
    assert (tmp_path / prefix).is_dir()
    removed = remove_stale_dpdk_dirs(tmp_path, min_age_s=0, prefix=prefix)
    assert removed == [f"DPDK runtime directory {tmp_path / prefix} (no process holds its config)"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rte"]
