"""DUT health during a search: checked after each trial, forced after a trial that lost
every frame, and a failed check ends the search with the trials so far.

The searches run on the simulator. ``DeadAfter`` wraps the sim TG and
reports every frame lost from a given trial on: a stand-in for a DUT that
died (the real kill, on the local testbed, is in
tests/cli/test_cli_dut_health.py).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from ndrpdr.activebed.testbed import ActiveTestbed
from ndrpdr.dut.base import DutError
from ndrpdr.families import profile_of as get_profile
from ndrpdr.goals import ndr_pdr_goals
from ndrpdr.results.schema import validate_record
from ndrpdr.search import TrialResult
from ndrpdr.searchrun import SearchRun
from ndrpdr.searchwatch import lost_every_frame
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.model import Topology
from ndrpdr.trafficgen.sim.driver import SimTrafficGenerator
from search_call import search_call

SIM = Path(__file__).resolve().parents[1] / "topologies" / "sim.yaml"
GOALS = ndr_pdr_goals(duration_sum_s=2.0, relative_width=0.02)


class DeadAfter(SimTrafficGenerator):
    """Stand-in for a DUT that dies: from trial ``dead_from`` (1-based) every frame is lost."""

    def __init__(self, topology: Topology, dead_from: int) -> None:
        super().__init__(topology)
        self.dead_from = dead_from
        self.trials = 0
        self.stops = 0

    def measure(self, duration: float, load: float) -> TrialResult:
        self.trials += 1
        result = super().measure(duration, load)
        if self.trials < self.dead_from:
            return result
        return dataclasses.replace(result, forwarded_count=0.0, loss_count=result.offered_count)

    def stop_traffic(self) -> None:
        self.stops += 1
        super().stop_traffic()


class Health:
    """A HealthCheck that records its calls and fails once the DUT is dead (when asked)."""

    def __init__(self, fail_when_lost: bool = True) -> None:
        self.calls: list[bool] = []
        self.fail_when_lost = fail_when_lost

    def __call__(self, *, lost_all: bool = False) -> None:
        self.calls.append(lost_all)
        if lost_all and self.fail_when_lost:
            raise DutError(
                "DUT1 (testpmd): health check: dpdk-testpmd (pid 1) has exited, killed by "
                "SIGKILL (exit status -9); log tail:\n(empty)"
            )


@pytest.fixture(scope="module")
def topology() -> Topology:
    return load_topology(SIM)


def _run(tg: SimTrafficGenerator, topology: Topology, **kwargs: Any) -> SearchRun:
    return search_call(
        tg, topology=topology, profile=get_profile("ethip4-ip4base"), frame_size=64, **kwargs
    )


def test_lost_every_frame() -> None:
    assert lost_every_frame(TrialResult(1.0, 1e5, offered_count=1e5, forwarded_count=0))
    assert not lost_every_frame(TrialResult(1.0, 1e5, offered_count=1e5, forwarded_count=1))
    # nothing sent at all (a dead sender) counts as every frame lost too
    assert lost_every_frame(TrialResult(1.0, 1e5, 0, forwarded_count=0, intended_count=1e5))


def test_a_healthy_search_checks_after_every_trial(topology: Topology) -> None:
    health = Health()
    outcome = _run(SimTrafficGenerator(topology), topology, goals=GOALS, health=health)
    assert outcome.error is None
    assert len(health.calls) == len(outcome.record.to_json()["trials"]) > 3
    lossy = [t["loss_ratio"] >= 1.0 for t in outcome.record.to_json()["trials"]]
    assert health.calls == lossy


def test_a_dead_dut_ends_the_search_with_the_trials_so_far(
    topology: Topology, tmp_path: Path
) -> None:
    tg = DeadAfter(topology, dead_from=4)
    health = Health()
    path = tmp_path / "record.json"
    outcome = _run(tg, topology, goals=GOALS, health=health, record_path=path)
    assert outcome.error is not None
    assert outcome.error.startswith("DUT1 (testpmd): health check: dpdk-testpmd (pid 1) has")
    assert health.calls == [False, False, False, True]  # the first dead trial ended it
    record = outcome.record.to_json()
    validate_record(record)
    assert record["status"] == "failed" and record["incomplete"] is True
    assert record["error"] == outcome.error
    assert len(record["trials"]) == 4 == tg.trials
    assert tg.stops >= 1  # traffic stopped
    # a DutError ends as the record's error: run_search returned instead of raising


def test_total_loss_at_the_min_load_is_checked_not_a_result(topology: Topology) -> None:
    tg = DeadAfter(topology, dead_from=1)  # dead from the start: even the min load loses all
    health = Health()
    outcome = _run(tg, topology, goals=GOALS, health=health, min_load_pps=10_000.0)
    assert health.calls == [True]
    assert outcome.error is not None and "DUT1" in outcome.error
    assert outcome.record.to_json()["status"] == "failed"


def test_check_duts_on_sim_names_a_stopped_dut(topology: Topology) -> None:
    with ActiveTestbed(topology) as testbed:
        testbed.configure_duts("ip4base")
        testbed.check_duts()  # the sim DUT never dies: nothing to say
        testbed.duts["DUT1"].stop()
        with pytest.raises(DutError, match=r"^DUT1 \(sim\): health check"):
            testbed.check_duts(lost_all=True)


def test_check_duts_respects_the_interval_unless_every_frame_was_lost(
    topology: Topology, monkeypatch: pytest.MonkeyPatch
) -> None:
    with ActiveTestbed(topology) as testbed:
        testbed.configure_duts("ip4base")
        dut = testbed.duts["DUT1"]
        checks: list[int] = []
        monkeypatch.setattr(dut, "health_check", lambda: checks.append(1))
        monkeypatch.setattr(dut, "health_interval_s", 3600.0, raising=False)
        testbed.check_duts()
        testbed.check_duts()  # within the interval: skipped
        assert len(checks) == 1
        testbed.check_duts(lost_all=True)  # forced
        assert len(checks) == 2
