"""Max-load calibration on the simulated TG (real driver, real DUT model, no stand-in)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from ndrpdr.results.tglimit import TG_LIMIT_TOLERANCE
from ndrpdr.search.trial import TrialResult
from ndrpdr.testbed.loader import load_topology
from ndrpdr.testbed.model import Topology
from ndrpdr.trafficgen.base import TrafficGeneratorError
from ndrpdr.trafficgen.calibrate import CALIBRATION_MARGIN, calibrate_max_load
from ndrpdr.trafficgen.sim.driver import SimTrafficGenerator

SIM = Path(__file__).resolve().parents[2] / "topologies" / "sim.yaml"


def _tg(**options: Any) -> SimTrafficGenerator:
    topology: Topology = load_topology(SIM)
    tg = dataclasses.replace(topology.tg, options={"max_rate_pps": 29761904, **options})
    return SimTrafficGenerator(dataclasses.replace(topology, nodes={**topology.nodes, "TG": tg}))


def test_a_slow_tg_caps_the_max_load() -> None:
    tg = _tg(max_offered_pps=400_000)
    cap = calibrate_max_load(tg, tg.max_load_pps, 1.0)
    assert cap.requested_pps == tg.max_load_pps
    assert cap.capable_pps == pytest.approx(400_000, rel=1e-6)
    assert cap.capped_pps == pytest.approx(400_000 * (1 - CALIBRATION_MARGIN), rel=1e-6)
    assert cap.max_load_pps == cap.capped_pps
    assert "capped at 396 kpps" in cap.describe()
    entry = cap.to_json()
    assert entry["trial"]["load_pps"] == tg.max_load_pps
    assert entry["trial"]["unsent_count"] > 0
    # at the cap the slow TG sends everything it intends
    assert tg.measure(1.0, cap.max_load_pps).unsent_count == 0


def test_a_tg_that_keeps_up_is_not_capped() -> None:
    tg = _tg()
    cap = calibrate_max_load(tg, 5e6, 0.5)
    assert cap.capped_pps is None
    assert cap.max_load_pps == 5e6
    assert cap.capable_pps == pytest.approx(5e6)
    assert "capped" not in cap.describe()


def test_within_the_tolerance_is_not_capped() -> None:
    """Sending 99 % of the max load is within TG_LIMIT_TOLERANCE (98 %): no cap."""
    assert TG_LIMIT_TOLERANCE < 0.99
    tg = _tg(max_offered_pps=0.99 * 1e6)
    assert calibrate_max_load(tg, 1e6, 1.0).capped_pps is None
    slower = _tg(max_offered_pps=0.97 * 1e6)
    assert calibrate_max_load(slower, 1e6, 1.0).capped_pps is not None


def test_a_cap_below_the_min_load_names_both_rates() -> None:
    tg = _tg(max_offered_pps=100_000)
    with pytest.raises(TrafficGeneratorError, match=r"at most 100 kpps.*min load 200 kpps"):
        calibrate_max_load(tg, tg.max_load_pps, 1.0, min_load_pps=200_000)


def test_bad_margin() -> None:
    with pytest.raises(ValueError, match="margin=1"):
        calibrate_max_load(_tg(), 1e6, 1.0, margin=1)


class StretchingTG:
    """A stand-in for a TG whose trials stretch (tcpreplay: 400 kpps, cut after 1.26 s).

    No real TG here sends at a fixed low rate on demand in a unit test; the local
    TG's own tests measure real stretching. This checks only the arithmetic.
    """

    max_load_pps = 29761904.0

    def measure(self, duration: float, load: float) -> TrialResult:
        seconds = duration * 1.26
        sent = 400_000 * seconds
        return TrialResult(
            duration, load, offered_count=sent, forwarded_count=sent,
            intended_count=load * duration, effective_duration=seconds,
        )  # fmt: skip


def test_a_stretched_trial_counts_the_seconds_it_really_sent() -> None:
    cap = calibrate_max_load(StretchingTG(), StretchingTG.max_load_pps, 1.0)
    assert cap.capable_pps == pytest.approx(400_000)  # not 504 kpps over the 1 s intended
