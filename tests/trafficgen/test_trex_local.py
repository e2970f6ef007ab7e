"""TRex on the plain local testbed (topologies/local-linux-trex.yaml): one server per run.

The pure part (no root): the options a TG in a network namespace gets
(``perrun``: its own config file and DPDK ``--prefix``, tracked for the
run's teardown) and the start time of a trial (``starttime``).

The real part: the real TRex v3.08 (software mode) in the TG namespaces of
real local testbeds made here, through the kernel-forwarding ``linux``
DUT. Two runs at once must share nothing (config file, DPDK prefix, TRex
ports 4500/4501 of their own namespaces) and each must count its own
trials; after teardown nothing of either run is left (namespaces, TRex
processes, ``/var/run/dpdk/<prefix>``, config files, state files), also
when only the local testbed's teardown runs (as after a crash of the
session). Skipped without TRex or root, unless NDRPDR_REQUIRE_TREX=1.
"""

from __future__ import annotations

import contextlib
import dataclasses
from pathlib import Path

import pytest
from test_trex_real import processes_mentioning, require_trex

from ndrpdr.access.local import LocalTransport
from ndrpdr.access.netns import NetnsTransport
from ndrpdr.activebed.testbed import ActiveTestbed
from ndrpdr.families import profile_of as get_profile
from ndrpdr.localbed import LocalTestbed, read_counters
from ndrpdr.localbed.testbed import TrackedNetnsTransport
from ndrpdr.search.trial import TrialResult
from ndrpdr.topology.loader import load_topology
from ndrpdr.trafficgen.trex.counts import trex_trial
from ndrpdr.trafficgen.trex.options import parse_options
from ndrpdr.trafficgen.trex.perrun import per_run_options, run_config_path
from ndrpdr.trafficgen.trex.server import dpdk_prefix
from ndrpdr.trafficgen.trex.session import TrexSession
from ndrpdr.trafficgen.trex.starttime import traffic_seconds, traffic_start
from ndrpdr.trafficgen.trex.vethcount import veth_counter

pytestmark = pytest.mark.real  # a real system part: tests/testkinds.py

TOPOLOGY = Path(__file__).resolve().parents[2] / "topologies" / "local-linux-trex.yaml"
PROFILE = get_profile("ethip4-ip4base")
#: Aggregate load of the count checks [pps]: the kernel DUT forwards it on a busy CPU.
LOAD_PPS = 20_000
#: A load at which TRex's own receive side misses frames on a busy 2-core VM [pps].
HIGHER_LOAD_PPS = 200_000
#: Loss the kernel DUT may show on a CPU shared with other work.
LOSS_TOLERANCE = 0.01


def tracked(namespace: str, paths: list[str]) -> TrackedNetnsTransport:
    """A local testbed's kind of transport (no I/O) whose tracked paths land in ``paths``."""
    return TrackedNetnsTransport(
        "TG", namespace, lambda pid, log: None, run_id="1-abcd", on_path=paths.append
    )


# -- pure: options per run ---------------------------------------------------------------


def test_a_tg_in_a_namespace_gets_its_own_config_and_prefix() -> None:
    topology = load_topology(TOPOLOGY)
    options = parse_options(topology)
    assert options.config_path == "/etc/trex_cfg.yaml"  # what a lab TG would share
    paths: list[str] = []
    made = per_run_options(options, topology.tg.options, tracked("ndrpdr-1-abcd-tg", paths))
    assert made.config_path == "/tmp/ndrpdr-1-abcd-tg-trex_cfg.yaml"
    assert made.config_path == run_config_path("ndrpdr-1-abcd-tg")
    assert dpdk_prefix(made.extra_args) == "ndrpdr-1-abcd-tg"
    assert made.extra_args[: len(options.extra_args)] == options.extra_args  # kept, in order
    assert paths == [made.config_path, "/var/run/dpdk/ndrpdr-1-abcd-tg"]
    other = per_run_options(options, topology.tg.options, tracked("ndrpdr-2-beef-tg", []))
    assert other.config_path != made.config_path
    assert dpdk_prefix(other.extra_args) != dpdk_prefix(made.extra_args)


def test_what_the_topology_gives_is_kept_and_the_config_it_names_not_removed() -> None:
    topology = load_topology(TOPOLOGY)
    given = {
        **topology.tg.options,
        "config_path": "/srv/mine.yaml",
        "extra_args": ["--prefix", "mine"],
    }
    options = dataclasses.replace(
        parse_options(topology), config_path="/srv/mine.yaml", extra_args=("--prefix", "mine")
    )
    paths: list[str] = []
    made = per_run_options(options, given, tracked("ndrpdr-1-abcd-tg", paths))
    assert made == options
    assert paths == ["/var/run/dpdk/mine"]  # the run's DPDK directory still goes at teardown


def test_a_tg_not_in_a_local_namespace_is_left_as_it_is() -> None:
    topology = load_topology(TOPOLOGY)
    options = parse_options(topology)
    assert per_run_options(options, topology.tg.options, None) is options
    assert per_run_options(options, topology.tg.options, LocalTransport("TG")) is options
    # A plain NetnsTransport (no run to track for) still gets the per-run names.
    plain = per_run_options(options, topology.tg.options, NetnsTransport("TG", "ns-x"))
    assert plain.config_path == "/tmp/ns-x-trex_cfg.yaml"
    assert dpdk_prefix(plain.extra_args) == "ns-x"


def test_the_session_writes_the_same_config_text_to_the_per_run_path() -> None:
    topology = load_topology(TOPOLOGY)
    session = TrexSession(topology, access=tracked("ndrpdr-1-abcd-tg", []))
    assert session.options.config_path == "/tmp/ndrpdr-1-abcd-tg-trex_cfg.yaml"
    assert '"tg-if1", "tg-if2"' in session.config_text
    assert "low_end_core: 0" in session.config_text
    assert session.settings.namespace == "ndrpdr-1-abcd-tg"  # the client runs in there


def test_a_trial_starts_midway_through_the_start_request() -> None:
    assert traffic_start(10.0, 10.02) == pytest.approx(10.01)
    assert traffic_start(10.0, 10.0) == 10.0
    assert traffic_start(10.0, 9.5) == 10.0  # a clock that went back: the request's time


def test_a_trial_lasts_at_least_its_duration_and_a_late_one_counts_in_full() -> None:
    assert traffic_seconds(10.01, 10.99, 1.0) == 1.0  # the reply came late: TRex's schedule
    assert traffic_seconds(10.01, 11.21, 1.0) == pytest.approx(1.2)  # stretched


def _veth_counted(received: dict[int, int]) -> TrialResult:
    """A 1 s trial of 500 frames per direction that TRex counted 495 back of on each port."""
    stats = {0: {"opackets": 500, "ipackets": 495}, 1: {"opackets": 500, "ipackets": 495}}
    directions = ((0, 1), (1, 0))
    return trex_trial(
        stats,
        duration=1.0,
        load=1000.0,
        directions=directions,
        traffic_duration_s=1.0,
        received=received,
    ).result


def test_received_frames_are_the_veths_count_the_surplus_kept_apart() -> None:
    counted = _veth_counted({0: 500, 1: 500})  # TRex's own receive side missed 10 frames
    assert (counted.forwarded_count, counted.loss_count) == (1000, 0)
    assert counted.offered_count == 1000 and not counted.warnings
    lossy = _veth_counted({0: 400, 1: 500})
    assert (lossy.forwarded_count, lossy.loss_count) == (900, 100)
    extra = _veth_counted({0: 497, 1: 503})  # port 1's surplus does not hide port 0's loss
    assert (extra.forwarded_count, extra.loss_count, extra.surplus_count) == (997, 3, 3)
    assert "received 3 frames more than were sent (1000)" in extra.warnings[0]
    assert veth_counter("TG", None, ["tg-if1", "tg-if2"], [1, 0]) is None  # not local
    counter = veth_counter("TG", "ns", ["tg-if1", "tg-if2"], [1, 0])
    assert counter is not None and counter.receivers == {1: "tg-if2", 0: "tg-if1"}


# -- real TRex, two runs at once --------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class RunTraces:
    """What one run made that must be gone after it: names and paths."""

    run_id: str
    namespaces: tuple[str, ...]
    config_path: str
    prefix: str
    state_file: Path


def traces(testbed: ActiveTestbed) -> RunTraces:
    session = testbed.session
    assert isinstance(session, TrexSession)
    prefix = dpdk_prefix(session.options.extra_args)
    assert prefix is not None
    bed = testbed._localbed  # the test's own run
    assert bed is not None
    return RunTraces(
        bed.run_id,
        tuple(bed.plan.namespaces),
        session.options.config_path,
        prefix,
        bed.state_file,
    )


def assert_gone(run: RunTraces) -> None:
    left_ns = [ns for ns in run.namespaces if Path(f"/run/netns/{ns}").exists()]
    assert not left_ns, f"namespaces left: {left_ns}"
    assert not processes_mentioning(run.prefix), f"TRex processes of {run.prefix} left"
    assert not Path(f"/var/run/dpdk/{run.prefix}").exists()
    assert not Path(run.config_path).exists()
    assert not run.state_file.exists()


@pytest.fixture
def state_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    require_trex()
    directory = tmp_path / "state"
    monkeypatch.setenv("NDRPDR_STATE_DIR", str(directory))
    return directory


def test_two_runs_at_once_share_nothing_count_their_own_and_leave_nothing(
    state_dir: Path,
) -> None:
    topology = load_topology(TOPOLOGY)
    runs: list[RunTraces] = []
    with contextlib.ExitStack() as stack:
        beds = [stack.enter_context(ActiveTestbed(topology)) for _ in range(2)]
        runs = [traces(bed) for bed in beds]
        assert runs[0].config_path != runs[1].config_path
        assert runs[0].prefix != runs[1].prefix
        for run in runs:
            assert Path(run.config_path).is_file()
            assert Path(f"/var/run/dpdk/{run.prefix}").is_dir()
            assert processes_mentioning(run.prefix), f"no TRex server with --prefix {run.prefix}"
        results = []
        for bed in beds:
            bed.configure_duts("ip4base")
            tg = bed.traffic_generator(PROFILE, 64)
            results.append(tg.measure(1.0, LOAD_PPS))
        for result in results:
            assert LOAD_PPS <= result.offered_count <= LOAD_PPS + 10, result
            assert result.loss_ratio <= LOSS_TOLERANCE, result
            assert 1.0 <= result.effective_duration < 1.26, result
            assert not result.warnings, result
        # Received is what the DUT sent back, counted by the kernel (TRex's own receive
        # side misses frames at loads like this one on a busy CPU).
        bed = beds[0]
        dut_ns = f"ndrpdr-{bed.run_id}-dut"
        tg = bed.traffic_generator(PROFILE, 64)
        before = read_counters(dut_ns)
        result = tg.measure(1.0, HIGHER_LOAD_PPS)
        after = read_counters(dut_ns)
        dut_sent = sum(after[n].tx_packets - before[n].tx_packets for n in ("dut-if1", "dut-if2"))
        assert result.forwarded_count == min(dut_sent, result.offered_count), (result, dut_sent)
    for run in runs:
        assert_gone(run)


def test_the_local_teardown_alone_removes_the_server_and_its_files(state_dir: Path) -> None:
    """As after a session that was never closed: the run's teardown cleans up by PID and path."""
    topology = load_topology(TOPOLOGY)
    local = LocalTestbed(topology)
    local.setup()
    try:
        session = TrexSession(topology, access=local.access("TG"))
        session.open()
        pid = session.server_pid
        assert pid is not None and Path(f"/proc/{pid}").exists()
        prefix = dpdk_prefix(session.options.extra_args)
        assert prefix is not None and processes_mentioning(prefix)
        run = RunTraces(
            local.run_id,
            tuple(local.plan.namespaces),
            session.options.config_path,
            prefix,
            local.state_file,
        )
        assert Path(run.config_path).is_file()
    finally:
        local.teardown()
    assert_gone(run)
