"""Max-load calibration on the simulated TG (real driver, real DUT model, no stand-in)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from ndrpdr.results.tglimit import TG_LIMIT_TOLERANCE
from ndrpdr.search.trial import TrialResult
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.model import Topology
from ndrpdr.trafficgen.base import TrafficGeneratorError
from ndrpdr.trafficgen.calibrate import (
    CALIBRATION_MARGIN,
    CALIBRATION_TRIALS,
    EXTRA_TRIALS,
    calibrate_max_load,
)
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


class _Wobbling:
    """A TG whose flat-out rate changes from trial to trial (as tcpreplay's does on a busy
    machine): each trial goes to the next of several real sim TGs of different speeds."""

    def __init__(self, rates_pps: list[float]) -> None:
        self._tgs = [_tg(max_offered_pps=rate) for rate in rates_pps]
        self.loads: list[float] = []

    @property
    def max_load_pps(self) -> float:
        return self._tgs[0].max_load_pps

    def measure(self, duration: float, load: float) -> TrialResult:
        tg = self._tgs[len(self.loads) % len(self._tgs)]
        self.loads.append(load)
        return tg.measure(duration, load)


def test_a_wobbling_tg_is_capped_at_its_slowest_of_three_trials() -> None:
    tg = _Wobbling([560_000, 470_000, 600_000])
    cap = calibrate_max_load(tg, 800_000, 1.0)
    assert tg.loads == [800_000] * CALIBRATION_TRIALS == [800_000] * 3
    assert cap.capable_pps == pytest.approx(470_000, rel=1e-6)
    assert cap.highest_pps == pytest.approx(600_000, rel=1e-6)
    assert cap.capped_pps == pytest.approx(470_000 * (1 - CALIBRATION_MARGIN), rel=1e-6)
    assert cap.trial.offered_count == cap.trials[1].offered_count  # the slowest is "the" trial
    assert "470 kpps to 600 kpps in 3 1 s calibration trials" in cap.describe()
    entry = cap.to_json()
    assert [t["offered_count"] for t in entry["trials"]] == [560_000, 470_000, 600_000]
    assert entry["highest_pps"] == pytest.approx(600_000, rel=1e-6)


def test_a_tg_that_keeps_up_runs_one_calibration_trial() -> None:
    tg = _Wobbling([2e6, 100_000])  # the second, slow TG is never reached
    cap = calibrate_max_load(tg, 1e6, 1.0)
    assert tg.loads == [1e6]
    assert cap.capped_pps is None
    assert len(cap.to_json()["trials"]) == 1


def test_one_calibration_trial_when_asked() -> None:
    tg = _Wobbling([500_000, 100_000])
    cap = calibrate_max_load(tg, 1e6, 1.0, trials=1)
    assert tg.loads == [1e6]
    assert cap.capped_pps == pytest.approx(500_000 * (1 - CALIBRATION_MARGIN), rel=1e-6)
    with pytest.raises(ValueError, match="trials=0"):
        calibrate_max_load(tg, 1e6, 1.0, trials=0)


def test_the_slowest_trial_decides_the_min_load_check() -> None:
    """A cap from the slowest trial at or below the min load is refused, naming that rate."""
    tg = _Wobbling([160_000, 150_000, 170_000])
    with pytest.raises(TrafficGeneratorError, match=r"150 kpps in its slowest of 3 trials"):
        calibrate_max_load(tg, 1e6, 1.0, min_load_pps=200_000)


def test_a_starved_trial_does_not_cap_the_search() -> None:
    """One starved second (16 kpps beside 330 kpps, seen on a loaded machine) is kept in the
    record, not used: two more trials run and the cap rests on the trials that agree."""
    tg = _Wobbling([330_000, 15_800, 335_000])
    cap = calibrate_max_load(tg, 800_000, 1.0)
    assert len(tg.loads) == CALIBRATION_TRIALS + EXTRA_TRIALS == 5  # 330, 15.8, 335, 330, 15.8
    assert cap.capable_pps == pytest.approx(330_000, rel=1e-6)
    assert cap.capped_pps == pytest.approx(330_000 * (1 - CALIBRATION_MARGIN), rel=1e-6)
    assert cap.starved == 2
    assert "2 starved trial(s) far below the others not used" in cap.describe()
    offered = [t["offered_count"] for t in cap.to_json()["trials"]]
    assert offered == [330_000, 15_800, 335_000, 330_000, 15_800]


def test_a_tg_starved_in_most_trials_is_capped_at_what_it_sent() -> None:
    """When the starved trials are the median, the cap is theirs: nothing better is known."""
    tg = _Wobbling([20_000, 21_000, 330_000])
    cap = calibrate_max_load(tg, 800_000, 1.0)
    assert len(tg.loads) == 3 and cap.starved == 0  # a fast trial is never "starved"
    assert cap.capable_pps == pytest.approx(20_000, rel=1e-6)
