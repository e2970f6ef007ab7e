"""SimTrafficGenerator: the maximum load, the DUT model from the topology, bad trial inputs."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Any

import pytest

from ndrpdr.profiles import max_load_pps
from ndrpdr.search.trial import Measurer
from ndrpdr.simdut.models import make_model
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.model import Topology
from ndrpdr.topology.path import compute_path
from ndrpdr.trafficgen.base import TrafficGenerator, TrafficGeneratorError
from ndrpdr.trafficgen.sim.driver import SimTrafficGenerator, link_limit_pps

SIM = Path(__file__).resolve().parents[2] / "topologies" / "sim.yaml"
LINE_64 = max_load_pps(10e9, 64)  # one 10GE direction at 64 B: 14.88 Mpps


@pytest.fixture(scope="module")
def sim() -> Topology:
    return load_topology(SIM)


def _variant(
    topology: Topology,
    *,
    tg_options: dict[str, Any] | None = None,
    dut_options: dict[str, Any] | None = None,
) -> Topology:
    """``topology`` with the TG's and / or the DUT's options replaced."""
    tg, dut = topology.tg, topology.duts[0]
    if tg_options is not None:
        tg = dataclasses.replace(tg, options=tg_options)
    if dut_options is not None:
        dut = dataclasses.replace(dut, options=dut_options)
    return dataclasses.replace(topology, nodes={**topology.nodes, "TG": tg, dut.key: dut})


def _with_speeds(topology: Topology, speed_bps: float | None) -> Topology:
    """``topology`` with every TG port at ``speed_bps`` (None: unknown)."""
    tg = topology.tg
    ports = {k: dataclasses.replace(i, speed_bps=speed_bps) for k, i in tg.interfaces.items()}
    tg = dataclasses.replace(tg, interfaces=ports)
    return dataclasses.replace(topology, nodes={**topology.nodes, "TG": tg})


def test_is_a_traffic_generator(sim: Topology) -> None:
    tg: TrafficGenerator = SimTrafficGenerator(sim)
    assert isinstance(tg, Measurer)
    tg.stop_traffic()  # no-ops, callable any time
    tg.close()


def test_sim_yaml_max_load_is_the_tg_limit(sim: Topology) -> None:
    # sim.yaml: TG max_rate_pps 29761904, two 10GE ports (2 x 14.88 Mpps at 64 B).
    assert sim.tg.options["max_rate_pps"] == 29761904
    assert SimTrafficGenerator(sim).max_load_pps == 29761904
    assert SimTrafficGenerator(sim, bidirectional=False).max_load_pps == pytest.approx(LINE_64)


@pytest.mark.parametrize("frame_size", [64, 512, 1518, "IMIX"])
@pytest.mark.parametrize("bidirectional", [True, False])
def test_max_load_is_the_lower_limit(sim: Topology, frame_size: Any, bidirectional: bool) -> None:
    directions = 2 if bidirectional else 1
    links = directions * max_load_pps(10e9, frame_size)
    for tg_limit in (1e6, 1e9):
        topology = _variant(sim, tg_options={"max_rate_pps": tg_limit})
        tg = SimTrafficGenerator(topology, frame_size, bidirectional=bidirectional)
        assert tg.max_load_pps == pytest.approx(min(tg_limit, links))
        assert link_limit_pps(topology, compute_path(topology), frame_size, directions) == (
            pytest.approx(links)
        )


def test_no_speeds_uses_the_tg_limit(sim: Topology) -> None:
    topology = _with_speeds(_variant(sim, tg_options={"max_rate_pps": 5e6}), None)
    assert link_limit_pps(topology, compute_path(topology), 64, 2) is None
    assert SimTrafficGenerator(topology).max_load_pps == 5e6
    assert SimTrafficGenerator(topology, bidirectional=False).max_load_pps == 5e6


def test_no_limit_at_all(sim: Topology) -> None:
    topology = _with_speeds(_variant(sim, tg_options={}), None)
    with pytest.raises(TrafficGeneratorError) as raised:
        SimTrafficGenerator(topology)
    assert "nodes.TG: give options.max_rate_pps or interface speeds" in str(raised.value)


def test_only_speeds(sim: Topology) -> None:
    topology = _with_speeds(_variant(sim, tg_options={}), 25e9)
    assert SimTrafficGenerator(topology).max_load_pps == pytest.approx(2 * max_load_pps(25e9, 64))


def test_model_from_the_dut_node(sim: Topology) -> None:
    tg = SimTrafficGenerator(sim)
    assert tg.model.name == "sharp"
    assert tg.model.parameters() == make_model("sharp", 1).parameters()
    other = SimTrafficGenerator(_variant(sim, dut_options={"model": "gradual", "seed": 7}))
    assert other.model.name == "gradual"
    assert other.model.parameters() == make_model("gradual", 7).parameters()


def test_trials_follow_the_model(sim: Topology) -> None:
    tg = SimTrafficGenerator(sim)
    capacity = tg.model.true_ndr(1.0)
    below = tg.measure(1.0, capacity * 0.9)
    assert below.loss_count == 0
    assert below.offered_count == round(capacity * 0.9)
    above = tg.measure(2.0, capacity * 2)
    assert above.forwarded_count == pytest.approx(2 * capacity, abs=1)
    assert above.loss_ratio == pytest.approx(0.5, abs=1e-6)
    assert tg.measure(0.5, tg.max_load_pps).duration == 0.5  # the maximum itself is fine
    assert tg.measurer.trial_count == 3


def test_overhead_from_the_tg_options(sim: Topology) -> None:
    tg = SimTrafficGenerator(_variant(sim, tg_options={"max_rate_pps": 1e7, "overhead_s": 2.0}))
    tg.measure(1.0, 1e6)
    assert tg.measurer.clock_s == 3.0


@pytest.mark.parametrize(
    ("duration", "load", "message"),
    [
        (1.0, 3e7, "TG: trial load 3e+07 pps is above the maximum 2.97619e+07 pps"),
        (1.0, -1.0, "TG: trial load=-1.0 pps must be a finite number >= 0"),
        (1.0, math.nan, "TG: trial load=nan pps must be a finite number >= 0"),
        (1.0, math.inf, "TG: trial load=inf pps must be a finite number >= 0"),
        (1.0, "1e6", "TG: trial load='1e6' pps must be a finite number >= 0"),
        (math.nan, 1e6, "TG: trial duration=nan s must be a finite number > 0"),
        (0.0, 1e6, "TG: trial duration=0.0 s must be a finite number > 0"),
        (-1.0, 1e6, "TG: trial duration=-1.0 s must be a finite number > 0"),
        (math.inf, 1e6, "TG: trial duration=inf s must be a finite number > 0"),
    ],
)
def test_bad_trials(sim: Topology, duration: Any, load: Any, message: str) -> None:
    tg = SimTrafficGenerator(sim)
    with pytest.raises(TrafficGeneratorError) as raised:
        tg.measure(duration, load)
    assert str(raised.value) == message
    assert tg.measurer.trial_count == 0  # nothing was measured


def test_unidirectional_rejects_what_bidirectional_takes(sim: Topology) -> None:
    load = 20e6
    SimTrafficGenerator(sim).measure(1.0, load)
    with pytest.raises(TrafficGeneratorError, match="above the maximum"):
        SimTrafficGenerator(sim, bidirectional=False).measure(1.0, load)


def test_max_offered_pps_leaves_the_rest_unsent(sim: Topology) -> None:
    """A TG slower than its ports: loads up to the max are accepted, only 1 Mpps goes out."""
    tg = SimTrafficGenerator(
        _variant(sim, tg_options={"max_rate_pps": 29761904, "max_offered_pps": 1e6})
    )
    assert tg.max_load_pps == 29761904  # what it declares
    slow = tg.measure(2.0, 3e6)
    assert slow.intended_count == 6e6
    assert slow.offered_count == pytest.approx(2e6, rel=1e-6)
    assert slow.unsent_count == pytest.approx(4e6, rel=1e-6)
    assert slow.loss_ratio >= 2 / 3 - 1e-6  # unsent frames count as lost
    below = tg.measure(1.0, 5e5)
    assert below.unsent_count == 0 and below.offered_count == 5e5


def test_wall_time_factor_makes_trials_take_real_time(sim: Topology) -> None:
    import time

    tg = SimTrafficGenerator(
        _variant(sim, tg_options={"max_rate_pps": 1e6, "wall_time_factor": 0.2})
    )
    started = time.monotonic()
    tg.measure(1.0, 1e5)
    assert time.monotonic() - started >= 0.2
    fast = SimTrafficGenerator(_variant(sim, tg_options={"max_rate_pps": 1e6}))
    started = time.monotonic()
    for _ in range(20):
        fast.measure(1.0, 1e5)
    assert time.monotonic() - started < 0.2 * 20  # without the factor trials do not wait
