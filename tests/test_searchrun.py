"""run_search: a record in every case, trials kept on failure, traffic always stopped."""

from __future__ import annotations

import traceback
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from ndrpdr.dut.base import DutError
from ndrpdr.families import profile_of as get_profile
from ndrpdr.goals import ndr_pdr_goals
from ndrpdr.results.schema import validate_record
from ndrpdr.results.tglimit import CAPPED_REASON
from ndrpdr.runflow import measurer_cause
from ndrpdr.search import SearchResult, TrialResult, result_so_far
from ndrpdr.searchlimits import default_min_load
from ndrpdr.searchrun import SearchRun
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.model import Topology
from ndrpdr.trafficgen.base import TrafficGeneratorError
from ndrpdr.trafficgen.sim.driver import SimTrafficGenerator
from search_call import search_call

SIM = Path(__file__).resolve().parents[1] / "topologies" / "sim.yaml"
PROFILE = get_profile("ethip4-ip4base")
#: Quick goals: 1 s trials, 2 s per load, 2 % width.
GOALS = ndr_pdr_goals(duration_sum_s=2.0, relative_width=0.02)


class SpyTG:
    """The sim TG, failing with ``error`` on trial ``fail_at`` (1-based); counts stop_traffic."""

    def __init__(
        self,
        topology: Topology,
        *,
        fail_at: int | None = None,
        error: BaseException | None = None,
        stop_error: Exception | None = None,
    ) -> None:
        self.sim = SimTrafficGenerator(topology)
        self.fail_at = fail_at
        self.error = error
        self.stop_error = stop_error
        self.calls = 0
        self.stops = 0

    @property
    def max_load_pps(self) -> float:
        return self.sim.max_load_pps

    def measure(self, duration: float, load: float) -> TrialResult:
        self.calls += 1
        if self.calls == self.fail_at:
            assert self.error is not None
            raise self.error
        return self.sim.measure(duration, load)

    def stop_traffic(self) -> None:
        self.stops += 1
        if self.stop_error is not None:
            raise self.stop_error

    def close(self) -> None:
        """Nothing to release."""


@pytest.fixture(scope="module")
def topology() -> Topology:
    return load_topology(SIM)


def _run(tg: SpyTG, topology: Topology, **kwargs: Any) -> SearchRun:
    return search_call(tg, topology=topology, profile=PROFILE, frame_size=64, goals=GOALS, **kwargs)


def _caught(tg: SpyTG, topology: Topology, **kwargs: Any) -> tuple[SearchRun, BaseException | None]:
    """The outcome ``finish`` saw (exactly once), and what propagated from ``run_search``."""
    finished: list[SearchRun] = []
    try:
        returned = _run(tg, topology, finish=finished.append, **kwargs)
    except BaseException as exc:
        (outcome,) = finished
        return outcome, exc
    assert finished == [returned]
    return returned, None


def test_passed_run(topology: Topology) -> None:
    tg = SpyTG(topology)
    seen: list[tuple[int, TrialResult]] = []
    outcome = _run(
        tg,
        topology,
        progress=lambda p: seen.append((p.trial_number, p.trial)),
        telemetry=lambda: {"DUT1": {"state": "fine"}},
    )
    record = outcome.record.to_json()
    validate_record(record)
    assert outcome.error is None
    assert isinstance(outcome.result, SearchResult)
    assert record["status"] == "passed"
    assert record["error"] is None
    assert tg.stops == 1
    assert [n for n, _ in seen] == list(range(1, tg.calls + 1))
    assert len(record["trials"]) == tg.calls == len(outcome.result.trials)
    assert [t["load_pps"] for t in record["trials"]] == [t.load for _, t in seen]
    assert record["telemetry"] == {"DUT1": {"state": "fine"}}
    assert record["search"]["max_load_pps"] == tg.max_load_pps
    assert record["search"]["min_load_pps"] == default_min_load(tg.max_load_pps)
    truth = tg.sim.model.true_ndr(1.0)
    assert record["ndr"]["lower_bound"] <= truth <= record["ndr"]["upper_bound"]
    ndr_result = outcome.result.goal_results[0]
    assert record["ndr"]["lower_bound"] == ndr_result.lower_bound


def test_tg_error_on_third_trial(topology: Topology) -> None:
    tg = SpyTG(topology, fail_at=3, error=TrafficGeneratorError("TG: tcpreplay died"))
    seen: list[int] = []
    outcome, raised = _caught(tg, topology, progress=lambda p: seen.append(p.trial_number))
    assert raised is None  # a known failure is the record's error
    assert outcome.error == "TG: tcpreplay died"
    assert outcome.result is not None and len(outcome.result.trials) == 2
    record = outcome.record.to_json()
    validate_record(record)
    assert record["status"] == "failed"
    assert record["error"] == "TG: tcpreplay died"
    assert len(record["trials"]) == 2
    assert record["search"]["trial_count"] == 2
    assert seen == [1, 2]
    assert tg.stops == 1
    assert record["incomplete"] is True
    # two short trials support no bound yet; the record says why per goal, not "no result"
    assert record["ndr"]["lower_bound"] is None
    assert all(goal["irregular_reason"] != "no result" for goal in record["goals"])


def test_ctrl_c(topology: Topology) -> None:
    interrupt = KeyboardInterrupt()
    tg = SpyTG(topology, fail_at=3, error=interrupt)
    outcome, raised = _caught(tg, topology)
    assert raised is interrupt  # the original, after the record was finished
    assert outcome.error is not None and "interrupted" in outcome.error
    validate_record(outcome.record.to_json())
    assert outcome.record.to_json()["status"] == "failed"
    assert len(outcome.record.to_json()["trials"]) == 2
    assert tg.stops == 1


def test_dut_error_during_search(topology: Topology) -> None:
    tg = SpyTG(topology, fail_at=1, error=DutError("DUT1: l3fwd exited"))
    outcome = _run(tg, topology)
    assert outcome.error == "DUT1: l3fwd exited"
    assert outcome.record.to_json()["trials"] == []
    validate_record(outcome.record.to_json())
    assert tg.stops == 1


def test_time_limit_keeps_partial_result(topology: Topology) -> None:
    tg = SpyTG(topology)
    outcome = _run(tg, topology, max_search_time_s=3.0)
    assert outcome.error is not None and "time cap of 3 s" in outcome.error
    assert outcome.irregular_failed  # the time cap hit before the bounds: irregular
    assert [item.reason.tag for item in outcome.irregular] == ["TIME_CAP"]
    assert outcome.record.to_json()["search"]["time_capped"] is True
    assert outcome.result is not None  # the partial result, for the caller
    assert len(outcome.record.to_json()["trials"]) == len(outcome.result.trials) == 3
    validate_record(outcome.record.to_json())
    assert outcome.record.to_json()["status"] == "failed"
    assert tg.stops == 1


class FakeTimeout(BaseException):
    """Like Robot Framework's TimeoutExceeded: not an Exception, not a KeyboardInterrupt."""


def test_foreign_base_exception_propagates_after_the_record(topology: Topology) -> None:
    """A Robot timeout mid-search: the record keeps the trials, then the timeout propagates."""
    timeout = FakeTimeout("Test timeout 1 minute exceeded.")
    tg = SpyTG(topology, fail_at=3, error=timeout)
    seen: list[int] = []
    outcome, raised = _caught(tg, topology, progress=lambda p: seen.append(p.trial_number))
    assert raised is timeout
    assert outcome.result is not None
    assert outcome.error == "stopped by FakeTimeout: Test timeout 1 minute exceeded."
    record = outcome.record.to_json()
    validate_record(record)
    assert record["status"] == "failed"
    assert record["error"] == outcome.error
    assert len(record["trials"]) == record["search"]["trial_count"] == 2
    assert seen == [1, 2]
    assert record["incomplete"] is True
    assert tg.calls == 3
    assert tg.stops == 1  # traffic stopped before coming back


def test_unexpected_exception_propagates_after_stopping(topology: Topology) -> None:
    error = RuntimeError("a bug")
    tg = SpyTG(topology, fail_at=2, error=error)
    outcome, raised = _caught(tg, topology)
    assert raised is error
    frames = [frame.name for frame in traceback.extract_tb(error.__traceback__)]
    assert frames[-1] == "measure"  # the traceback runs to where it was raised
    assert outcome.error == "stopped by RuntimeError: a bug"
    chained: list[BaseException] = []  # Robot walks __cause__ and __context__: no loop
    link: BaseException | None = error
    while link is not None:
        assert all(link is not seen for seen in chained)
        chained.append(link)
        link = link.__cause__ or link.__context__
    assert len(outcome.record.to_json()["trials"]) == 1
    assert outcome.record.to_json()["status"] == "failed"
    assert tg.stops == 1


def test_propagating_with_a_failing_stop(topology: Topology) -> None:
    timeout = FakeTimeout("timeout")
    tg = SpyTG(
        topology,
        fail_at=2,
        error=timeout,
        stop_error=TrafficGeneratorError("TG: tcpreplay does not stop"),
    )
    outcome, raised = _caught(tg, topology, telemetry=lambda: {"DUT1": {"state": "kept"}})
    assert raised is timeout
    assert outcome.error == (
        "stopped by FakeTimeout: timeout; stopping traffic: TG: tcpreplay does not stop"
    )
    assert outcome.record.to_json()["telemetry"] == {"DUT1": {"state": "kept"}}
    assert tg.stops == 1
    validate_record(outcome.record.to_json())


@pytest.mark.parametrize("error", [TrafficGeneratorError("TG: known"), DutError("DUT1: known")])
def test_known_failures_do_not_propagate(topology: Topology, error: BaseException) -> None:
    outcome, raised = _caught(SpyTG(topology, fail_at=2, error=error), topology)
    assert raised is None
    assert outcome.record.to_json()["status"] == "failed"


def test_passed_run_is_finished_once(topology: Topology) -> None:
    outcome, raised = _caught(SpyTG(topology), topology)
    assert raised is None and outcome.error is None


def test_a_failing_finish_does_not_hide_the_interrupt(topology: Topology) -> None:
    """``finish`` runs in ``finally``: the Ctrl-C that stopped the run is the context."""
    interrupt = KeyboardInterrupt()

    def finish(outcome: SearchRun) -> None:
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full") as caught:
        _run(SpyTG(topology, fail_at=2, error=interrupt), topology, finish=finish)
    assert caught.value.__context__ is interrupt


def test_stop_traffic_failure_is_recorded(topology: Topology) -> None:
    tg = SpyTG(
        topology,
        fail_at=3,
        error=TrafficGeneratorError("TG: trial failed"),
        stop_error=TrafficGeneratorError("TG: tcpreplay does not stop"),
    )
    outcome, propagated = _caught(tg, topology)  # finish saw it, once
    assert propagated is None
    assert outcome.error == "TG: trial failed; stopping traffic: TG: tcpreplay does not stop"
    assert str(measurer_cause(outcome.failure)) == "TG: trial failed"  # the run's own, first
    assert len(outcome.record.to_json()["trials"]) == 2
    validate_record(outcome.record.to_json())


def test_stop_traffic_failure_fails_a_finished_search(topology: Topology) -> None:
    stuck = TrafficGeneratorError("TG: stuck")
    tg = SpyTG(topology, stop_error=stuck)
    outcome, propagated = _caught(tg, topology)
    assert propagated is None and outcome.failure is stuck
    assert outcome.error == "stopping traffic: TG: stuck"
    assert outcome.record.to_json()["status"] == "failed"
    assert len(outcome.record.to_json()["trials"]) == tg.calls > 0


def test_a_foreign_exception_of_the_stop_propagates_after_the_record(topology: Topology) -> None:
    tg = SpyTG(topology, stop_error=RuntimeError("a bug in stop"))
    outcome, propagated = _caught(tg, topology)
    assert isinstance(propagated, RuntimeError)
    assert outcome.error == "stopping traffic: stopped by RuntimeError: a bug in stop"
    assert len(outcome.record.to_json()["trials"]) == tg.calls > 0


def test_telemetry_failure_keeps_the_record(
    topology: Topology, caplog: pytest.LogCaptureFixture
) -> None:
    def broken() -> Mapping[str, Mapping[str, str]]:
        raise DutError("DUT1: telemetry: the namespace is gone")

    outcome = _run(SpyTG(topology), topology, telemetry=broken)
    assert outcome.error is None
    assert outcome.record.to_json()["status"] == "passed"
    assert outcome.record.to_json()["telemetry"] == {}
    assert "the namespace is gone" in caplog.text


def test_bad_load_range_is_a_failed_run(topology: Topology) -> None:
    tg = SpyTG(topology)
    outcome = _run(tg, topology, min_load_pps=5e6, max_load_pps=1e6)
    assert outcome.error is not None and "must be below max_load" in outcome.error
    assert tg.calls == 0
    assert tg.stops == 1
    validate_record(outcome.record.to_json())


def test_unidirectional_record(topology: Topology) -> None:
    outcome = _run(SpyTG(topology), topology, directions=1, algorithm="binary")
    assert outcome.record.to_json()["profile"]["directions"] == 1
    assert outcome.record.to_json()["search"]["algorithm"] == "binary"
    validate_record(outcome.record.to_json())


@pytest.mark.parametrize(
    ("high", "low"),
    [(29_761_904.0, 29_761.904), (800_000.0, 10_000.0), (15_000.0, 7_500.0)],
)
def test_default_min_load(high: float, low: float) -> None:
    assert default_min_load(high) == pytest.approx(low)
    assert default_min_load(high) < high


def _full_search_length(topology: Topology) -> int:
    tg = SpyTG(topology)
    _run(tg, topology)
    return tg.calls


@pytest.mark.parametrize(
    "error",
    [
        KeyboardInterrupt(),
        TrafficGeneratorError("TG: gone"),
        FakeTimeout("Test timeout 2 seconds exceeded."),
    ],
    ids=["ctrl-c", "tg-error", "robot-timeout"],
)
def test_every_stop_keeps_the_bounds_its_trials_support(
    topology: Topology, error: BaseException
) -> None:
    """Stopped after k trials (k = every 3rd point, and the last), the record's bounds are
    RFC 9971's relevant bounds over those k trials, and near the end they are the final ones."""
    total = _full_search_length(topology)
    finished = _run(SpyTG(topology), topology).record.to_json()
    for kept in [*range(1, total, 3), total - 1]:
        outcome, _ = _caught(SpyTG(topology, fail_at=kept + 1, error=error), topology)
        record = outcome.record.to_json()
        validate_record(record)
        assert record["incomplete"] is True and record["status"] == "failed"
        assert len(record["trials"]) == kept
        assert outcome.result is not None
        low, high = record["search"]["min_load_pps"], record["search"]["max_load_pps"]
        expected = result_so_far(GOALS, outcome.result.trials, low, high)
        for entry, want in zip(record["goals"], expected.goal_results, strict=True):
            assert entry["lower_bound"] == want.lower_bound
            assert entry["upper_bound"] == want.upper_bound
            assert entry["conditional_throughput"] == want.conditional_throughput
    # one trial short of the end, both goals already have a lower bound
    assert record["ndr"]["lower_bound"] is not None
    assert record["pdr"]["lower_bound"] is not None
    assert record["ndr"]["lower_bound"] <= finished["ndr"]["upper_bound"]


def _slow_tg(topology: Topology, sends_pps: float) -> SpyTG:
    """SpyTG over the sim TG whose ports carry 29.76 Mpps but which sends only ``sends_pps``."""
    import dataclasses

    tg_node = dataclasses.replace(
        topology.tg, options={**topology.tg.options, "max_offered_pps": sends_pps}
    )
    slow = dataclasses.replace(topology, nodes={**topology.nodes, "TG": tg_node})
    return SpyTG(slow)


def test_uncalibrated_slow_tg_is_flagged_tg_limited(topology: Topology) -> None:
    """The DUT forwards 4.4 Mpps, the TG sends 1 Mpps: the upper bounds are the TG's doing."""
    outcome = _run(_slow_tg(topology, 1e6), topology)
    record = outcome.record.to_json()
    validate_record(record)
    assert record["search"]["max_load_cap"] is None
    assert record["tg_limit"]["limited"] is True
    assert all(goal["tg_limited"] for goal in record["goals"])
    assert record["tg_limit"]["max_offered_pps"] == pytest.approx(1e6, rel=1e-6)
    assert record["tg_limit"]["limited_trials"] > 0
    for trial in record["trials"]:  # the columns add up
        assert trial["intended_count"] == pytest.approx(
            trial["offered_count"] + trial["unsent_count"]
        )
        assert trial["offered_count"] == pytest.approx(
            trial["forwarded_count"] + trial["loss_count"]
        )
        assert trial["loss_count"] == 0  # the DUT lost nothing below its 4.4 Mpps


def test_calibration_caps_the_max_load_and_says_tg_limited(topology: Topology) -> None:
    notes: list[str] = []
    tg = _slow_tg(topology, 1e6)
    outcome = _run(tg, topology, calibrate=True, notice=notes.append)
    record = outcome.record.to_json()
    validate_record(record)
    cap = record["search"]["max_load_cap"]
    assert cap["requested_pps"] == tg.max_load_pps
    assert cap["capable_pps"] == pytest.approx(1e6, rel=1e-6)
    assert record["search"]["max_load_pps"] == cap["capped_pps"] < 1e6
    assert len(notes) == 1 and "capped" in notes[0]
    # three calibration trials (the first fell short), not search trials
    assert tg.calls == len(record["trials"]) + 3
    assert len(cap["trials"]) == 3
    assert max(t["load_pps"] for t in record["trials"]) <= cap["capped_pps"]
    assert record["tg_limit"]["limited_trials"] == 0  # no trial wasted above what the TG sends
    # the max load is a lower bound, but only because the TG cannot send more
    assert record["ndr"]["lower_bound"] == cap["capped_pps"]
    assert record["tg_limit"]["limited"] is True
    assert all(goal["tg_limit_reason"] == CAPPED_REASON for goal in record["goals"])
    # "sent at most": what the calibration trials sent, above the capped search's trials
    assert record["tg_limit"]["max_offered_pps"] == pytest.approx(1e6, rel=1e-6)


def test_calibration_on_a_tg_that_keeps_up_changes_nothing(topology: Topology) -> None:
    tg = SpyTG(topology)
    outcome = _run(tg, topology, calibrate=True)
    record = outcome.record.to_json()
    assert record["search"]["max_load_cap"]["capped_pps"] is None
    assert record["search"]["max_load_pps"] == tg.max_load_pps
    assert record["tg_limit"]["limited"] is False
    assert record["status"] == "passed"


def test_calibration_cap_is_a_logged_warning_without_notice(
    topology: Topology, caplog: pytest.LogCaptureFixture
) -> None:
    outcome = _run(_slow_tg(topology, 1e6), topology, calibrate=True)
    assert outcome.max_load_cap is not None and outcome.max_load_cap.capped_pps is not None
    warnings = [r for r in caplog.records if r.levelname == "WARNING"]
    assert len(warnings) == 1 and "max load capped at" in warnings[0].getMessage()
