"""A test's cores on the real local testbed with VPP: 1c runs on a worker, more is skipped.

Real namespaces, the real VPP v26.06 (af_packet) and real CPU claims in a
private state directory. On this machine the TG has CPU 0 and VPP's worker
CPU 1: one core is what it can give; a 2-core row is skipped saying so,
never run on fewer.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from ndrpdr.activebed.testbed import ActiveTestbed
from ndrpdr.dut.base import UnsupportedFamilyError
from ndrpdr.dut.cores import UnsupportedCoresError
from ndrpdr.families import get_family
from ndrpdr.topology.loader import load_topology
from vpp_build import vpp_problem

pytestmark = pytest.mark.real  # a real system part: tests/testkinds.py

TOPOLOGIES = Path(__file__).resolve().parents[2] / "topologies"
VPP = Path("/opt/vpp/v26.06/bin/vpp")
TOOLS = ("ip", "nft", "tc", "sysctl", "taskset")


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    missing = [t for t in TOOLS if shutil.which(t) is None]
    if os.geteuid() != 0 or missing:
        pytest.skip(f"the local testbed needs root and {', '.join(missing) or 'its tools'}")
    if vpp_problem() is not None:
        pytest.skip(vpp_problem() or "")
    directory = tmp_path / "state"
    monkeypatch.setenv("NDRPDR_STATE_DIR", str(directory))
    yield directory
    left = sorted(str(p.relative_to(directory)) for p in directory.rglob("*"))
    assert left == [], f"left in the state directory: {left}"


def test_one_core_runs_on_a_worker_and_more_than_the_machine_has_is_skipped(state: Path) -> None:
    cpus = sorted(os.sched_getaffinity(0))
    if cpus != [0, 1]:
        pytest.skip(f"written for this 2-CPU machine (CPUs here: {cpus})")
    family = get_family("ethip4-ip4base")
    with ActiveTestbed(load_topology(TOPOLOGIES / "local-vpp.yaml")) as testbed:
        placement = testbed.cpu_placements["DUT1"]
        if placement.shared or testbed.cpu_placements["TG"].cpu != 0:
            pytest.skip(f"another run holds a CPU: {placement.text}")
        with pytest.raises(UnsupportedCoresError) as caught:
            testbed.configure_family(family, cores=2)
        assert isinstance(caught.value, UnsupportedFamilyError)  # the keywords' skip
        assert str(caught.value) == (
            "DUT1 (vpp) needs 2 CPUs for 2 workers (and one more for its main thread), and "
            "has 1 for workers (options.worker_cores: [1]); this machine has 2 CPU(s) for the "
            "run: TG on cpu 0, DUT1 on cpu 1 (workers: cpu 1)"
        )
        testbed.configure_family(family, cores=1)  # the row it can run
        dut = testbed.duts["DUT1"]
        assert "Thread 1 (vpp_wk_0):" in dut.run_cli("show interface rx-placement")  # type: ignore[attr-defined]
        telemetry = testbed.collect_telemetry()["DUT1"]
    assert telemetry["cpu_layout"] == (
        "main thread on cpu 0, 1 worker(s) on cpu 1 (1 RX queue(s) per port)"
    )
    assert "host-dut-if1 queue 0 (polling)" in telemetry["show_rx_placement"]
    assert telemetry["cpu_placement"] == "cpu 1 (claimed)"
    assert telemetry["cpus"] == (
        "this machine has 2 CPU(s) for the run: TG on cpu 0, DUT1 on cpu 1 (workers: cpu 1)"
    )
    assert "vpp_wk_0" in telemetry["show_threads"]
