"""TrexTrafficGenerator over a stand-in TRex client and a recording node access.

No real TRex ran (none can here). ``StandInTrex`` implements the driver's
TrexClient protocol the way TRex's STL client documents its calls:
``reset`` force-acquires, stops, removes all streams and clears the
counters; ``start`` needs streams on every port and takes a per-port
multiplier such as ``"1000000.000pps"``; a started port sends for
``duration`` (plus any scripted "stretching") and then stops by itself;
``wait_on_traffic`` returns when the ports stopped or reports a timeout;
``stop`` ends the traffic at once; ``get_stats`` gives per-port
``opackets`` / ``ipackets``, ``"global"`` and ``"latency"``. Time is a fake
clock the stand-in advances, so trials take no real time. The counts come
from a "network": a scripted wire, or a simulated DUT (``ndrpdr``'s sim
models), so a whole search runs over the driver.
"""

from __future__ import annotations

import dataclasses
import math
import random
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from ndrpdr.access.base import CommandResult
from ndrpdr.goals import ndr_pdr_goals
from ndrpdr.profiles import get_profile, max_load_pps
from ndrpdr.search.trial import Measurer
from ndrpdr.searchrun import run_search
from ndrpdr.testbed.loader import load_topology
from ndrpdr.testbed.model import Topology
from ndrpdr.trafficgen.base import TrafficGenerator, TrafficGeneratorError
from ndrpdr.trafficgen.sim.models import DutModel, make_model
from ndrpdr.trafficgen.trex.client import ClientSettings, CoreMask, TrexClient
from ndrpdr.trafficgen.trex.driver import TrexTrafficGenerator
from ndrpdr.trafficgen.trex.server import SERVER_SCRIPT
from ndrpdr.trafficgen.trex.streams import StreamSpec

ROOT = Path(__file__).resolve().parents[2]
CSIT = ROOT / "topologies" / "csit-2n-example.yaml"
EXPECTED = Path(__file__).resolve().parent / "expected"
PROFILE = get_profile("ethip4-ip4base")
LINE_64_10GE = max_load_pps(10e9, 64)
REFUSAL = "RPC version mismatch: a newer client version is required"

#: (seconds sent, frames/s per sending port) -> (sent per port, received per port).
Network = Callable[[float, Mapping[int, float]], tuple[dict[int, int], dict[int, int]]]


class FakeClock:
    """A monotonic clock that only moves when told (sleeps advance it)."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def wire(loss: Mapping[int, int] | None = None) -> Network:
    """Every frame arrives on the other port, minus ``loss[port]`` frames sent by ``port``."""

    def network(
        seconds: float, rates: Mapping[int, float]
    ) -> tuple[dict[int, int], dict[int, int]]:
        sent = {p: round(r * seconds) for p, r in rates.items()}
        received = {1 - p: max(0, n - (loss or {}).get(p, 0)) for p, n in sent.items()}
        return sent, received

    return network


class SimulatedDut:
    """A network whose DUT is a sim model at the aggregate rate (as the sim TG drives it)."""

    def __init__(self, model: DutModel, seed: int = 1) -> None:
        self.model = model
        self.rng = random.Random(seed)

    def __call__(
        self, seconds: float, rates: Mapping[int, float]
    ) -> tuple[dict[int, int], dict[int, int]]:
        sent = {p: round(r * seconds) for p, r in rates.items()}
        offered, forwarded = self.model.trial(seconds, sum(rates.values()), self.rng)
        lost = offered - forwarded
        received: dict[int, int] = {}
        total = sum(sent.values()) or 1
        shares = {p: lost * n // total for p, n in sent.items()}
        first = min(sent)
        shares[first] += lost - sum(shares.values())
        for port, n in sent.items():
            received[1 - port] = max(0, n - shares[port])
        return sent, received


class StandInTrex:
    """A TrexClient that behaves as TRex's STL client documents (see the module docstring)."""

    def __init__(
        self,
        clock: FakeClock,
        network: Network,
        *,
        connect_failures: int = 0,
        refuse: str | None = None,
        warnings: Sequence[str] = (),
        port_speed_gbps: float = 10.0,
        stretch_s: float = 0.0,
        global_stats: Mapping[str, Any] | None = None,
        latency: Mapping[Any, Any] | None = None,
        on_wait: Callable[[], None] | None = None,
        fail_on: str | None = None,
    ) -> None:
        self.clock = clock
        self.network = network
        self.connect_failures = connect_failures
        self.refuse = refuse
        self.warnings = list(warnings)
        self.port_speed_gbps = port_speed_gbps
        self.stretch_s = stretch_s
        self.global_stats = dict(global_stats or {"queue_full": 0, "cpu_util": 20.0})
        self.latency = dict(latency or {})
        self.on_wait = on_wait
        self.fail_on = fail_on
        self.calls: list[tuple[Any, ...]] = []
        self.connected = False
        self.acquired: set[int] = set()
        self.streams: dict[int, list[StreamSpec]] = {0: [], 1: []}
        self.opackets = {0: 0, 1: 0}
        self.ipackets = {0: 0, 1: 0}
        self.events: list[str] = []
        self.running: dict[str, Any] | None = None

    def _record(self, *call: Any) -> None:
        self.calls.append(call)
        if self.fail_on == call[0]:
            raise RuntimeError(f"{call[0]}: port 1 is in an error state")

    def names(self) -> list[str]:
        return [c[0] for c in self.calls]

    # -- the protocol --------------------------------------------------------------
    def connect(self) -> None:
        self._record("connect")
        if self.connect_failures > 0:
            self.connect_failures -= 1
            raise RuntimeError("*** [RPC] - Failed to get server response from tcp://10.0.0.1:4501")
        if self.refuse is not None:
            raise RuntimeError(self.refuse)
        self.connected = True

    def get_server_version(self) -> Mapping[str, Any]:
        assert self.connected
        return {"version": "v3.08", "build_date": "Nov  5 2025", "mode": "STL"}

    def get_port_attr(self, port: int) -> Mapping[str, Any]:
        self._record("get_port_attr", port)
        return {"speed": self.port_speed_gbps, "link": "UP"}

    def acquire(self, ports: Sequence[int], force: bool = False) -> None:
        self._record("acquire", list(ports), force)
        assert self.connected, "acquire before connect"
        self.acquired.update(ports)

    def reset(self, ports: Sequence[int]) -> None:
        self._record("reset", list(ports))
        self.acquired.update(ports)
        self._finish(self.clock())
        for port in ports:
            self.streams[port] = []
            self.opackets[port] = self.ipackets[port] = 0

    def add_streams(self, streams: Sequence[StreamSpec], ports: Sequence[int]) -> None:
        self._record("add_streams", list(streams), list(ports))
        for port in ports:
            assert port in self.acquired, f"port {port} is not acquired"
            self.streams[port].extend(streams)

    def clear_events(self) -> None:
        self._record("clear_events")
        self.events = []

    def start(
        self,
        ports: Sequence[int],
        mult: str,
        duration: float,
        force: bool = True,
        core_mask: CoreMask = "pin",
    ) -> None:
        self._record("start", list(ports), mult, duration, force, core_mask)
        match = re.fullmatch(r"(\d+(?:\.\d+)?)pps", mult)
        assert match, f"mult {mult!r} is not '<number>pps'"
        rate = float(match.group(1))
        for port in ports:
            assert self.streams[port], f"start: port {port} has no streams"
            base = sum(s.pps for s in self.streams[port])
            assert math.isclose(base, rate, rel_tol=1e-6), (base, rate)
        self.running = {
            "ports": list(ports),
            "rate": rate,
            "start": self.clock(),
            "end": self.clock() + duration + self.stretch_s,
            "frames_s": duration,  # the frames of `duration` seconds, sent over the whole span
        }

    def _finish(self, at: float) -> None:
        """End the running traffic at ``at`` (its end, or earlier when stopped)."""
        run, self.running = self.running, None
        if run is None:
            return
        span = run["end"] - run["start"]
        share = min(1.0, (at - run["start"]) / span) if span > 0 else 1.0
        sent, received = self.network(
            run["frames_s"] * share, dict.fromkeys(run["ports"], run["rate"])
        )
        for port, n in sent.items():
            self.opackets[port] += n
        for port, n in received.items():
            self.ipackets[port] += n
        self.events.extend(self.warnings)

    def wait_on_traffic(self, ports: Sequence[int], timeout_s: float) -> bool:
        self._record("wait_on_traffic", list(ports), timeout_s)
        if self.on_wait is not None:
            self.on_wait()
        if self.running is None:
            return True
        remaining = self.running["end"] - self.clock()
        if remaining <= timeout_s:
            self.clock.now = self.running["end"]
            self._finish(self.clock())
            return True
        self.clock.now += timeout_s
        return False

    def get_stats(self, ports: Sequence[int]) -> Mapping[Any, Any]:
        self._record("get_stats", list(ports))
        stats: dict[Any, Any] = {
            p: {"opackets": self.opackets[p], "ipackets": self.ipackets[p]} for p in (0, 1)
        }
        stats["global"] = dict(self.global_stats)
        stats["latency"] = dict(self.latency)
        stats["flow_stats"] = {}
        return stats

    def get_warnings(self) -> list[str]:
        self._record("get_warnings")
        return list(self.events)

    def stop(self, ports: Sequence[int]) -> None:
        self._record("stop", list(ports))
        self._finish(self.clock())

    def release(self, ports: Sequence[int]) -> None:
        self._record("release", list(ports))
        self.acquired.difference_update(ports)

    def disconnect(self) -> None:
        self._record("disconnect")
        self.connected = False


class RecordingProcess:
    """A background process: running until stopped, or until ``exits_after`` checks."""

    def __init__(self, log: str, exits_after: int | None) -> None:
        self.pid = 4242
        self.log = log
        self.exits_after = exits_after
        self.checks = 0
        self.stopped = False

    def is_running(self) -> bool:
        self.checks += 1
        if self.exits_after is not None and self.checks > self.exits_after:
            return False
        return not self.stopped

    def stop(self, timeout_s: float = 10.0) -> int | None:
        self.stopped = True
        return 0

    def output(self) -> str:
        return self.log


class RecordingAccess:
    """A NodeAccess that records files and background commands (nothing runs)."""

    def __init__(self, log: str = "", exits_after: int | None = None) -> None:
        self.files: dict[str, tuple[bytes, bool]] = {}
        self.started: list[tuple[list[str], bool]] = []
        self.processes: list[RecordingProcess] = []
        self.log = log
        self.exits_after = exits_after

    @property
    def node(self) -> str:
        return "TG"

    def run(self, argv: Sequence[str], **kwargs: Any) -> CommandResult:
        raise AssertionError(f"unexpected command {argv}")

    def start(
        self, argv: Sequence[str], *, sudo: bool = False, env: Mapping[str, str] | None = None
    ) -> RecordingProcess:
        self.started.append((list(argv), sudo))
        process = RecordingProcess(self.log, self.exits_after)
        self.processes.append(process)
        return process

    def put_file(self, data: bytes, path: str, *, mode: int = 0o644, sudo: bool = False) -> None:
        self.files[path] = (data, sudo)

    def get_file(self, path: str, *, sudo: bool = False) -> bytes:
        raise AssertionError("not used")

    def close(self) -> None:
        pass


# -- helpers -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def csit() -> Topology:
    return load_topology(CSIT)


def topology_with(csit: Topology, *, speed_bps: float | None = 10e9, **options: Any) -> Topology:
    """The CSIT example with TG port speeds and TG options set."""
    tg = csit.tg
    ports = {k: dataclasses.replace(i, speed_bps=speed_bps) for k, i in tg.interfaces.items()}
    tg = dataclasses.replace(tg, interfaces=ports, options=options)
    return dataclasses.replace(csit, nodes={**csit.nodes, "TG": tg})


@dataclasses.dataclass
class Rig:
    tg: TrexTrafficGenerator
    client: StandInTrex
    access: RecordingAccess
    clock: FakeClock
    settings: list[ClientSettings]


def rig(
    topology: Topology,
    *,
    network: Network | None = None,
    bidirectional: bool = True,
    access: RecordingAccess | None = None,
    frame_size: int | str = 64,
    **client_args: Any,
) -> Rig:
    clock = FakeClock()
    client = StandInTrex(clock, network or wire(), **client_args)
    access = access if access is not None else RecordingAccess(log="line 1\nEAL: init\n")
    made: list[ClientSettings] = []

    def factory(settings: ClientSettings) -> TrexClient:
        made.append(settings)
        return client

    tg = TrexTrafficGenerator(
        topology,
        PROFILE,
        frame_size,  # type: ignore[arg-type]
        bidirectional=bidirectional,
        access=access,
        client_factory=factory,
        clock=clock,
        sleep=clock.sleep,
    )
    return Rig(tg, client, access, clock, made)


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
        TrexTrafficGenerator(topology_with(csit), PROFILE, 64)
    TrexTrafficGenerator(topology_with(csit, start_server=False), PROFILE, 64)  # no access needed
    with pytest.raises(TrafficGeneratorError, match=r"frame size 63 is out of range"):
        rig(topology_with(csit), frame_size=63)
    sim = load_topology(ROOT / "topologies" / "sim.yaml")
    with pytest.raises(TrafficGeneratorError, match=r"nodes\.TG\.driver: 'sim' is not trex"):
        TrexTrafficGenerator(sim, PROFILE, 64, access=RecordingAccess())


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
    assert ("start", [0], "500000.000pps", 2.0, True, "pin") in r.client.calls
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


# -- server start, API readiness, refusals -----------------------------------------


def test_version_refusal_says_which_client_to_use(csit: Topology) -> None:
    r = rig(topology_with(csit), refuse=REFUSAL)
    with pytest.raises(TrafficGeneratorError) as info:
        r.tg.measure(1.0, 1e6)
    message = str(info.value)
    assert message.startswith("TG: the TRex server at 10.0.0.1:4501 refused PyPI trex_stl_lib")
    assert REFUSAL in message
    assert "/opt/trex-core/scripts/automation/trex_control_plane/interactive" in message
    assert "nodes.TG.options.client_path" in message
    assert r.client.names() == ["connect", "disconnect"]  # not retried; cleaned up
    assert r.access.processes[0].stopped  # the server started for nothing is stopped


def test_api_not_answering_gives_up_after_the_retries_with_the_log(csit: Topology) -> None:
    log = "\n".join(f"log line {i}" for i in range(500)) + "\nEAL: Error - cannot init ports"
    access = RecordingAccess(log=log)
    topology = topology_with(csit, api_retries=4, api_retry_interval_s=2.5)
    r = rig(topology, access=access, connect_failures=100)
    with pytest.raises(TrafficGeneratorError) as info:
        r.tg.measure(1.0, 1e6)
    message = str(info.value)
    assert message.startswith("TG: the TRex API did not answer after 4 tries, 2.5 s apart")
    assert "Failed to get server response" in message
    assert message.endswith("EAL: Error - cannot init ports")  # the tail of the server log
    assert "log line 0\n" not in message  # only the tail
    assert r.client.names().count("connect") == 4
    assert r.clock.sleeps == [2.5, 2.5, 2.5]
    assert access.processes[0].stopped


def test_api_answering_after_a_few_tries(csit: Topology) -> None:
    r = rig(topology_with(csit, api_retry_interval_s=0.5), connect_failures=3)
    r.tg.measure(1.0, 1e6)
    assert r.client.names().count("connect") == 4
    assert r.clock.sleeps[:3] == [0.5, 0.5, 0.5]


def test_server_exiting_while_starting_stops_the_wait(csit: Topology) -> None:
    access = RecordingAccess(log="ERROR: port 0000:17:00.0 is not bound to vfio-pci", exits_after=1)
    r = rig(topology_with(csit), access=access, connect_failures=100)
    with pytest.raises(
        TrafficGeneratorError, match=r"exited while starting \(try 2 of 20\)"
    ) as info:
        r.tg.measure(1.0, 1e6)
    assert str(info.value).endswith("ERROR: port 0000:17:00.0 is not bound to vfio-pci")
    assert r.client.names().count("connect") == 1


def test_running_server_is_used_as_is(csit: Topology) -> None:
    r = rig(
        topology_with(csit, start_server=False, server="trex.lab", sync_port=5501, async_port=5500)
    )
    r.tg.measure(1.0, 1e6)
    assert r.access.files == {} and r.access.started == []
    assert r.settings == [ClientSettings("TG", "trex.lab", 5501, 5500, None)]


def test_software_mode_server(csit: Topology) -> None:
    topology = topology_with(csit, software_mode=True, client_path="/opt/trex/interactive")
    tg = topology.tg
    named = {k: dataclasses.replace(i, name=f"tg-if{k[-1]}") for k, i in tg.interfaces.items()}
    topology = dataclasses.replace(
        topology, nodes={**topology.nodes, "TG": dataclasses.replace(tg, interfaces=named)}
    )
    r = rig(topology)
    r.tg.measure(1.0, 1e6)
    ((argv, _),) = r.access.started
    assert argv[-4:] == ["-i", "--cfg", "/etc/trex_cfg.yaml", "--software"]
    assert b'interfaces: ["tg-if1", "tg-if2"]' in r.access.files["/etc/trex_cfg.yaml"][0]
    assert r.settings[0].client_path == "/opt/trex/interactive"


# -- stopping, failing, closing ------------------------------------------------------


def test_failed_call_names_the_node_and_step_and_stops_traffic(csit: Topology) -> None:
    r = rig(topology_with(csit), fail_on="start")
    with pytest.raises(
        TrafficGeneratorError,
        match=r"^TG: TRex start at 1000000\.000 pps per port for 1 s: start: port 1 is in an error",
    ):
        r.tg.measure(1.0, 2e6)
    assert r.client.calls[-1] == ("stop", [0, 1])


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


def test_stop_traffic_and_close(csit: Topology) -> None:
    r = rig(topology_with(csit))
    r.tg.stop_traffic()  # before anything: no-op
    r.tg.close()
    assert r.client.calls == []
    r.tg.measure(1.0, 1e6)
    r.tg.stop_traffic()
    assert r.client.calls[-1] == ("stop", [0, 1])
    r.tg.close()
    assert r.client.names()[-3:] == ["stop", "release", "disconnect"]
    assert r.client.calls[-2] == ("release", [0, 1])
    assert r.access.processes[0].stopped
    count = len(r.client.calls)
    r.tg.close()  # idempotent
    assert len(r.client.calls) == count


def test_close_reports_errors_but_does_everything(csit: Topology) -> None:
    r = rig(topology_with(csit))
    r.tg.measure(1.0, 1e6)
    r.client.fail_on = "release"
    with pytest.raises(
        TrafficGeneratorError, match=r"closing TRex: TG: TRex release: release: port 1"
    ):
        r.tg.close()
    assert r.client.names()[-1] == "disconnect"
    assert r.access.processes[0].stopped


# -- a whole search over the driver --------------------------------------------------


@pytest.mark.parametrize("model_name", ["sharp", "gradual"])
def test_search_over_a_simulated_dut_finds_the_truth(csit: Topology, model_name: str) -> None:
    model = make_model(model_name, 1)
    topology = topology_with(csit)
    r = rig(topology, network=SimulatedDut(model))
    goals = ndr_pdr_goals(duration_sum_s=2.0, relative_width=0.01)
    run = run_search(r.tg, topology=topology, profile=PROFILE, frame_size=64, goals=goals)
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
    assert run.record["trials"] and all(t.warnings == () for t in run.result.trials)
    assert r.client.names().count("connect") == 1
    assert r.client.calls[-1] == ("stop", [0, 1])  # run_search stops traffic at the end
