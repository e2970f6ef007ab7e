"""Conformance: every TG driver keeps the TrafficGenerator contract, for real.

Drivers: ``sim`` (topologies/sim.yaml), ``local`` (real packets through
DPDK testpmd in namespaces, topologies/local-testpmd.yaml; needs root,
iproute2, nftables, tcpreplay and dpdk-testpmd) and ``trex`` (the real TRex
v3.08 in software mode on the veths of the TG namespace, through the kernel
DUT of topologies/local-linux-trex.yaml; one server for the module, as a
testbed keeps it; skipped without TRex or root unless NDRPDR_REQUIRE_TREX=1,
as in test_trex_real.py). The later lab drivers join by adding a case to
``CASES``.

The contract is the same for every case; two observations differ per case
(``Case``): TRex's intended count is what it offered when it sent a frame
or two more per stream (``extra_frames``), and "no sender is left" means no
tcpreplay child of this process for sim and local, while TRex's server
stays up for the module by design, so for it no frame leaves the TG ports
any more (their kernel transmit counters stand still).
"""

from __future__ import annotations

import dataclasses
import math
import os
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest
import test_trex_real
from test_trex_real import require_trex

from ndrpdr.access.netns import NetnsTransport
from ndrpdr.activebed.testbed import ActiveTestbed
from ndrpdr.errors import NdrPdrError
from ndrpdr.families import get_family
from ndrpdr.families import profile_of as get_profile
from ndrpdr.localbed import read_counters
from ndrpdr.search.trial import TrialResult
from ndrpdr.topology.loader import load_topology
from ndrpdr.trafficgen.base import TrafficGenerator

pytestmark = pytest.mark.real  # a real system part: tests/testkinds.py

ROOT = Path(__file__).resolve().parents[2]
#: How long the TG ports of a TRex case are watched for frames still leaving [s].
QUIET_WATCH_S = 0.3


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


def _tcpreplay_senders() -> list[str]:
    """tcpreplay processes this test started (others' runs may share the machine)."""
    out = subprocess.run(
        ["pgrep", "-x", "tcpreplay"], capture_output=True, text=True, check=False
    ).stdout
    return [f"tcpreplay pid {pid}" for pid in map(int, out.split()) if _descends_from_us(pid)]


def _ports_sending(namespace: str, ports: Sequence[str]) -> Callable[[], list[str]]:
    """What of ``ports`` (in ``namespace``) still transmits: those whose TX counter moves."""

    def sending() -> list[str]:
        before = read_counters(namespace)
        time.sleep(QUIET_WATCH_S)
        after = read_counters(namespace)
        moved = {p: after[p].tx_packets - before[p].tx_packets for p in ports}
        return [f"{p} sent {n} frames in {QUIET_WATCH_S} s" for p, n in moved.items() if n]

    return sending


@dataclasses.dataclass
class Case:
    """A TG under test and loads that are well below / above what the system forwards.

    ``senders`` lists what of this TG still sends (empty: nothing);
    ``extra_frames``: how many frames the TG may send beyond load x duration.
    """

    tg: TrafficGenerator
    low_load: float
    high_load: float
    duration: float
    senders: Callable[[], list[str]] = _tcpreplay_senders
    extra_frames: int = 2


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


def _trex_case() -> Iterator[Case]:
    require_trex()
    topology = load_topology(ROOT / "topologies/local-linux-trex.yaml")
    profile = get_profile("ethip4-ip4base")
    with ActiveTestbed(topology) as testbed:
        testbed.configure_family(get_family(profile.name))
        tg = testbed.traffic_generator(profile, 64)
        access = testbed.access(topology.tg.key)
        assert isinstance(access, NetnsTransport)
        ports = [i.name for i in topology.tg.interfaces.values() if i.name]
        # TRex adds up to a frame per stream and then counts what it offered as intended.
        yield Case(
            tg,
            10_000.0,
            tg.max_load_pps,
            1.0,
            senders=_ports_sending(access.namespace, ports),
            extra_frames=10,
        )


CASES = {"sim": _sim_case, "local": _local_case, "trex": _trex_case}


@pytest.fixture(scope="module", params=sorted(CASES))
def case(request: pytest.FixtureRequest) -> Iterator[Case]:
    yield from CASES[request.param]()


def test_without_trex_its_case_skips_unless_required(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(test_trex_real, "TREX_DIR", tmp_path / "none")
    monkeypatch.delenv("NDRPDR_REQUIRE_TREX", raising=False)
    with pytest.raises(pytest.skip.Exception, match="TRex is not installed"):
        next(_trex_case())
    monkeypatch.setenv("NDRPDR_REQUIRE_TREX", "1")
    with pytest.raises(pytest.fail.Exception, match="NDRPDR_REQUIRE_TREX=1 but TRex is not"):
        next(_trex_case())


def _check_counts(case: Case, trial: TrialResult, load: float, duration: float) -> None:
    assert trial.load == load and trial.duration == duration
    assert trial.forwarded_count is not None and trial.loss_count is not None
    assert trial.intended_count is not None
    assert trial.forwarded_count + trial.loss_count == pytest.approx(trial.offered_count)
    assert 0 <= trial.forwarded_count <= trial.offered_count
    assert abs(trial.intended_count - load * duration) <= case.extra_frames
    assert 0.0 <= trial.loss_ratio <= 1.0
    assert trial.effective_duration is not None and trial.effective_duration > 0


def test_zero_loss_well_below_capacity(case: Case) -> None:
    trial = case.tg.measure(case.duration, case.low_load)
    _check_counts(case, trial, case.low_load, case.duration)
    assert trial.offered_count > 0
    assert trial.loss_ratio == 0.0, trial


def test_loss_above_capacity(case: Case) -> None:
    trial = case.tg.measure(case.duration, case.high_load)
    _check_counts(case, trial, case.high_load, case.duration)
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
    assert not case.senders()


def test_a_trial_after_an_error_works_and_leaves_no_sender(case: Case) -> None:
    with pytest.raises(NdrPdrError):
        case.tg.measure(1.0, -5.0)
    case.tg.stop_traffic()
    trial = case.tg.measure(0.5, case.low_load)
    _check_counts(case, trial, case.low_load, 0.5)
    assert not case.senders()
