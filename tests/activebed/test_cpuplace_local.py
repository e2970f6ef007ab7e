"""CPU placement on the real local testbed: the DUT's pinning and RPS follow the claims.

Real namespaces, a real linux DUT (RPS masks) and a real dpdk-testpmd
(its CPU affinity read from /proc); the other run is a real child process
holding claims. Each test uses a private state directory and checks that
nothing of its run is left (no claim file, no state file).
"""

from __future__ import annotations

import dataclasses
import logging
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from ndrpdr.activebed.testbed import ActiveTestbed
from ndrpdr.localbed.plan import cpu_mask
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.model import Topology

pytestmark = pytest.mark.real  # a real system part: tests/testkinds.py

TOPOLOGIES = Path(__file__).resolve().parents[2] / "topologies"
LIBRARIES = str(Path(__file__).resolve().parents[2] / "libraries")
LOCAL_TOOLS = ("ip", "nft", "tc", "sysctl", "taskset")

#: Claims every CPU in argv[3:] for DUT1 of run argv[1], says "ready", holds until stdin ends.
HOLDER = """
import sys
from pathlib import Path
from ndrpdr.localbed.cpuclaim import CpuClaims
claims = CpuClaims(sys.argv[1], Path(sys.argv[2]))
with claims.choosing():
    for cpu in sys.argv[3:]:
        claims.claim("DUT1", int(cpu))
print("ready", flush=True)
sys.stdin.read()
claims.release()
"""


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    missing = [t for t in LOCAL_TOOLS if shutil.which(t) is None]
    if os.geteuid() != 0 or missing:
        pytest.skip(f"the local testbed needs root and {', '.join(missing) or 'its tools'}")
    directory = tmp_path / "state"
    monkeypatch.setenv("NDRPDR_STATE_DIR", str(directory))
    yield directory
    left = sorted(str(p.relative_to(directory)) for p in directory.rglob("*"))
    assert left == [], f"left in the state directory: {left}"


def hold(state: Path, run_id: str, cpus: list[int]) -> subprocess.Popen[str]:
    child = subprocess.Popen(
        [sys.executable, "-c", HOLDER, run_id, str(state / "cpus"), *map(str, cpus)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": LIBRARIES},
    )
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "ready"
    return child


def stop(child: subprocess.Popen[str]) -> None:
    """End the other run: it releases its claims."""
    assert child.stdin is not None
    child.stdin.close()
    assert child.wait(10) == 0


def in_netns(namespace: str, *argv: str) -> str:
    return subprocess.run(
        ["ip", "netns", "exec", namespace, *argv], capture_output=True, text=True, check=True
    ).stdout


def with_options(topology: Topology, key: str, **options: object) -> Topology:
    node = topology.nodes[key]
    nodes = {**topology.nodes, key: dataclasses.replace(node, options={**node.options, **options})}
    return dataclasses.replace(topology, nodes=nodes)


def test_linux_dut_shares_knowingly_when_another_run_holds_every_cpu(
    state: Path, caplog: pytest.LogCaptureFixture
) -> None:
    cpus = sorted(os.sched_getaffinity(0))
    other = hold(state, "other-1", cpus)
    try:
        topology = load_topology(TOPOLOGIES / "local-linux.yaml")
        with caplog.at_level(logging.WARNING), ActiveTestbed(topology) as testbed:
            testbed.configure_duts("ip4base")
            rps = in_netns(
                f"ndrpdr-{testbed.run_id}-dut", "cat", "/sys/class/net/dut-if1/queues/rx-0/rps_cpus"
            )
    finally:
        stop(other)
    expected = (
        f"cpu 1 (shared with run other-1 DUT1, pid {other.pid}: all {len(cpus)} CPUs claimed)"
    )
    assert testbed.telemetry["DUT1"]["cpu_placement"] == expected
    assert int(rps.replace(",", ""), 16) == int(cpu_mask(1).replace(",", ""), 16)
    assert f"DUT1: {expected}" in caplog.text
    assert "TG: cpu 0 (shared with run other-1 DUT1" in caplog.text


def test_linux_dut_claims_its_default_alone_and_a_killed_run_is_no_share(state: Path) -> None:
    cpus = sorted(os.sched_getaffinity(0))
    other = hold(state, "other-2", cpus)
    other.kill()  # SIGKILL: the kernel drops its locks; its claim files stay until a look
    other.wait()
    assert len(list((state / "cpus").iterdir())) == len(cpus)
    with ActiveTestbed(load_topology(TOPOLOGIES / "local-linux.yaml")) as testbed:
        testbed.configure_duts("ip4base")
        held = sorted(p.name for p in (state / "cpus").iterdir())
        run_id = testbed.run_id
    assert testbed.telemetry["DUT1"]["cpu_placement"] == "cpu 1 (claimed)"
    assert held == [f"cpu0.{run_id}.TG.lock", f"cpu1.{run_id}.DUT1.lock"]


def test_testpmd_is_pinned_to_the_cpu_it_was_given(state: Path) -> None:
    if shutil.which("dpdk-testpmd") is None:
        pytest.skip("dpdk-testpmd is not installed")
    cpus = sorted(os.sched_getaffinity(0))
    if 1 not in cpus or len(cpus) < 2:
        pytest.skip("needs CPU 1 and one more")
    # The TG takes CPU 1 (set), so the DUT's default is taken by its own run: it gets
    # the highest other CPU.
    topology = with_options(load_topology(TOPOLOGIES / "local-testpmd.yaml"), "TG", cpu=1)
    topology = with_options(topology, "DUT1", memory_mb=256)
    expected = max(c for c in cpus if c != 1)
    with ActiveTestbed(topology) as testbed:
        testbed.configure_duts("l2xc")
        pid = testbed.duts["DUT1"].pid  # type: ignore[attr-defined]
        status = Path(f"/proc/{pid}/status").read_text()
    allowed = [
        line.split()[1] for line in status.splitlines() if line.startswith("Cpus_allowed_list")
    ]
    assert allowed == [str(expected)]
    telemetry = testbed.telemetry["DUT1"]
    assert telemetry["cpu_placement"] == f"cpu {expected} (claimed)"
    assert f"testpmd pmd=af_packet cpu={expected}: running pid={pid}" in telemetry["state"]
