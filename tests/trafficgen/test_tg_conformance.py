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

The counting rules the local TG and TRex share (``ndrpdr.trafficgen.counting``)
hold for real as well, wherever a case has a wire to act on (``Wire``: the
DUT's side of the TG's links; the sim has none): frames added on the way
to a TG port are its surplus, not forwarded frames; a trial cut short by
the stretch cut-off counts what it did not send as lost and says so; and
a direction the DUT drops whole is named, by the same ports on either TG.
That last needs a DUT that drops a direction on demand: the kernel DUT
(an nft rule), which the TRex case has and the local TG gets in a case of
its own (``kernel_case``: topologies/local-linux.yaml; testpmd reads its
frames before any rule could drop them).
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest
import test_trex_real
from test_trex_real import require_trex

from busy_kernel import BUSY_LOSS_RATIO
from ndrpdr.access.netns import NetnsTransport
from ndrpdr.activebed.testbed import ActiveTestbed
from ndrpdr.errors import NdrPdrError
from ndrpdr.families import get_family
from ndrpdr.families import profile_of as get_profile
from ndrpdr.localbed import read_counters
from ndrpdr.results.oneway import is_one_way
from ndrpdr.search.trial import TrialResult
from ndrpdr.search.trialnotes import is_surplus_note
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.model import Topology
from ndrpdr.topology.path import compute_path
from ndrpdr.trafficgen import counting
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


#: Sends ``argv[2]`` frames on interface ``argv[1]`` (run in the DUT's namespace).
_INJECT = """
import socket, sys
frame = bytes.fromhex("ffffffffffff" "020000000099" "88b5") + bytes(46)  # broadcast, 88b5
with socket.socket(socket.AF_PACKET, socket.SOCK_RAW) as sock:
    sock.bind((sys.argv[1], 0))
    for _ in range(int(sys.argv[2])):
        sock.send(frame)
"""
#: The nft table that drops a direction in a kernel DUT.
_SILENCE_TABLE = "ndrpdr_conformance"


@dataclasses.dataclass(frozen=True)
class Wire:
    """The DUT's side of the TG's links on a local testbed.

    ``namespace`` is the DUT's network namespace, ``facing`` its interfaces
    linked to TG port 0 and TG port 1; ``kernel``: the kernel forwards
    there, so an nft rule can drop a direction (testpmd's AF_PACKET ports
    instead see every frame, also those sent out of them, and forward
    those too: an injected frame comes to both TG ports).
    """

    namespace: str
    facing: tuple[str, str]
    kernel: bool

    def inject(self, port: int, count: int) -> None:
        """``count`` frames the TG did not send, towards its port ``port``."""
        argv = ["ip", "netns", "exec", self.namespace, sys.executable, "-c", _INJECT]
        subprocess.run([*argv, self.facing[port], str(count)], check=True, timeout=30)

    @contextlib.contextmanager
    def silenced(self, direction: int) -> Iterator[None]:
        """The DUT drops every frame of ``direction`` (entering it from TG port ``direction``)."""
        assert self.kernel, "only a kernel DUT drops a direction on demand"
        rules = (
            f"table inet {_SILENCE_TABLE} {{\n  chain forward {{\n"
            "    type filter hook forward priority 0;\n"
            f'    iifname "{self.facing[direction]}" drop;\n  }}\n}}\n'
        )
        nft = ["ip", "netns", "exec", self.namespace, "nft"]
        subprocess.run([*nft, "-f", "-"], input=rules, text=True, check=True, timeout=30)
        try:
            yield
        finally:
            subprocess.run([*nft, "delete", "table", "inet", _SILENCE_TABLE], check=True)


def _wire(testbed: ActiveTestbed, topology: Topology, *, kernel: bool) -> Wire:
    """The wire of ``testbed``: the DUT interfaces at the far end of the TG's path ports."""
    facing: list[str] = []
    nodes: set[str] = set()
    for key in compute_path(topology).tg_ports:
        peer = topology.peer(topology.tg.key, key)
        assert peer is not None
        nodes.add(peer.node)
        name = topology.nodes[peer.node].interface(peer.interface).name
        assert name is not None
        facing.append(name)
    (dut,) = nodes  # a 2-node testbed: one DUT faces both TG ports
    access = testbed.access(dut)
    assert isinstance(access, NetnsTransport)
    return Wire(access.namespace, (facing[0], facing[1]), kernel)


@dataclasses.dataclass
class Case:
    """A TG under test and loads that are well below / above what the system forwards.

    ``senders`` lists what of this TG still sends (empty: nothing);
    ``extra_frames``: how many frames the TG may send beyond load x duration;
    ``wire``: the DUT's side of the TG's links (None: the sim has none).
    """

    tg: TrafficGenerator
    low_load: float
    high_load: float
    duration: float
    senders: Callable[[], list[str]] = _tcpreplay_senders
    extra_frames: int = 2
    wire: Wire | None = None


def _sim_case() -> Iterator[Case]:
    topology = load_topology(ROOT / "topologies/sim.yaml")
    profile = get_profile("ethip4-ip4base")
    with ActiveTestbed(topology) as testbed:
        testbed.configure_family(get_family(profile.name))
        tg = testbed.traffic_generator(profile, 64)
        model = tg.model  # type: ignore[attr-defined]
        yield Case(tg, 0.1 * model.true_ndr(1.0), tg.max_load_pps, 1.0)


def _local_case(dut: str = "testpmd") -> Iterator[Case]:
    """The local TG through the ``dut`` of topologies/local-<dut>.yaml (testpmd or linux)."""
    tools = ("ip", "nft", "tcpreplay", *(("dpdk-testpmd",) if dut == "testpmd" else ()))
    missing = [t for t in tools if not shutil.which(t)]
    if os.geteuid() != 0 or missing:
        pytest.skip(f"local TG needs root and {', '.join(missing) or 'tools'}")
    topology = load_topology(ROOT / f"topologies/local-{dut}.yaml")
    profile = get_profile("ethip4-ip4base")
    with ActiveTestbed(topology) as testbed:
        testbed.configure_family(get_family(profile.name))
        tg = testbed.traffic_generator(profile, 64)
        wire = _wire(testbed, topology, kernel=dut == "linux")
        yield Case(tg, 20_000.0, tg.max_load_pps, 1.0, wire=wire)


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
            wire=_wire(testbed, topology, kernel=True),
        )


CASES = {"sim": _sim_case, "local": _local_case, "trex": _trex_case}


@pytest.fixture(scope="module")
def trex_case() -> Iterator[Case]:
    """The TRex case, one server for the module: ``case`` and ``kernel_case`` share it."""
    yield from _trex_case()


@pytest.fixture(scope="module", params=sorted(CASES))
def case(request: pytest.FixtureRequest) -> Iterator[Case]:
    if request.param == "trex":
        yield request.getfixturevalue("trex_case")
        return
    yield from CASES[request.param]()


@pytest.fixture(scope="module", params=["local", "trex"])
def kernel_case(request: pytest.FixtureRequest) -> Iterator[Case]:
    """The TGs that count per port, each through the kernel DUT (it drops a direction)."""
    if request.param == "trex":
        yield request.getfixturevalue("trex_case")
        return
    yield from _local_case("linux")


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


# -- the counting rules the local TG and TRex share (ndrpdr.trafficgen.counting) --------------


def _wire_of(case: Case) -> Wire:
    if case.wire is None:
        pytest.skip("the sim has no wire: its counts come from its model")
    return case.wire


#: Frames added on the way to a TG port in the surplus check.
INJECTED = 1000


def test_frames_the_tg_did_not_send_are_surplus_not_forwarded(case: Case) -> None:
    """Frames added on the way to TG port 1 during a trial: direction 0 received more
    than it sent, which is no loss and no forwarding but the trial's surplus."""
    wire = _wire_of(case)
    case.tg.measure(0.1, case.low_load)  # the frames are built: the trial starts at once
    outcome: list[TrialResult] = []
    worker = threading.Thread(target=lambda: outcome.append(case.tg.measure(1.0, case.low_load)))
    worker.start()
    time.sleep(0.4)
    wire.inject(1, INJECTED)
    worker.join(timeout=30)
    (trial,) = outcome
    _check_counts(case, trial, case.low_load, 1.0)
    # what a busy kernel dropped in a direction (busy_kernel) the surplus there made up
    busy = BUSY_LOSS_RATIO * case.low_load / 2
    most = INJECTED if wire.kernel else 2 * INJECTED  # testpmd forwards them too
    assert INJECTED - busy <= trial.surplus_count <= most, trial
    assert trial.loss_ratio <= BUSY_LOSS_RATIO, trial
    notes = [w for w in trial.warnings if is_surplus_note(w)]
    assert len(notes) == 1, trial.warnings
    assert f"received {trial.surplus_count:.0f} frames more than were sent" in notes[0]


def test_a_trial_cut_at_the_cut_off_counts_the_unsent_as_lost(
    case: Case, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the cut-off 0.2 s into a 1 s trial, both TGs stop their traffic there: what
    they did not send is unsent, counted as lost, and two warnings say so."""
    _wire_of(case)
    monkeypatch.setattr(counting, "STRETCH_TOLERANCE", -0.8)
    monkeypatch.setattr(counting, "STRETCH_GRACE_S", 0.0)
    trial = case.tg.measure(1.0, case.low_load)
    _check_counts(case, trial, case.low_load, 1.0)
    assert trial.intended_count == round(case.low_load)
    assert trial.offered_count < 0.5 * trial.intended_count, trial
    assert trial.loss_ratio > 0.5, trial
    unsent = [w for w in trial.warnings if " intended frames (" in w]
    assert len(unsent) == 1, trial.warnings
    assert re.fullmatch(
        rf"(TG|TRex) sent {trial.offered_count:.0f} of {trial.intended_count:.0f} intended "
        rf"frames \({trial.unsent_count:.0f} unsent, counted as lost\): achieved \d+ pps of "
        rf"{case.low_load:g} pps",
        unsent[0],
    ), unsent[0]
    cut = [w for w in trial.warnings if "was still sending" in w]
    assert cut and all(w.endswith("stopped, frames not sent count as lost") for w in cut), cut
    assert not case.senders()


@pytest.mark.parametrize("direction", [0, 1])
def test_a_direction_the_dut_drops_is_named_by_its_ports(kernel_case: Case, direction: int) -> None:
    """Both TGs name the silent direction alike: ``direction <tx>-><rx>`` by the path's
    TG ports (TRex's port numbers), and only that one."""
    case = kernel_case
    wire = _wire_of(case)
    with wire.silenced(direction):
        trial = case.tg.measure(0.5, case.low_load)
    _check_counts(case, trial, case.low_load, 0.5)
    assert 0.45 <= trial.loss_ratio <= 0.55, trial
    one_way = [w for w in trial.warnings if is_one_way(w)]
    assert len(one_way) == 1, trial.warnings
    tx, rx = direction, 1 - direction
    assert re.match(
        rf"direction {tx}->{rx}: port {rx} received nothing of the \d+ frames port {tx} sent "
        "while the other direction forwarded",
        one_way[0],
    ), one_way[0]
