"""TrexTrafficGenerator over a TrexSession with a stand-in TRex client and node access.

Stand-ins (``trex_standin.py``), because what these tests pin down cannot
be shown by the real TRex on this machine: a CSIT-like TG with DPDK ports
by PCI address and several cores per port pair, exact counts and
timings under a fake clock, scripted loss, stretching, TRex warnings and
failing calls, and a whole search over a simulated DUT. The real TRex
(software mode, veths) runs in ``test_trex_real.py``.
"""

from __future__ import annotations

import math
import re

import pytest
from trex_standin import (
    CSIT,
    EXPECTED,
    LINE_64_10GE,
    PROFILE,
    ROOT,
    RecordingAccess,
    SimulatedDut,
    rig,
    topology_with,
    wire,
)

from ndrpdr.goals import ndr_pdr_goals
from ndrpdr.profiles import max_load_pps
from ndrpdr.search.trial import Measurer
from ndrpdr.simdut.models import make_model
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.model import Topology
from ndrpdr.trafficgen.base import TrafficGenerator, TrafficGeneratorError
from ndrpdr.trafficgen.trex.client import ClientSettings, TrexClientError
from ndrpdr.trafficgen.trex.driver import TrexTrafficGenerator
from ndrpdr.trafficgen.trex.server import SERVER_SCRIPT
from ndrpdr.trafficgen.trex.session import TrexSession
from search_call import search_call


@pytest.fixture(scope="module")
def csit() -> Topology:
    return load_topology(CSIT)


# -- construction --------------------------------------------------------------------


def test_is_a_traffic_generator_and_does_no_io(csit: Topology) -> None:
    r = rig(topology_with(csit))
    tg: TrafficGenerator = r.tg
    assert isinstance(tg, Measurer)
    assert r.settings == [] and r.client.calls == []
    assert r.access.files == {} and r.access.started == []
    assert tg.max_load_pps == pytest.approx(2 * LINE_64_10GE)  # no I/O with known speeds
    assert r.client.calls == []
    assert r.tg.config_text == (EXPECTED / "trex_cfg_csit_2n.yaml").read_text()


def test_constructor_checks(csit: Topology) -> None:
    with pytest.raises(TrafficGeneratorError, match=r"nodes\.TG\.options\.cores: 0 is not"):
        rig(topology_with(csit, cores=0))
    with pytest.raises(
        TrafficGeneratorError, match=r"node access is needed .*\.options\.start_server to false"
    ):
        TrexSession(topology_with(csit), access=None)
    TrexSession(topology_with(csit, start_server=False), access=None)  # no access needed
    with pytest.raises(TrafficGeneratorError, match=r"frame size 63 is out of range"):
        rig(topology_with(csit), frame_size=63)
    sim = load_topology(ROOT / "topologies" / "sim.yaml")
    with pytest.raises(TrafficGeneratorError, match=r"nodes\.TG\.driver: 'sim' is not trex"):
        TrexSession(sim, access=RecordingAccess())
    session = rig(topology_with(csit)).session
    with pytest.raises(TrafficGeneratorError, match=r"nodes\.TG\.driver: 'sim' node TG is not"):
        TrexTrafficGenerator(sim, PROFILE, 64, session=session)


@pytest.mark.parametrize("bidirectional", [True, False])
def test_max_load_from_speeds_and_cap(csit: Topology, bidirectional: bool) -> None:
    directions = 2 if bidirectional else 1
    line = directions * max_load_pps(25e9, 1518)
    r = rig(topology_with(csit, speed_bps=25e9), bidirectional=bidirectional, frame_size=1518)
    assert r.tg.max_load_pps == pytest.approx(line)
    capped = rig(topology_with(csit, speed_bps=25e9, max_rate_pps=1e6), bidirectional=bidirectional)
    assert capped.tg.max_load_pps == 1e6
    unknown = rig(topology_with(csit, speed_bps=None, max_rate_pps=1e6))
    assert unknown.tg.max_load_pps == 1e6 and unknown.client.calls == []


def test_max_load_from_the_server_when_speeds_are_unknown(csit: Topology) -> None:
    r = rig(topology_with(csit, speed_bps=None), port_speed_gbps=100.0)
    assert r.tg.max_load_pps == pytest.approx(2 * max_load_pps(100e9, 64))
    assert ("get_port_attr", 0) in r.client.calls and ("get_port_attr", 1) in r.client.calls
    assert len(r.access.started) == 1  # the server had to start for it
    broken = rig(topology_with(csit, speed_bps=None), port_speed_gbps=0.0)
    with pytest.raises(
        TrafficGeneratorError, match=r"no speed for port 0 .*interfaces\.port1\.speed"
    ):
        _ = broken.tg.max_load_pps


# -- the first trial: server, connection, one trial ----------------------------------


def test_first_trial_starts_the_server_and_connects(csit: Topology) -> None:
    topology = topology_with(csit, extra_args=["--hdrh", "--no-scapy-server"])
    r = rig(topology)
    result = r.tg.measure(1.0, 2_000_000.0)
    # the config, written as root
    data, sudo = r.access.files["/etc/trex_cfg.yaml"]
    assert data.decode() == (EXPECTED / "trex_cfg_csit_2n.yaml").read_text() and sudo
    # the server, as root, from its directory
    ((argv, sudo),) = r.access.started
    assert sudo
    assert argv == [
        "sh", "-c", SERVER_SCRIPT, "t-rex-64", "/opt/trex-core/scripts",
        "-i", "--cfg", "/etc/trex_cfg.yaml", "--hdrh", "--no-scapy-server",
    ]  # fmt: skip
    assert r.settings == [ClientSettings("TG", "10.0.0.1", 4501, 4500, None)]
    assert r.tg.server_version == "v3.08"
    names = r.client.names()
    assert names[:2] == ["connect", "acquire"]
    assert r.client.calls[1] == ("acquire", [0, 1], True)
    assert names[2:7] == ["reset", "add_streams", "add_streams", "clear_events", "start"]
    assert r.client.calls[2] == ("reset", [0, 1])
    _, port0_streams, port0 = r.client.calls[3]
    _, port1_streams, port1 = r.client.calls[4]
    assert (port0, port1) == ([0], [1])
    assert [s.direction for s in port0_streams] == [0] and [s.direction for s in port1_streams] == [
        1
    ]
    assert r.client.calls[6] == ("start", [0, 1], "1000000.000pps", 1.0, True, "pin")
    assert names[-2:] == ["get_stats", "get_warnings"]
    assert r.clock.sleeps == [0.05]  # settle_s before the counters are read
    assert (result.duration, result.load) == (1.0, 2_000_000.0)
    assert result.offered_count == 2_000_000 and result.forwarded_count == 2_000_000
    assert result.intended_count == 2_000_000 and result.effective_duration == 1.0
    assert result.loss_ratio == 0.0 and result.warnings == ()
    # the second trial reuses the connection
    r.tg.measure(1.0, 1_000_000.0)
    assert r.client.names().count("connect") == 1 and len(r.access.started) == 1


def test_frames_are_addressed_as_the_topology_says(csit: Topology) -> None:
    r = rig(topology_with(csit))
    r.tg.measure(1.0, 1e6)
    _, (stream0,), _ = r.client.calls[3]
    _, (stream1,), _ = r.client.calls[4]
    # dst MAC, src MAC: TG port1 -> DUT1 port1; TG port2 -> DUT1 port2
    assert stream0.packet[:12].hex(":") == "b4:96:91:00:00:50:b4:96:91:00:00:40"
    assert stream1.packet[:12].hex(":") == "b4:96:91:00:00:51:b4:96:91:00:00:41"
    assert len(stream0.packet) == 60 and stream0.pps == 500_000.0


def test_unidirectional_sends_on_port_0_only(csit: Topology) -> None:
    r = rig(topology_with(csit), bidirectional=False)
    result = r.tg.measure(2.0, 500_000.0)
    assert ("start", [0], "500000.000pps", 2.0, True, "split") in r.client.calls  # one port
    assert [c[2] for c in r.client.calls if c[0] == "add_streams"] == [[0]]
    assert result.offered_count == 1_000_000 and result.forwarded_count == 1_000_000


def test_loss_trex_warnings_and_latency(csit: Topology) -> None:
    latency = {
        0: {
            "latency": {"total_min": 5.0, "average": 7.5, "total_max": 40.0, "histogram": {"10": 3}}
        },
        "global": {"old_flow": 0},
    }
    r = rig(
        topology_with(csit, latency_pps=1000),
        network=wire(loss={0: 1500}),
        warnings=["Port 1: RX queue is full"],
        global_stats={"queue_full": 3, "cpu_util": 91.0},
        latency=latency,
    )
    result = r.tg.measure(1.0, 2_000_000.0)
    assert result.loss_count == 1500 and result.forwarded_count == 2_000_000 - 1500
    assert result.warnings == (
        "TRex TX queue full 3 times: the TG did not keep up with 2e+06 pps",
        "TRex CPU utilisation 91.0 % (>= 85 %): the TG may be the bottleneck",
        "TRex: Port 1: RX queue is full",
    )
    assert r.tg.last_trial is not None
    assert r.tg.last_trial.latency[0].max_us == 40.0
    _, port0_streams, _ = r.client.calls[3]
    assert [(s.name, s.pps, s.latency_pg_id) for s in port0_streams] == [
        ("dir0-64B", 999_000.0, None),
        ("dir0-latency", 1000.0, 0),
    ]


def test_stretched_traffic_is_stopped_at_the_cutoff(csit: Topology) -> None:
    # TRex needs 1.5 s for the frames of a 1 s trial: stopped at 1 s x 1.01 + 0.25 s.
    r = rig(topology_with(csit), stretch_s=0.5)
    result = r.tg.measure(1.0, 2_000_000.0)
    assert ("stop", [0, 1]) in r.client.calls  # stopped by the driver, not by TRex
    assert result.effective_duration == pytest.approx(1.26)
    assert result.unsent_count > 0 and result.loss_count == 0
    assert result.loss_ratio == pytest.approx(1 - 1.26 / 1.5, rel=1e-3)
    assert any("still sending 1.260 s" in w for w in result.warnings)
    waits = [c[2] for c in r.client.calls if c[0] == "wait_on_traffic"]
    assert all(w <= 0.1 + 1e-12 for w in waits)  # short waits: stop_traffic is seen quickly


def test_zero_load_touches_nothing(csit: Topology) -> None:
    r = rig(topology_with(csit))
    result = r.tg.measure(1.0, 0.0)
    assert result.offered_count == 0 and result.loss_ratio == 0.0
    assert r.client.calls == [] and r.access.started == []


@pytest.mark.parametrize(
    ("duration", "load", "word"),
    [
        (0.0, 1e6, "duration"),
        (math.nan, 1e6, "duration"),
        (1.0, -1.0, "load"),
        (1.0, math.inf, "load"),
    ],
)
def test_bad_trial_inputs(csit: Topology, duration: float, load: float, word: str) -> None:
    r = rig(topology_with(csit))
    with pytest.raises(TrafficGeneratorError, match=word):
        r.tg.measure(duration, load)
    assert r.client.calls == []


def test_load_above_the_maximum_names_both(csit: Topology) -> None:
    r = rig(topology_with(csit))
    limit = r.tg.max_load_pps
    with pytest.raises(
        TrafficGeneratorError, match=re.escape(f"above the maximum {limit:.6g} pps")
    ):
        r.tg.measure(1.0, limit * 1.5)


# -- stopping, failing, closing ------------------------------------------------------


def test_failed_call_names_the_node_and_step_and_stops_traffic(csit: Topology) -> None:
    r = rig(topology_with(csit), fail_on="start")
    with pytest.raises(
        TrafficGeneratorError,
        match=r"^TG: TRex start at 1000000\.000 pps per port for 1 s: start: port 1 is in an error",
    ):
        r.tg.measure(1.0, 2e6)
    assert len(r.clients) == 1  # not what the client said (TrexClientError): not retried
    assert r.client.calls[-1] == ("stop", [0, 1])


def test_a_call_that_fails_while_the_server_runs_is_retried_once_with_a_new_client(
    csit: Topology,
) -> None:
    r = rig(topology_with(csit))
    r.tg.measure(1.0, 1e6)

    def lost(ports: object) -> None:  # this client only: the next one the session makes is well
        raise TrexClientError("get_stats: port 1 is in an error state")

    r.client.get_stats = lost  # type: ignore[method-assign,assignment]
    result = r.tg.measure(1.0, 1e6)
    assert result.loss_ratio == 0.0 and len(r.clients) == 2
    assert r.client.names()[-1] == "close"  # the first client: dropped
    assert result.warnings[-1] == (
        "retried once with a new TRex client; the first try failed: TG: TRex get_stats: "
        "get_stats: port 1 is in an error state"
    )
    assert r.session.starts == 1  # the server was not restarted


def test_stop_traffic_during_a_trial_ends_it(csit: Topology) -> None:
    holder: list[TrexTrafficGenerator] = []

    def stop_from_elsewhere() -> None:  # as another thread would, while the trial waits
        holder[0].stop_traffic()

    r = rig(topology_with(csit), on_wait=stop_from_elsewhere)
    holder.append(r.tg)
    with pytest.raises(TrafficGeneratorError, match="stopped on request"):
        r.tg.measure(5.0, 1e6)
    assert ("stop", [0, 1]) in r.client.calls
    r.client.on_wait = None
    assert r.tg.measure(1.0, 1e6).loss_ratio == 0.0  # the next trial works


def test_stop_traffic_and_close_leave_the_session_open(csit: Topology) -> None:
    r = rig(topology_with(csit))
    r.tg.stop_traffic()  # before anything: no-op
    r.tg.close()
    assert r.client.calls == [] and not r.session.is_open
    r.tg.measure(1.0, 1e6)
    r.tg.stop_traffic()
    assert r.client.calls[-1] == ("stop", [0, 1])
    r.tg.close()
    assert r.client.calls[-2:] == [("stop", [0, 1]), ("reset", [0, 1])]
    assert r.client.connected and r.session.is_open  # the next test's TG uses them
    assert not r.access.processes[0].stopped
    count = len(r.client.calls)
    r.tg.close()  # idempotent
    assert len(r.client.calls) == count


def test_close_reports_errors_but_does_everything(csit: Topology) -> None:
    r = rig(topology_with(csit))
    r.tg.measure(1.0, 1e6)
    r.client.fail_on = "stop"
    with pytest.raises(
        TrafficGeneratorError, match=r"closing the TRex traffic: TG: TRex stop: stop: port 1"
    ):
        r.tg.close()
    assert r.client.names()[-1] == "reset"


def test_two_tests_in_a_row_share_one_server_and_connection(csit: Topology) -> None:
    r = rig(topology_with(csit))
    r.tg.measure(1.0, 1e6)
    r.tg.close()
    second = r.generator(bidirectional=False, frame_size=1518)
    result = second.measure(1.0, 500_000.0)
    second.close()
    assert result.forwarded_count == 500_000
    assert len(r.access.started) == 1 and r.session.starts == 1
    assert r.client.names().count("connect") == 1 and len(r.settings) == 1
    r.session.close()
    assert r.access.processes[0].stopped


@pytest.mark.parametrize(
    ("cores", "bidirectional", "mask"),
    [
        (2, True, "pin"),
        (4, True, "pin"),
        (1, True, "split"),
        (None, True, "split"),
        (2, False, "split"),
    ],
)
def test_core_mask_follows_the_server_cores(
    csit: Topology, cores: int | None, bidirectional: bool, mask: str
) -> None:
    """PIN needs both ports sending and 2+ cores per port pair (a real 1-core server refuses it)."""
    r = rig(topology_with(csit), bidirectional=bidirectional, cores_per_port_pair=cores)
    r.tg.measure(1.0, 1e6)
    (start,) = [c for c in r.client.calls if c[0] == "start"]
    assert start[-1] == mask


# -- a whole search over the driver --------------------------------------------------


@pytest.mark.parametrize("model_name", ["sharp", "gradual"])
def test_search_over_a_simulated_dut_finds_the_truth(csit: Topology, model_name: str) -> None:
    model = make_model(model_name, 1)
    topology = topology_with(csit)
    r = rig(topology, network=SimulatedDut(model))
    goals = ndr_pdr_goals(duration_sum_s=2.0, relative_width=0.01)
    run = search_call(r.tg, topology=topology, profile=PROFILE, frame_size=64, goals=goals)
    assert run.error is None, run.error
    assert run.result is not None
    ndr, pdr = run.result.goal_results
    assert ndr.lower_bound is not None and ndr.upper_bound is not None
    assert pdr.lower_bound is not None and pdr.upper_bound is not None
    true_ndr, true_pdr = model.true_ndr(1.0), model.true_pdr(1.0)
    assert ndr.lower_bound <= true_ndr <= ndr.upper_bound
    assert pdr.lower_bound <= true_pdr <= pdr.upper_bound
    assert ndr.lower_bound == pytest.approx(true_ndr, rel=0.011)
    assert pdr.lower_bound == pytest.approx(true_pdr, rel=0.011)
    assert run.record.to_json()["trials"] and all(t.warnings == () for t in run.result.trials)
    assert r.client.names().count("connect") == 1
    assert r.client.calls[-1] == ("stop", [0, 1])  # run_search stops traffic at the end
    assert r.session.starts == 1
