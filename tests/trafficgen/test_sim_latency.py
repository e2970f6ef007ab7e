"""The simulator's latency model and the sim TG's measure_latency."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from ndrpdr.simdut.models import make_model
from ndrpdr.topology.loader import load_topology
from ndrpdr.trafficgen.base import TrafficGeneratorError, latency_measurer
from ndrpdr.trafficgen.sim.driver import LATENCY_STREAM_PPS, SimTrafficGenerator
from ndrpdr.trafficgen.sim.latencymodel import MAX_UTILISATION, LatencyModel, latency_model

ROOT = Path(__file__).resolve().parents[2]


def test_latency_rises_as_the_load_nears_capacity() -> None:
    model = LatencyModel(base_us=8.0, jitter_us=1.0, service_us=2.0, capacity_pps=1e6)
    means = [model.mean_queueing_us(load) for load in (0, 1e5, 5e5, 9e5, 2e6)]
    assert means[0] == 0 and means == sorted(means) and means[3] > 5 * means[2]
    assert model.utilisation(2e6) == MAX_UTILISATION  # overload: large but finite
    rng = random.Random(1)
    idle = [model.sample(0, rng) for _ in range(500)]
    busy = [model.sample(9e5, rng) for _ in range(500)]
    assert all(8.0 <= v <= 9.0 for v in idle)  # base + jitter
    assert sum(busy) / len(busy) > sum(idle) / len(idle) + 10
    assert max(busy) - min(busy) > 10 * (max(idle) - min(idle))  # queueing-like spread


def test_latency_model_follows_the_dut_and_the_seed() -> None:
    dut = make_model("sharp", 3)
    assert latency_model(dut, 3) == latency_model(dut, 3)
    assert latency_model(dut, 3) != latency_model(dut, 4)
    assert latency_model(dut, 3).capacity_pps == pytest.approx(1.05 * dut.true_pdr(1.0))


def sim_tg(path: str = "topologies/sim.yaml") -> SimTrafficGenerator:
    return SimTrafficGenerator(load_topology(ROOT / path))


def test_sim_tg_measures_latency_deterministically() -> None:
    tg = sim_tg()
    assert latency_measurer(tg) is tg
    pdr = tg.model.true_pdr(1.0)
    before = tg.measurer.clock_s
    idle = tg.measure_latency(5.0, 0.0)
    loaded = tg.measure_latency(5.0, 0.9 * pdr)
    assert tg.measurer.clock_s == pytest.approx(before + 2 * (5.0 + tg.measurer.overhead_s))
    assert idle.stream_pps == LATENCY_STREAM_PPS and idle.load_pps == 0
    assert [d.direction for d in idle.directions] == [0, 1]
    for low, high in zip(idle.directions, loaded.directions, strict=True):
        assert low.frames_measured == round(LATENCY_STREAM_PPS * 5.0)
        assert high.avg_us > low.avg_us and high.p99_us > low.p99_us  # type: ignore[operator]
    again = sim_tg()
    assert again.measure_latency(5.0, 0.0) == idle
    assert again.measure_latency(5.0, 0.9 * pdr) == loaded


def test_a_3_node_chain_adds_latency() -> None:
    two = sim_tg("topologies/sim.yaml").measure_latency(1.0, 0.0)
    three = sim_tg("topologies/sim-3n.yaml").measure_latency(1.0, 0.0)
    assert three.directions[0].min_us > two.directions[0].max_us  # type: ignore[operator]


def test_sim_latency_checks_its_arguments() -> None:
    tg = sim_tg()
    with pytest.raises(
        TrafficGeneratorError, match="latency trial duration=0 s must be a finite number > 0"
    ):
        tg.measure_latency(0, 0)
    with pytest.raises(TrafficGeneratorError, match="above the maximum"):
        tg.measure_latency(1.0, tg.max_load_pps * 2)
