"""ActiveTestbed: set-up, DUT configuration, TG drivers and teardown, on sim and for real.

The sim tests run anywhere. The local-linux tests build real namespaces
(root, iproute2, nftables, tc, tcpreplay) and check that nothing of their
run is left: no namespace, no state file, no child process.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from busy_kernel import assert_forwarded, assert_offered, tg_port_counts
from ndrpdr.activebed.nodes import uses_local_testbed
from ndrpdr.activebed.testbed import ActiveTestbed, TestbedError
from ndrpdr.dut.base import DutError
from ndrpdr.dut.sim import SimDutDriver
from ndrpdr.families import profile_of as get_profile
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.model import LocalAccess, Topology
from ndrpdr.trafficgen.base import TrafficGeneratorError
from ndrpdr.trafficgen.sim.driver import SimTrafficGenerator

pytestmark = pytest.mark.real  # a real system part: tests/testkinds.py

TOPOLOGIES = Path(__file__).resolve().parents[2] / "topologies"
L3 = get_profile("ethip4-ip4base")
L2 = get_profile("eth-l2xcbase")
LOCAL_TOOLS = ("ip", "nft", "tc", "sysctl", "taskset", "tcpreplay")


@pytest.fixture(scope="module")
def sim() -> Topology:
    return load_topology(TOPOLOGIES / "sim.yaml")


def _sim_dut(testbed: ActiveTestbed) -> SimDutDriver:
    dut = testbed.duts["DUT1"]
    assert isinstance(dut, SimDutDriver)
    return dut


# -- sim ------------------------------------------------------------------------------------


def test_uses_local_testbed(sim: Topology) -> None:
    assert not uses_local_testbed(sim)
    assert uses_local_testbed(load_topology(TOPOLOGIES / "local-linux.yaml"))


def test_nothing_before_setup(sim: Topology) -> None:
    testbed = ActiveTestbed(sim)
    assert testbed.duts == {}
    assert testbed.run_id is None
    with pytest.raises(TestbedError, match=r"not set up: call setup\(\) first"):
        testbed.traffic_generator(L3, 64)
    with pytest.raises(TestbedError, match="not set up"):
        testbed.configure_duts("ip4base")
    testbed.teardown()  # harmless before setup


def test_sim_lifecycle(sim: Topology) -> None:
    testbed = ActiveTestbed(sim)
    testbed.setup()
    testbed.setup()  # idempotent
    dut = _sim_dut(testbed)
    assert dut.running is False
    testbed.configure_duts("ip4base")
    assert dut.running is True
    assert dut.starts == 1
    assert dut.config is not None
    assert dut.config.mode == "ip4base"
    assert [p.routed_prefix for p in dut.config.ports] == ["198.18.0.0/24", "198.18.1.0/24"]
    testbed.configure_duts("l2xc")  # reconfigure: stop, configure, start again
    assert dut.starts == 2
    assert dut.config.mode == "l2xc"
    tg = testbed.traffic_generator(L3, 64)
    assert isinstance(tg, SimTrafficGenerator)
    assert tg.max_load_pps == 29761904
    assert testbed.traffic_generator(L3, 64, bidirectional=False).max_load_pps < tg.max_load_pps
    assert testbed.collect_telemetry()["DUT1"]["state"].endswith("running, started 2 time(s)")
    testbed.teardown()
    assert dut.running is False
    assert testbed.duts == {}
    assert "mode=l2xc" in testbed.telemetry["DUT1"]["state"]
    assert "stopped" not in testbed.telemetry["DUT1"]["state"]  # taken before the stop
    with pytest.raises(TestbedError):
        testbed.traffic_generator(L3, 64)
    testbed.teardown()  # idempotent


def test_sim_context_manager(sim: Topology) -> None:
    with ActiveTestbed(sim) as testbed:
        testbed.configure_duts("ip4base")
        dut = _sim_dut(testbed)
        trial = testbed.traffic_generator(L3, 64).measure(1.0, 1e6)
        assert trial.loss_count == 0
    assert dut.running is False
    assert "DUT1" in testbed.telemetry


@pytest.mark.parametrize("error", [RuntimeError("boom"), KeyboardInterrupt()])
def test_sim_teardown_when_the_body_raises(sim: Topology, error: BaseException) -> None:
    with pytest.raises(type(error)), ActiveTestbed(sim) as testbed:
        testbed.configure_duts("ip4base")
        dut = _sim_dut(testbed)
        raise error
    assert dut.running is False
    assert testbed.duts == {}
    assert "DUT1" in testbed.telemetry


def test_unknown_node(sim: Topology) -> None:
    with ActiveTestbed(sim) as testbed, pytest.raises(TestbedError, match="no node 'DUT9'"):
        testbed.access("DUT9")


def test_trex_session_is_checked_at_setup(sim: Topology) -> None:
    """A trex TG's session is made at set-up: its option errors belong to the set-up."""
    tg = dataclasses.replace(sim.tg, driver="trex")
    topology = dataclasses.replace(sim, nodes={**sim.nodes, "TG": tg})
    testbed = ActiveTestbed(topology)
    with pytest.raises(TrafficGeneratorError) as raised:
        testbed.setup()
    assert "nodes.TG.options.overhead_s: unknown option; known: install_dir" in str(raised.value)
    assert testbed.session is None and testbed.duts == {}


def test_failed_setup_is_undone(sim: Topology) -> None:
    dut = dataclasses.replace(sim.duts[0], driver="vpp", access=LocalAccess())
    topology = dataclasses.replace(sim, nodes={**sim.nodes, "DUT1": dut})
    testbed = ActiveTestbed(topology)
    with pytest.raises(DutError, match=r"nodes\.DUT1\.options\.model: unknown option"):
        testbed.setup()  # the sim DUT's options are no vpp options
    assert testbed.duts == {}
    with pytest.raises(TestbedError, match="not set up"):
        testbed.configure_duts("ip4base")


def test_failing_dut_start_is_still_stopped(sim: Topology, monkeypatch: pytest.MonkeyPatch) -> None:
    stopped: list[str] = []

    def bad_health(self: SimDutDriver) -> None:
        raise DutError(f"{self.node}: not forwarding")

    original_stop = SimDutDriver.stop

    def stop(self: SimDutDriver) -> None:
        stopped.append(self.node)
        original_stop(self)

    monkeypatch.setattr(SimDutDriver, "health_check", bad_health)
    monkeypatch.setattr(SimDutDriver, "stop", stop)
    with pytest.raises(DutError, match="not forwarding"), ActiveTestbed(sim) as testbed:
        testbed.configure_duts("ip4base")
    assert stopped == ["DUT1"]
    assert "DUT1" in testbed.telemetry


def test_ctrl_c_during_teardown(sim: Topology, monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(self: SimDutDriver) -> None:
        raise KeyboardInterrupt

    testbed = ActiveTestbed(sim)
    testbed.setup()
    testbed.configure_duts("ip4base")
    monkeypatch.setattr(SimDutDriver, "stop", interrupted)
    with pytest.raises(KeyboardInterrupt):
        testbed.teardown()
    assert testbed.duts == {}
    with pytest.raises(TestbedError, match="not set up"):
        testbed.traffic_generator(L3, 64)
    testbed.teardown()  # nothing left to do


def test_stop_duts_keeps_the_testbed_up(sim: Topology) -> None:
    testbed = ActiveTestbed(sim)
    testbed.setup()
    try:
        testbed.stop_duts()  # nothing started yet: nothing to do
        assert testbed.telemetry == {}
        testbed.configure_duts("ip4base")
        dut = _sim_dut(testbed)
        assert dut.running is True
        testbed.stop_duts()
        assert dut.running is False
        state = testbed.telemetry["DUT1"]["state"]
        assert "mode=ip4base" in state
        assert "running, started 1 time(s)" in state  # kept before the stop
        assert testbed.duts == {"DUT1": dut}  # the testbed stays up
        assert testbed.collect_telemetry()["DUT1"]["state"] == state  # no started DUT to read
        trial = testbed.traffic_generator(L3, 64).measure(1.0, 1e6)
        assert trial.offered_count > 0
        testbed.stop_duts()  # again: nothing left to stop
        assert dut.running is False
        testbed.configure_duts("l2xc")  # and the DUTs start again
        assert dut.running is True
        assert dut.starts == 2
    finally:
        testbed.teardown()
    assert dut.running is False
    assert "mode=l2xc" in testbed.telemetry["DUT1"]["state"]


def test_stop_duts_before_setup(sim: Topology) -> None:
    testbed = ActiveTestbed(sim)
    testbed.stop_duts()  # harmless
    assert testbed.duts == {}
    assert testbed.telemetry == {}


def test_stop_duts_stops_even_when_telemetry_fails(
    sim: Topology, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(self: SimDutDriver) -> dict[str, str]:
        raise DutError(f"{self.node}: telemetry: gone")

    with ActiveTestbed(sim) as testbed:
        testbed.configure_duts("ip4base")
        dut = _sim_dut(testbed)
        monkeypatch.setattr(SimDutDriver, "telemetry", broken)
        with pytest.raises(TestbedError, match="DUT1 telemetry: DUT1: telemetry: gone"):
            testbed.stop_duts()
        assert dut.running is False
        monkeypatch.undo()
        testbed.stop_duts()  # the DUT is no longer counted as started
        assert "DUT1" not in testbed.telemetry


# -- local-linux (real) -------------------------------------------------------------------


def _descendants(root: int) -> set[int]:
    """PIDs of every process below ``root`` (zombies included)."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(entry)] = int(fields[1])
    found: set[int] = set()
    frontier = {root}
    while frontier:
        children = {pid for pid, ppid in parents.items() if ppid in frontier} - found
        found |= children
        frontier = children
    return found


def _run_namespaces(run_id: str) -> list[str]:
    listing = subprocess.run(
        ["ip", "netns", "list"], capture_output=True, text=True, check=True
    ).stdout
    return [line.split()[0] for line in listing.splitlines() if f"ndrpdr-{run_id}-" in line]


@pytest.fixture
def local_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A private state directory for a local testbed run; checks nothing is left."""
    missing = [t for t in LOCAL_TOOLS if shutil.which(t) is None]
    if os.geteuid() != 0 or missing:
        pytest.skip(f"the local testbed needs root and {', '.join(missing) or 'its tools'}")
    state = tmp_path / "state"
    monkeypatch.setenv("NDRPDR_STATE_DIR", str(state))
    before = _descendants(os.getpid())
    yield state
    assert _descendants(os.getpid()) <= before, "child processes left"
    assert not state.exists() or list(state.iterdir()) == [], "state files left"


@pytest.fixture
def local_linux(local_state: Path) -> Topology:
    """topologies/local-linux.yaml, run with ``local_state``."""
    return load_topology(TOPOLOGIES / "local-linux.yaml")


def test_local_linux_trial(local_linux: Topology) -> None:
    with ActiveTestbed(local_linux) as testbed:
        run_id = testbed.run_id
        assert run_id is not None
        assert sorted(_run_namespaces(run_id)) == [
            f"ndrpdr-{run_id}-dut",
            f"ndrpdr-{run_id}-tg",
        ]
        testbed.configure_duts("ip4base")
        tg = testbed.traffic_generator(L3, 64)
        assert tg.max_load_pps == 800_000
        with tg_port_counts(f"ndrpdr-{run_id}-tg", "tg-if1", "tg-if2") as ports:
            trial = tg.measure(0.5, 20_000)
    assert trial.intended_count == 10_000
    assert_offered(trial.offered_count, ports, 10_000)
    assert_forwarded(trial.forwarded_count, 10_000)  # all, but for what a busy kernel drops
    assert _run_namespaces(run_id) == []
    telemetry = testbed.telemetry["DUT1"]
    assert telemetry["state"] == "linux mode=ip4base: running"  # read before the stop
    assert "198.18.1.0/24 via 192.168.20.2 dev dut-if2" in telemetry["ip_route"]
    assert "dut-if1" in telemetry["ip_link"]


@pytest.mark.parametrize("error", [RuntimeError("boom"), KeyboardInterrupt()])
def test_local_linux_teardown_when_the_body_raises(
    local_linux: Topology, error: BaseException
) -> None:
    run_ids: list[str] = []
    with pytest.raises(type(error)), ActiveTestbed(local_linux) as testbed:
        assert testbed.run_id is not None
        run_ids.append(testbed.run_id)
        testbed.configure_duts("ip4base")
        assert len(_run_namespaces(testbed.run_id)) == 2
        raise error
    assert _run_namespaces(run_ids[0]) == []
    assert testbed.telemetry["DUT1"]["state"] == "linux mode=ip4base: running"
    assert testbed.duts == {}


def test_local_linux_given_run_id(local_linux: Topology) -> None:
    run_id = f"t{os.getpid()}-active"
    testbed = ActiveTestbed(local_linux, run_id=run_id)
    assert testbed.run_id == run_id
    try:
        testbed.setup()
        assert testbed.run_id == run_id
        assert len(_run_namespaces(run_id)) == 2
    finally:
        testbed.teardown()
    assert _run_namespaces(run_id) == []


def test_local_linux_ctrl_c_during_teardown(
    local_linux: Topology, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ndrpdr.dut.linux import LinuxDriver

    def interrupted(self: LinuxDriver) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(LinuxDriver, "stop", interrupted)
    with pytest.raises(KeyboardInterrupt), ActiveTestbed(local_linux) as testbed:
        run_id = testbed.run_id
        assert run_id is not None
        testbed.configure_duts("ip4base")
    assert _run_namespaces(run_id) == []  # removed although the DUT stop was cut short


def test_local_linux_three_node_trial(local_state: Path) -> None:
    """Real frames through two DUT namespaces: DUT1 routes to DUT2 over their own veth pair."""
    topology = load_topology(TOPOLOGIES / "local-linux-3n.yaml")
    with ActiveTestbed(topology) as testbed:
        run_id = testbed.run_id
        assert run_id is not None
        assert sorted(_run_namespaces(run_id)) == [
            f"ndrpdr-{run_id}-dut1",
            f"ndrpdr-{run_id}-dut2",
            f"ndrpdr-{run_id}-tg",
        ]
        testbed.configure_duts("ip4base")
        tg = testbed.traffic_generator(L3, 64)
        with tg_port_counts(f"ndrpdr-{run_id}-tg", "tg-if1", "tg-if2") as ports:
            trial = tg.measure(0.5, 20_000)
    assert_offered(trial.offered_count, ports, 10_000)
    # Far below the knee: the kernel loses nothing, but for what it drops when busy.
    assert_forwarded(trial.forwarded_count, 10_000)
    assert _run_namespaces(run_id) == []
    routes = testbed.telemetry["DUT1"]["ip_route"]
    assert "198.18.1.0/24 via 192.168.101.2 dev dut1-if2" in routes  # towards DUT2
    assert "198.18.0.0/24 via 192.168.101.1 dev dut2-if1" in testbed.telemetry["DUT2"]["ip_route"]
