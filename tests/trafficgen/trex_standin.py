"""Stand-ins for the trex driver's unit tests: a TRex STL client, a node access, a fake clock.

``StandInTrex`` implements the driver's TrexClient protocol the way TRex's
STL client documents its calls (checked against the real TRex v3.08 in
``test_trex_real.py``): ``reset`` force-acquires, stops, removes all
streams and clears the counters; ``start`` needs streams on every port and
takes a per-port multiplier such as ``"1000000.000pps"``; a started port
sends for ``duration`` (plus any scripted "stretching") and then stops by
itself; ``wait_on_traffic`` returns when the ports stopped or reports a
timeout; ``stop`` ends the traffic at once; ``get_stats`` gives per-port
``opackets`` / ``ipackets``, ``"global"`` and ``"latency"``; ``ping``
fails once the scripted server is ``dead``. Time is a fake clock the
stand-in advances, so trials take no real time. The counts come from a
"network": a scripted wire, or a simulated DUT (``ndrpdr``'s sim models),
so a whole search runs over the driver.

What these stand-ins are for: what the real TRex cannot show on this
machine (DPDK ports by PCI address, several cores per port pair, a
server refusing the client's version, a server that never answers or
exits while starting, exact counts and timings), and fast checks of the
driver's own logic. The real server is tested in ``test_trex_real.py``.
"""

from __future__ import annotations

import dataclasses
import math
import random
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from example_topologies import filled
from ndrpdr.access.base import CommandResult
from ndrpdr.families import profile_of as get_profile
from ndrpdr.profiles import max_load_pps
from ndrpdr.simdut.models import DutModel
from ndrpdr.topology.model import Topology
from ndrpdr.trafficgen.trex.client import ClientSettings, CoreMask, TrexClient
from ndrpdr.trafficgen.trex.driver import TrexTrafficGenerator
from ndrpdr.trafficgen.trex.session import TrexSession
from ndrpdr.trafficgen.trex.streams import StreamSpec

ROOT = Path(__file__).resolve().parents[2]
CSIT = filled("csit-2n-example.yaml")
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
        cores_per_port_pair: int | None = 2,
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
        self.cores_per_port_pair = cores_per_port_pair
        self.dead = False
        self.closed = False
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

    def ping(self) -> None:
        self._record("ping")
        if self.dead:
            raise RuntimeError("*** [RPC] - Failed to get server response from tcp://10.0.0.1:4501")

    def get_server_version(self) -> Mapping[str, Any]:
        assert self.connected
        return {"version": "v3.08", "build_date": "Nov  5 2025", "mode": "STL"}

    def get_system_info(self) -> Mapping[str, Any]:
        assert self.connected
        if self.cores_per_port_pair is None:  # an older server without the figure
            return {"port_count": 2}
        cores = self.cores_per_port_pair
        return {"dp_core_count": cores, "dp_core_count_per_port": cores, "port_count": 2}

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
    ) -> float | None:
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
        return None  # no start time of its own: the driver times the request

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

    def wait_on_traffic(self, ports: Sequence[int], timeout_s: float) -> float | None:
        self._record("wait_on_traffic", list(ports), timeout_s)
        if self.on_wait is not None:
            self.on_wait()
        if self.running is None:
            return self.clock()
        remaining = self.running["end"] - self.clock()
        if remaining <= timeout_s:
            self.clock.now = self.running["end"]
            self._finish(self.clock())
            return self.clock()
        self.clock.now += timeout_s
        return None

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

    def close(self) -> None:
        self._record("close")
        self.closed = True


class RecordingProcess:
    """A background process: running until stopped, or until ``exits_after`` checks."""

    def __init__(self, log: str, exits_after: int | None) -> None:
        self.pid = 4242
        self.log = log
        self.exits_after = exits_after
        self.checks = 0
        self.stopped = False
        self.exit_code: int | None = None

    def die(self, code: int, log: str) -> None:
        """The server exits on its own, leaving ``log``."""
        self.exit_code = code
        self.log += log
        self.exits_after = self.checks

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
        self.commands: list[tuple[list[str], bool]] = []
        self.files: dict[str, tuple[bytes, bool]] = {}
        self.started: list[tuple[list[str], bool]] = []
        self.processes: list[RecordingProcess] = []
        self.log = log
        self.exits_after = exits_after

    @property
    def node(self) -> str:
        return "TG"

    def run(self, argv: Sequence[str], *, sudo: bool = False, **kwargs: Any) -> CommandResult:
        self.commands.append((list(argv), sudo))
        return CommandResult("TG", tuple(argv), 0, "", "", 0.0)

    def start(
        self, argv: Sequence[str], *, sudo: bool = False, env: Mapping[str, str] | None = None
    ) -> RecordingProcess:
        self.started.append((list(argv), sudo))
        process = RecordingProcess(self.log, self.exits_after)
        process.pid = 4242 + len(self.processes)
        self.processes.append(process)
        return process

    def put_file(self, data: bytes, path: str, *, mode: int = 0o644, sudo: bool = False) -> None:
        self.files[path] = (data, sudo)

    def get_file(self, path: str, *, sudo: bool = False) -> bytes:
        raise AssertionError("not used")

    def close(self) -> None:
        pass


def topology_with(csit: Topology, *, speed_bps: float | None = 10e9, **options: Any) -> Topology:
    """The CSIT example with TG port speeds and TG options set."""
    tg = csit.tg
    ports = {k: dataclasses.replace(i, speed_bps=speed_bps) for k, i in tg.interfaces.items()}
    tg = dataclasses.replace(tg, interfaces=ports, options=options)
    return dataclasses.replace(csit, nodes={**csit.nodes, "TG": tg})


@dataclasses.dataclass
class Rig:
    """A session and a TG over stand-ins; ``clients`` in the order the session made them."""

    session: TrexSession
    tg: TrexTrafficGenerator
    clients: list[StandInTrex]
    access: RecordingAccess
    clock: FakeClock
    settings: list[ClientSettings]

    @property
    def client(self) -> StandInTrex:
        """The first client (the only one unless the server was restarted)."""
        return self.clients[0]

    def generator(
        self, *, bidirectional: bool = True, frame_size: int = 64
    ) -> TrexTrafficGenerator:
        """Another TG (another test's traffic) over the same session."""
        return TrexTrafficGenerator(
            self.session.topology,
            PROFILE,
            frame_size,
            bidirectional=bidirectional,
            session=self.session,
            clock=self.clock,
            sleep=self.clock.sleep,
        )


def rig(
    topology: Topology,
    *,
    network: Network | None = None,
    bidirectional: bool = True,
    access: RecordingAccess | None = None,
    frame_size: int | str = 64,
    namespace: str | None = None,
    **client_args: Any,
) -> Rig:
    """A TrexSession over a RecordingAccess and StandInTrex clients, and a TG over it."""
    clock = FakeClock()
    clients = [StandInTrex(clock, network or wire(), **client_args)]
    access = access if access is not None else RecordingAccess(log="line 1\nEAL: init\n")
    made: list[ClientSettings] = []

    def factory(settings: ClientSettings) -> TrexClient:
        made.append(settings)
        if len(made) > len(clients):  # a restarted server: a new client, same behaviour
            clients.append(StandInTrex(clock, network or wire(), **client_args))
        return clients[len(made) - 1]

    session = TrexSession(
        topology, access=access, namespace=namespace, client_factory=factory, sleep=clock.sleep
    )
    tg = TrexTrafficGenerator(
        topology,
        PROFILE,
        frame_size,  # type: ignore[arg-type]
        bidirectional=bidirectional,
        session=session,
        clock=clock,
        sleep=clock.sleep,
    )
    return Rig(session, tg, clients, access, clock, made)
