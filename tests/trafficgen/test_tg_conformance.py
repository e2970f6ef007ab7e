"""Conformance: every TG driver keeps the TrafficGenerator contract, for real.

Drivers: ``sim`` (topologies/sim.yaml) and ``local`` (real packets through
DPDK testpmd in namespaces, topologies/local-testpmd.yaml; needs root,
iproute2, nftables, tcpreplay and dpdk-testpmd). The later lab drivers join
by adding a case to ``CASES``.
"""

from __future__ import annotations

import dataclasses
import math
import os
import shutil
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ndrpdr.activebed.testbed import ActiveTestbed
from ndrpdr.errors import NdrPdrError
from ndrpdr.families import get_family
from ndrpdr.families import profile_of as get_profile
from ndrpdr.search.trial import TrialResult
from ndrpdr.testbed.loader import load_topology
from ndrpdr.trafficgen.base import TrafficGenerator

ROOT = Path(__file__).resolve().parents[2]


@dataclasses.dataclass
class Case:
    """A TG under test and loads that are well below / above what the system forwards."""

    tg: TrafficGenerator
    low_load: float
    high_load: float
    duration: float


def _sim_case() -> Iterator[Case]:
    topology = load_topology(ROOT / "topologies/sim.yaml")
    profile = get_profile("ethip4-ip4base")
    with ActiveTestbed(topology) as testbed:
        testbed.configure_family(get_family(profile.name))
        tg = testbed.traffic_generator(profile, 64)
        model = tg.model  # type: ignore[attr-defined]
        yield Case(tg, 0.1 * model.true_ndr(1.0), tg.max_load_pps, 1.0)


def _local_case() -> Iterator[Case]:
    missing = [t for t in ("ip", "nft", "tcpreplay", "dpdk-testpmd") if not shutil.which(t)]
    if os.geteuid() != 0 or missing:
        pytest.skip(f"local TG needs root and {', '.join(missing) or 'tools'}")
    topology = load_topology(ROOT / "topologies/local-testpmd.yaml")
    profile = get_profile("ethip4-ip4base")
    with ActiveTestbed(topology) as testbed:
        testbed.configure_family(get_family(profile.name))
        tg = testbed.traffic_generator(profile, 64)
        yield Case(tg, 20_000.0, tg.max_load_pps, 1.0)


CASES = {"sim": _sim_case, "local": _local_case}


@pytest.fixture(scope="module", params=sorted(CASES))
def case(request: pytest.FixtureRequest) -> Iterator[Case]:
    yield from CASES[request.param]()


def _parent(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rsplit(")", 1)[1].split()[1])


def _descends_from_us(pid: int) -> bool:
    """Whether ``pid`` is a child (or deeper) of this test process."""
    ours = os.getpid()
    current = _parent(pid)
    for _ in range(64):
        if current is None or current <= 1:
            return False
        if current == ours:
            return True
        current = _parent(current)
    return False


def _senders() -> list[int]:
    """tcpreplay processes this test started (others' runs may share the machine)."""
    out = subprocess.run(
        ["pgrep", "-x", "tcpreplay"], capture_output=True, text=True, check=False
    ).stdout
    return [pid for pid in map(int, out.split()) if _descends_from_us(pid)]


def _check_counts(trial: TrialResult, load: float, duration: float) -> None:
    assert trial.load == load and trial.duration == duration
    assert trial.forwarded_count is not None and trial.loss_count is not None
    assert trial.intended_count is not None
    assert trial.forwarded_count + trial.loss_count == pytest.approx(trial.offered_count)
    assert 0 <= trial.forwarded_count <= trial.offered_count
    assert abs(trial.intended_count - load * duration) <= 2  # one frame per direction
    assert 0.0 <= trial.loss_ratio <= 1.0
    assert trial.effective_duration is not None and trial.effective_duration > 0


def test_zero_loss_well_below_capacity(case: Case) -> None:
    trial = case.tg.measure(case.duration, case.low_load)
    _check_counts(trial, case.low_load, case.duration)
    assert trial.offered_count > 0
    assert trial.loss_ratio == 0.0, trial


def test_loss_above_capacity(case: Case) -> None:
    trial = case.tg.measure(case.duration, case.high_load)
    _check_counts(trial, case.high_load, case.duration)
    assert trial.loss_ratio > 0.05, trial


def test_zero_load_sends_nothing(case: Case) -> None:
    trial = case.tg.measure(case.duration, 0.0)
    assert trial.offered_count == 0 and trial.forwarded_count == 0
    assert trial.loss_ratio == 0.0


@pytest.mark.parametrize(
    ("duration", "load"),
    [(0.0, 1000.0), (-1.0, 1000.0), (math.nan, 1000.0), (math.inf, 1000.0)],
)
def test_bad_durations_are_rejected(case: Case, duration: float, load: float) -> None:
    with pytest.raises(NdrPdrError, match="duration"):
        case.tg.measure(duration, load)


@pytest.mark.parametrize("load", [-1.0, math.nan, math.inf])
def test_bad_loads_are_rejected(case: Case, load: float) -> None:
    with pytest.raises(NdrPdrError, match="load"):
        case.tg.measure(1.0, load)


def test_loads_above_the_maximum_are_rejected_naming_both(case: Case) -> None:
    with pytest.raises(NdrPdrError) as info:
        case.tg.measure(1.0, case.tg.max_load_pps * 1.5)
    assert f"{case.tg.max_load_pps:.6g}" in str(info.value)


def test_traffic_stops_when_asked_during_a_trial(case: Case) -> None:
    """stop_traffic from another thread ends a running trial at once; no sender is left."""
    outcome: list[object] = []

    def run() -> None:
        try:
            outcome.append(case.tg.measure(5.0, case.low_load))
        except NdrPdrError as exc:
            outcome.append(exc)

    worker = threading.Thread(target=run)
    started = time.monotonic()
    worker.start()
    time.sleep(0.5)
    case.tg.stop_traffic()
    worker.join(timeout=10)
    assert not worker.is_alive()
    assert time.monotonic() - started < 4.5
    assert outcome
    assert not _senders()


def test_a_trial_after_an_error_works_and_leaves_no_sender(case: Case) -> None:
    with pytest.raises(NdrPdrError):
        case.tg.measure(1.0, -5.0)
    case.tg.stop_traffic()
    trial = case.tg.measure(0.5, case.low_load)
    _check_counts(trial, case.low_load, 0.5)
    assert not _senders()
