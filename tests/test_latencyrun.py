"""Latency after the search: the load points, "not measured", failures, the record section."""

from __future__ import annotations

from pathlib import Path

import pytest

from ndrpdr.families import profile_of as get_profile
from ndrpdr.goals import ndr_pdr_goals
from ndrpdr.latencyrun import LATENCY_POINTS_PCT, LatencyStatus, measure_latency_points
from ndrpdr.results.schema import validate_record
from ndrpdr.topology.loader import load_topology
from ndrpdr.trafficgen.base import TrafficGeneratorError
from ndrpdr.trafficgen.latency import LatencyResult, latency_from_samples
from ndrpdr.trafficgen.local.driver import LocalTrafficGenerator
from ndrpdr.trafficgen.sim.driver import SimTrafficGenerator
from search_call import search_call

ROOT = Path(__file__).resolve().parents[1]


class RecordingTg:
    """A LatencyMeasurer that records its calls (fails at ``fail_at`` loads)."""

    def __init__(self, fail_at: float | None = None, answer: bool = True) -> None:
        self.calls: list[tuple[float, float]] = []
        self.fail_at = fail_at
        self.answer = answer

    def measure_latency(self, duration_s: float, load_pps: float) -> LatencyResult | None:
        self.calls.append((duration_s, load_pps))
        if self.fail_at is not None and load_pps >= self.fail_at:
            raise TrafficGeneratorError(f"TG: lost at {load_pps} pps")
        if not self.answer:
            return None
        one = latency_from_samples(0, [1.0 + load_pps / 1e6, 2.0])
        return LatencyResult(duration_s, load_pps, 100.0, (one,))


def test_points_are_shares_of_pdr_in_order() -> None:
    tg = RecordingTg()
    heard: list[int] = []
    run = measure_latency_points(
        tg, pdr_pps=2e6, duration_s=5.0, progress=lambda p: heard.append(p.percent_of_pdr)
    )
    assert heard == list(LATENCY_POINTS_PCT)
    assert run.status is LatencyStatus.MEASURED
    assert tg.calls == [(5.0, 0.0), (5.0, 2e5), (5.0, 1e6), (5.0, 1.8e6)]
    assert [p.percent_of_pdr for p in run.points] == list(LATENCY_POINTS_PCT)
    data = run.to_json()
    assert data["status"] == "measured" and data["pdr_pps"] == 2e6
    assert data["points"][3]["load_pps"] == 1.8e6 and data["points"][3]["percent_of_pdr"] == 90


@pytest.mark.parametrize(
    ("tg", "pdr", "duration", "reason"),
    [
        (object(), 1e6, 5.0, "the local TG cannot measure latency"),
        (RecordingTg(), None, 5.0, "the search found no PDR lower bound"),
        (RecordingTg(), 1e6, None, "turned off"),
        (RecordingTg(), 1e6, 0.0, "turned off"),
        (RecordingTg(answer=False), 1e6, 5.0, "the local TG cannot measure latency here"),
    ],
)
def test_not_measured_says_why_and_has_no_values(
    tg: object, pdr: float | None, duration: float | None, reason: str
) -> None:
    run = measure_latency_points(tg, pdr_pps=pdr, duration_s=duration, tg_name="the local TG")
    assert run.status is LatencyStatus.NOT_MEASURED and run.reason == reason
    assert run.to_json()["points"] == []


def test_the_local_tg_has_no_latency_capability() -> None:
    """tcpreplay cannot time frames: the local TG offers no measure_latency at all."""
    assert not hasattr(LocalTrafficGenerator, "measure_latency")


def test_a_failure_keeps_the_points_measured_before_it() -> None:
    notes: list[str] = []
    run = measure_latency_points(
        RecordingTg(fail_at=1e6), pdr_pps=2e6, duration_s=1.0, notice=notes.append
    )
    assert run.status is LatencyStatus.FAILED and len(run.points) == 2
    assert run.reason is not None and "latency at 50 % PDR" in run.reason
    assert notes == [run.reason]


def search(tg: object, **kwargs: object) -> dict[str, object]:
    topology = load_topology(ROOT / "topologies" / "sim.yaml")
    goals = ndr_pdr_goals(final_trial_duration_s=1.0, initial_trial_duration_s=1.0)
    run = search_call(
        tg,  # type: ignore[arg-type]
        topology=topology,
        profile=get_profile("ethip4-ip4base"),
        frame_size=64,
        goals=goals,
        **kwargs,  # type: ignore[arg-type]
    )
    validate_record(run.record.to_json())
    return run.record.to_json()


def test_run_search_measures_latency_at_the_pdr_it_found() -> None:
    tg = SimTrafficGenerator(load_topology(ROOT / "topologies" / "sim.yaml"))
    record = search(tg, latency_duration_s=5.0)
    latency = record["latency"]
    assert isinstance(latency, dict) and latency["status"] == "measured"
    pdr = record["pdr"]["lower_bound"]  # type: ignore[index]
    assert latency["pdr_pps"] == pdr
    assert [p["load_pps"] for p in latency["points"]] == [pdr * s / 100 for s in LATENCY_POINTS_PCT]
    avg = [p["directions"][0]["avg_us"] for p in latency["points"]]
    assert avg == sorted(avg)  # latency rises with the load
    # latency trials are not search trials
    assert record["search"]["trial_count"] == len(record["trials"])  # type: ignore[index,arg-type]


def test_run_search_without_latency_says_turned_off() -> None:
    tg = SimTrafficGenerator(load_topology(ROOT / "topologies" / "sim.yaml"))
    record = search(tg)
    assert record["latency"]["status"] == "not measured"  # type: ignore[index]
    assert record["latency"]["reason"] == "turned off"  # type: ignore[index]
