"""The ramp-up before a stateful family's search: trials, the state check, ramp-ups as state ages.

The TG forwards a given share of each trial; the DUT's state is a counter
the test keeps: each ramp-up trial makes a given share of the sessions, as
a NAT makes one per flow whose first frame arrives. The search itself runs
on the sim's TG and DUT model.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from ndrpdr.activebed.statecount import state_plan
from ndrpdr.families import get_family
from ndrpdr.families.stateful import RampUp, StateCount, StatePlan
from ndrpdr.goals import ndr_pdr_goals
from ndrpdr.rampup import RAMP_UP_ATTEMPTS, RampedTraffic, StateCheckError
from ndrpdr.results.record import RECORD_VERSION
from ndrpdr.results.schema import validate_record
from ndrpdr.search import TrialResult
from ndrpdr.topology.loader import load_topology
from ndrpdr.trafficgen.sim.driver import SimTrafficGenerator
from search_call import search_call

SIM = Path(__file__).resolve().parents[1] / "topologies" / "sim.yaml"
DET = "ethip4udp-nat44det-h65536-p63-s4128758"
FLOWS = 1000
RAMP = RampUp(rate_pps=2000.0, duration_s=0.6, state_timeout_s=100.0)


class LossyTG:
    """A TG forwarding ``forwarded`` of each trial's frames (a share, the first trials)."""

    def __init__(self, shares: list[float], max_load_pps: float = 1e6) -> None:
        self.shares = shares
        self.max_load_pps = max_load_pps
        self.trials: list[tuple[float, float]] = []
        self.stops = 0

    def measure(self, duration: float, load: float) -> TrialResult:
        self.trials.append((duration, load))
        share = self.shares.pop(0) if self.shares else 1.0
        offered = round(duration * load)
        return TrialResult(duration, load, offered, forwarded_count=round(offered * share))

    def stop_traffic(self) -> None:
        self.stops += 1

    def close(self) -> None:
        """Nothing to release."""


class Sessions:
    """The DUT's state: each ramp-up trial makes ``gain`` of the flows' sessions (to all)."""

    def __init__(self, tg: LossyTG, flows_sent: int, gain: float = 1.0) -> None:
        self.tg, self.flows_sent, self.gain = tg, flows_sent, gain
        self.count = 0
        self.seen = 0

    def __call__(self) -> StateCount:
        made = (len(self.tg.trials) - self.seen) * round(self.gain * self.flows_sent)
        self.count = min(self.flows_sent, self.count + made)
        self.seen = len(self.tg.trials)
        return StateCount("DUT1", "DET44 sessions", "show det44 mappings", self.count)


def plan(tg: LossyTG, gain: float = 1.0, counted: bool = True) -> StatePlan:
    counter = Sessions(tg, FLOWS, gain)
    return StatePlan(
        family=DET,
        ramp_up=RAMP,
        flows=FLOWS,
        flows_sent=FLOWS,
        directions=2,
        count_state=counter if counted else (lambda: None),
        uncounted="DUT1's sim driver keeps no count",
    )


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_prepare_ramps_up_once_at_the_family_rate_and_counts_every_flow() -> None:
    tg = LossyTG([1.0])
    ramped = RampedTraffic(tg, plan(tg))
    state = ramped.prepare()
    # 2000 pps per direction, 0.6 s: 1.2 frames per flow of 1000
    assert tg.trials == [(pytest.approx(0.6), 4000.0)]
    assert state is not None and state.count == FLOWS
    section = ramped.to_json()
    assert section["state"] == {
        "node": "DUT1",
        "what": "DET44 sessions",
        "command": "show det44 mappings",
        "count": FLOWS,
        "expected": FLOWS,
    }
    assert [t["why"] for t in section["trials"]] == ["before the search"]
    assert "DUT1: 1000 DET44 sessions (expected 1000)" in section["state_note"]


def test_a_short_count_ramps_up_again_at_half_the_rate_then_fails_naming_it() -> None:
    tg = LossyTG([1.0] * 5)
    ramped = RampedTraffic(tg, plan(tg, gain=0.3))  # each ramp-up reaches 30 % of the flows
    with pytest.raises(StateCheckError, match=r"DUT1: 900 DET44 sessions after 3 ramp-up.*"
                       r"expected 1000 \(one per flow sent; `show det44 mappings`\)"):  # fmt: skip
        ramped.prepare()
    assert len(tg.trials) == RAMP_UP_ATTEMPTS
    loads = [load for _, load in tg.trials]
    durations = [duration for duration, _ in tg.trials]
    assert loads == [4000.0, 2000.0, 1000.0]
    assert durations[1] == pytest.approx(2 * durations[0]) == pytest.approx(durations[2] / 2)
    assert [t["why"] for t in ramped.to_json()["trials"]][1] == (
        "attempt 2: 300 of 1000 DET44 sessions before"
    )


def test_a_count_that_stops_growing_is_not_ramped_up_again() -> None:
    tg = LossyTG([1.0] * 5)
    stuck = StatePlan(DET, RAMP, FLOWS, FLOWS, 2, lambda: StateCount("DUT1", "x", "show x", 5))
    with pytest.raises(StateCheckError, match="DUT1: 5 x after 2 ramp-up"):
        RampedTraffic(tg, stuck).prepare()
    assert len(tg.trials) == 2


def test_uncounted_state_is_said_in_the_record_not_failed() -> None:
    tg = LossyTG([])
    ramped = RampedTraffic(tg, plan(tg, counted=False))
    assert ramped.prepare() is None
    assert ramped.to_json()["state"] is None
    assert ramped.to_json()["state_note"].endswith("state not counted: DUT1's sim driver keeps "
                                                   "no count")  # fmt: skip


def test_the_ramp_up_rate_never_exceeds_the_tg() -> None:
    tg = LossyTG([], max_load_pps=1000.0)
    ramped = RampedTraffic(tg, plan(tg))
    assert ramped.rate_pps == 500.0 and ramped.load_pps == 1000.0
    assert ramped.duration_s == pytest.approx(RAMP.passes(FLOWS) * FLOWS / 500.0)


def test_trials_ramp_up_again_when_the_state_may_time_out_unless_a_good_trial_refreshed_it() -> (
    None
):
    tg = LossyTG([1.0, 0.5])  # the ramp-up, then a lossy trial that refreshes nothing
    clock = Clock()
    ramped = RampedTraffic(tg, plan(tg, counted=False), clock=clock)
    ramped.prepare()
    clock.now = 50.0
    ramped.measure(1.0, 4000.0)  # lossy: no refresh
    assert len(tg.trials) == 2
    clock.now = 98.5  # 98.5 + 1 s margin + 1 s trial >= 100 s since the ramp-up
    ramped.measure(1.0, 4000.0)
    assert len(tg.trials) == 4 and tg.trials[2][1] == ramped.load_pps
    clock.now = 150.0
    ramped.measure(1.0, 4000.0)  # a lossless trial of 4000 frames: every flow in each direction
    clock.now = 240.0
    ramped.measure(1.0, 100.0)  # 90 s since the refresh: no ramp-up
    assert len(tg.trials) == 6
    clock.now = 250.0
    ramped.measure(1.0, 100.0)  # 100 frames refresh nothing; 100 s since the 4000-frame trial
    assert len(tg.trials) == 8
    whys = [t["why"] for t in ramped.to_json()["trials"]]
    assert whys[0] == "before the search" and whys[1].startswith("state may time out (")
    assert tg.stops == 0
    ramped.stop_traffic()
    assert tg.stops == 1


def test_a_first_trial_without_prepare_ramps_up_first() -> None:
    tg = LossyTG([])
    RampedTraffic(tg, plan(tg)).measure(1.0, 10.0)
    assert tg.trials[0][1] == 4000.0 and tg.trials[1] == (1.0, 10.0)


def test_search_record_keeps_the_ramp_up_and_a_failed_check_stops_before_the_search() -> None:
    topology = load_topology(SIM)
    profile = get_family(DET).profile
    goals = ndr_pdr_goals(duration_sum_s=2.0, relative_width=0.05)
    sim = SimTrafficGenerator(topology, profile=profile)
    state = StatePlan(DET, RAMP, FLOWS, FLOWS, 2, lambda: StateCount("DUT1", "s", "show s", FLOWS))
    run = search_call(sim, topology=topology, profile=profile, frame_size=64, goals=goals,
                      state=state)  # fmt: skip
    record = run.record.to_json()
    validate_record(record)
    assert run.error is None and record["version"] == RECORD_VERSION
    section = record["search"]["ramp_up"]
    assert section["state"]["count"] == FLOWS and len(section["trials"]) >= 1
    assert record["trials"] and all(t["load_pps"] != section["load_pps"] for t in record["trials"])

    short = StatePlan(DET, RAMP, FLOWS, FLOWS, 2, lambda: StateCount("DUT1", "s", "show s", 7))
    failed = search_call(sim, topology=topology, profile=profile, frame_size=64, goals=goals,
                         state=short)  # fmt: skip
    record = failed.record.to_json()
    validate_record(record)
    assert failed.error is not None and "DUT1: 7 s after 2 ramp-up trial(s)" in failed.error
    assert record["trials"] == [] and len(record["search"]["ramp_up"]["trials"]) == 2


def test_a_ramp_up_as_long_as_the_state_lives_is_not_repeated_before_every_trial() -> None:
    """As on the lab in a box: 4128768 flows at a quarter of CSIT's rate outlast 240 s."""
    clock = Clock()
    tg = TimedTG(clock)
    long = StatePlan(DET, RampUp(rate_pps=10.0, duration_s=300.0, state_timeout_s=240.0),
                     3000, 3000, 2, lambda: None)  # fmt: skip
    ramped = RampedTraffic(tg, long, clock=clock)
    ramped.prepare()  # from 0 to 300 s: its first flows are 300 s old at its end
    for _ in range(3):
        ramped.measure(1.0, 10.0)
    assert len(tg.trials) == 4  # one ramp-up, three trials: none before each
    clock.now = 420.0  # half the state's lifetime after the ramp-up ended: due again
    ramped.measure(1.0, 10.0)
    assert len(tg.trials) == 6


class TimedTG(LossyTG):
    """A lossless TG whose trials take their duration on ``clock``."""

    def __init__(self, clock: Clock) -> None:
        super().__init__([])
        self.clock = clock

    def measure(self, duration: float, load: float) -> TrialResult:
        self.clock.now += duration
        return super().measure(duration, load)


def test_ramp_ups_again_never_outgrow_half_the_state_lifetime() -> None:
    tg = LossyTG([1.0] * 5)
    slow = StatePlan(DET, RampUp(rate_pps=100.0, duration_s=40.0, state_timeout_s=100.0),
                     4000, 4000, 2, Sessions(tg, 4000, gain=0.3))  # fmt: skip
    with pytest.raises(StateCheckError):
        RampedTraffic(tg, slow).prepare()
    assert [round(d) for d, _ in tg.trials] == [40, 40, 40]  # 80 s would outlive 50 s
    assert [load for _, load in tg.trials] == [200.0, 200.0, 200.0]


# -- a stateful ASTF family's ramp-up: by transactions, CSIT's rate for the whole scale ------
ASTF_TPUT = "ethip4tcp-nat44ed-h65536-p63-s4128768-tput"
SFDP_TPUT = "ethip4udp-sfdp-ip4-h1024-p63-s64512-tput"


def _astf_plan(family_id: str, count: int | None = None) -> StatePlan:
    """The family's plan on a fake 2-node VPP testbed whose DUT1 answers the session count."""
    summary = (
        f"tcp sessions:\n    total: {count} (timed out: 0)\n"
        "udp sessions:\n    total: 0 (timed out: 0)\n"
    )
    asked: list[str] = []

    def run_cli(command: str) -> str:
        asked.append(command)
        return summary

    testbed = SimpleNamespace(
        path=SimpleNamespace(duts=("DUT1",)),
        topology=SimpleNamespace(nodes={"DUT1": SimpleNamespace(driver="vpp")}),
        duts={"DUT1": SimpleNamespace(run_cli=run_cli)},
    )
    tg = SimpleNamespace(sends_frame_list=False)
    plan = state_plan(testbed, get_family(family_id), tg, 100, 2)  # type: ignore[arg-type]
    assert plan is not None
    return plan


def test_astf_ramp_up_is_csits_transaction_rate_for_the_whole_scale() -> None:
    """nat44ed tput: 30000 transactions/s (CSIT's ``ramp_up_rate``) of 17 TCP frames each, for
    4128768 / 30000 s; DUT1's NAT44 TCP sessions must then be the scale."""
    plan = _astf_plan(ASTF_TPUT, count=4128768)
    traffic = get_family(ASTF_TPUT).profile.transactions
    assert traffic is not None
    assert (plan.flows, plan.flows_sent, plan.complete_count) == (
        4128768, 4128768, traffic.expected())  # fmt: skip
    assert plan.trial_duration is not None
    assert plan.trial_duration(1.0, 4128768 * 17 / 2) == pytest.approx(2.0)  # the scale's time
    tg = LossyTG([], max_load_pps=1e9)
    ramped = RampedTraffic(tg, plan)
    assert (ramped.load_pps, ramped.duration_s) == (30000 * 17, pytest.approx(4128768 / 30000))
    state = ramped.prepare()
    assert state is not None and state.count == 4128768 and state.command == "show nat44 summary"
    assert tg.trials == [(pytest.approx(4128768 / 30000), 30000 * 17)]
    short = RampedTraffic(LossyTG([], max_load_pps=1e9), _astf_plan(ASTF_TPUT, count=4000000))
    with pytest.raises(StateCheckError, match=r"4000000 NAT44-ED TCP sessions .* expected 4128768"):
        short.prepare()


def test_astf_ramp_up_rate_is_aggregate_whatever_the_directions_and_capped_by_the_tg() -> None:
    plan = _astf_plan(ASTF_TPUT, count=4128768)
    capped = RampedTraffic(LossyTG([], max_load_pps=255000.0), plan)
    assert capped.load_pps == 255000.0  # half CSIT's rate: the TG's maximum, not per direction
    assert capped.duration_s == pytest.approx(2 * 4128768 / 30000)


def test_sfdp_tput_ramps_up_but_counts_nothing_as_csit() -> None:
    plan = _astf_plan(SFDP_TPUT)
    ramped = RampedTraffic(LossyTG([], max_load_pps=1e9), plan)
    assert ramped.load_pps == 50000 * 10 and ramped.duration_s == pytest.approx(64512 / 50000)
    assert ramped.prepare() is None
    assert "CSIT checks no state count" in ramped.note()


def test_astf_trials_ramp_up_again_by_their_real_duration_and_refresh_when_complete() -> None:
    """A trial runs the scale at its load (not the search's duration): one that would end
    past the state's lifetime is preceded by a ramp-up; a complete lossless one refreshes."""
    clock = Clock()
    tg = TimedTG(clock)
    plan = _astf_plan(SFDP_TPUT)
    ramped = RampedTraffic(tg, plan, clock=clock)
    ramped.prepare()
    clock.now = 150.0  # past half the lifetime since the ramp-up
    slow = 64512 * 10 / 200.0  # 200 s at 64512 x 10 frames: past 240 s since the ramp-up
    ramped.measure(1.0, slow)
    assert len(tg.trials) == 3 and tg.trials[1][1] == ramped.load_pps  # ramp-up, then trial
    clock.now = 250.0
    ramped.measure(1.0, 64512 * 10.0)  # complete (the scale's frames) and lossless: refreshes
    assert len(tg.trials) == 4
    clock.now = 420.0  # 270 s after the last ramp-up, 170 s after the refreshing trial
    ramped.measure(1.0, 64512 * 10.0)
    assert len(tg.trials) == 5  # no ramp-up: the complete trial counted as one
    clock.now = 600.0  # a TG ramped up anew, whose trial sends half the scale's frames
    incomplete = RampedTraffic(TimedTG(clock), _astf_plan(SFDP_TPUT), clock=clock)
    incomplete.prepare()
    clock.now = 790.0
    incomplete.measure(1.0, 64512 * 5.0)  # half the scale's frames: no refresh
    clock.now = 850.0  # 250 s after the ramp-up at 600
    incomplete.measure(1.0, 64512 * 5.0)
    assert incomplete.trials[-1].why.startswith("state may time out")
