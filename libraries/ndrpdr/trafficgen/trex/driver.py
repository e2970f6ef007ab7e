"""TrexTrafficGenerator: one test's trials on a TRex server (STL mode), counted by TRex's ports.

The server and the connection belong to the testbed's ``TrexSession``
(``session.py``), started once and shared by the tests; a
TrexTrafficGenerator is one test's traffic (profile, frame size,
directions) over it. The constructor only checks (frame size, the
session's TG); the first call that needs TRex opens the session
(idempotent).

One trial (``measure``), as CSIT's ``trex_stl_profile.py`` does it but
with one client kept connected between trials:

1. ``reset`` the ports (stops them, removes streams, clears counters);
2. add each direction's streams to its sending port (direction 0 leaves
   port 0 for port 1, direction 1 the reverse), rates adding up to
   load / directions per port;
3. ``start`` the sending ports with ``mult="<rate>pps"`` for the duration
   (core mask: ``client.core_mask``, "pin" only with 2 or more cores per
   port pair);
4. wait for the traffic to end; traffic still running at the cut-off
   (``counting.cutoff_s``: duration x 1.01 + 0.25 s) is stopped (a trial
   lasts its duration; what was not sent is unsent, counted as lost);
5. wait ``settle_s``, read the counters and TRex's warnings, and let
   ``counts.trex_trial`` make the TrialResult (latency in ``last_trial``);
   a software-mode TRex in a local namespace counts what it received at
   its veths instead (``vethcount``: its own receive side loses frames).

``measure_latency`` runs the same steps with latency streams beside the
background (``latency.py``), for the latency trials after a search.

``close`` stops the traffic and resets the ports; the session (server and
connection) stays for the next test.

The maximum load is the line rate of the sending ports at the frame size
(interface ``speed`` in the topology, else the speed TRex reports, which
needs the server), capped by ``options.max_rate_pps``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar

from ndrpdr.profiles import FrameSize, Profile, ProfileError, frame_sizes, max_load_pps
from ndrpdr.search.trial import TrialResult
from ndrpdr.topology.model import Topology
from ndrpdr.trafficgen.base import (
    ProfileTraffic,
    TrafficGenerator,
    TrafficGeneratorError,
    checked_trial,
)
from ndrpdr.trafficgen.counting import cutoff_s
from ndrpdr.trafficgen.latency import LatencyResult
from ndrpdr.trafficgen.trex.client import TrexClient, TrexClientError, TrexMode
from ndrpdr.trafficgen.trex.config import TrexPort
from ndrpdr.trafficgen.trex.counts import TrexTrial, trex_trial
from ndrpdr.trafficgen.trex.latency import (
    DEFAULT_STREAM_PPS,
    latency_streams,
    stream_rate,
    trex_latency_result,
)
from ndrpdr.trafficgen.trex.memif import wait_for_links
from ndrpdr.trafficgen.trex.options import TrexOptions, where
from ndrpdr.trafficgen.trex.session import PORTS, TrexCallError, TrexSession
from ndrpdr.trafficgen.trex.starttime import traffic_seconds, traffic_start
from ndrpdr.trafficgen.trex.streams import (
    DirectionTraffic,
    StreamSpec,
    direction_traffic,
    rate_per_direction,
)
from ndrpdr.trafficgen.trex.vethcount import VethCounter, veth_counter

_log = logging.getLogger(__name__)

#: Longest single wait on the traffic, so that stop_traffic is seen quickly [s].
POLL_S = 0.1

_T = TypeVar("_T")


class TrexTrafficGenerator(ProfileTraffic, TrafficGenerator):
    """The ``trex`` TG driver (a TrafficGenerator): one test's traffic over a TrexSession."""

    #: The TRex mode this traffic needs (the session restarts TRex to change it).
    mode: TrexMode = "stl"

    def __init__(
        self,
        topology: Topology,
        profile: Profile,
        frame_size: FrameSize,
        *,
        bidirectional: bool = True,
        session: TrexSession,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        """Check the frame size and the session's TG; no I/O.

        ``session`` is the testbed's TrexSession (left open by ``close``);
        ``clock`` / ``sleep`` time the traffic and the waits (tests replace
        them); ``clock`` is the clock of the session client's
        ``wait_on_traffic`` times (``time.monotonic`` for the real one).
        """
        super().__init__(topology, profile, frame_size, bidirectional)
        self.session = session
        tg = topology.tg
        if tg.key != session.node or tg.driver != "trex":
            raise TrafficGeneratorError(
                f"{where(topology, tg, 'driver')}: {tg.driver!r} node {tg.key} is not the "
                f"trex TG {session.node} of the session"
            )
        self.options: TrexOptions = session.options
        self.ports: tuple[TrexPort, ...] = session.ports
        self.config_text = session.config_text
        try:
            frame_sizes(frame_size)
        except ProfileError as exc:
            raise TrafficGeneratorError(f"{self.node}: {exc}") from exc
        self._clock = clock
        self._sleep = sleep
        pairs = ((0, 1), (1, 0)) if bidirectional else ((0, 1),)
        self.directions: tuple[tuple[int, int], ...] = pairs
        self._max_load = self._static_max_load()
        self._traffic: dict[int, DirectionTraffic] = {}
        self._used = False
        self._linked = False  # memif ports: their links were seen up
        self._stop_requested = threading.Event()
        self.last_trial: TrexTrial | None = None

    @property
    def server_version(self) -> str | None:
        """The TRex server's version, once the session is open."""
        return self.session.server_version

    # -- TrafficGenerator ------------------------------------------------------------
    @property
    def max_load_pps(self) -> float:
        """Highest aggregate load [pps]; may open the session to read the port speeds."""
        if self._max_load is None:
            self._max_load = self._server_max_load()
        return self._max_load

    def measure(self, duration: float, load: float) -> TrialResult:
        """One trial: ``duration`` [s] at aggregate ``load`` [pps], split evenly per direction."""
        duration, load = checked_trial(self.node, duration, load, self.max_load_pps)
        if load == 0:
            return TrialResult(duration, load, 0, forwarded_count=0, intended_count=0)
        rate = rate_per_direction(load, len(self.directions))
        streams = {
            tx: self._direction_traffic(tx).streams(rate, self.options.latency_pps)
            for tx, _ in self.directions
        }
        return self._run(duration, load, rate, streams).result

    def measure_latency(self, duration_s: float, load_pps: float) -> LatencyResult | None:
        """One latency trial (``latency.py``): ``duration_s`` [s] at aggregate ``load_pps`` [pps].

        A latency stream per direction (``options.latency_pps``, else
        DEFAULT_STREAM_PPS; at most half a direction's rate) beside the
        background streams; at load 0 the latency streams alone.
        """
        duration, load = checked_trial(
            self.node, duration_s, load_pps, self.max_load_pps, "latency trial"
        )
        rate = rate_per_direction(load, len(self.directions))
        stream = stream_rate(rate, self.options.latency_pps or DEFAULT_STREAM_PPS)
        streams = {
            tx: latency_streams(self._direction_traffic(tx), rate, stream)
            for tx, _ in self.directions
        }
        per_port = rate if rate > 0 else stream
        trial = self._run(duration, per_port * len(self.directions), per_port, streams)
        return trex_latency_result(
            trial.latency,
            directions=self.sending_ports,
            duration_s=duration,
            load_pps=load,
            stream_pps=stream,
        )

    def _run(
        self,
        duration: float,
        load: float,
        rate: float,
        streams: Mapping[int, Sequence[StreamSpec]],
    ) -> TrexTrial:
        """One trial of ``streams`` by sending port, ``rate`` [pps] per port (kept in
        ``last_trial``); traffic is stopped if it fails.

        A client call that failed while the server runs (an RPC lost on a
        busy machine, a client process that died) is not the DUT's doing:
        the trial runs once more over a new client, its result saying so in
        a warning. A server that died or froze, or a stop asked for, ends it.
        """

        def attempt() -> TrexTrial:
            self._stop_requested.clear()
            client = self._open()
            try:
                with self.session.watched():  # a server that dies or freezes ends it now
                    return self._trial(client, duration, load, rate, streams)
            except BaseException:
                with contextlib.suppress(TrafficGeneratorError):
                    self._stop_ports()  # not stop_traffic: that is a request a retry must heed
                raise

        try:
            trial = attempt()
        except TrexCallError as exc:
            client_said = isinstance(exc.__cause__, TrexClientError)  # not an interrupt
            if not client_said or exc.server_problem is not None or self._stop_requested.is_set():
                raise  # a dead or frozen server, a stop asked for, Robot's stop: no retry
            first = str(exc).splitlines()[0]
            _log.warning("%s: retrying the trial once with a new client: %s", self.node, first)
            self.session.reconnect()
            trial = attempt()
            note = f"retried once with a new TRex client; the first try failed: {first}"
            result = dataclasses.replace(trial.result, warnings=(*trial.result.warnings, note))
            trial = dataclasses.replace(trial, result=result)
        self.last_trial = trial
        return trial

    def stop_traffic(self) -> None:
        """Stop both TRex ports (idempotent; also ends a trial running in another thread)."""
        self._stop_requested.set()
        self._stop_ports()

    def _stop_ports(self) -> None:
        if not self.session.is_open:
            return
        client = self.session.client
        self._call("stop", lambda: client.stop(PORTS))

    def close(self) -> None:
        """Stop the traffic and reset the ports; the session stays open (idempotent)."""
        used, self._used = self._used, False
        errors: list[str] = []
        if used and self.session.is_open:
            client = self.session.client
            for what, action in (
                ("stop", lambda: client.stop(PORTS)),
                ("reset", lambda: client.reset(PORTS)),
            ):
                try:
                    self._call(what, action)
                except TrafficGeneratorError as exc:
                    errors.append(str(exc))
        if errors:
            raise TrafficGeneratorError(
                f"{self.node}: closing the TRex traffic: " + "; ".join(errors)
            )

    # -- parts -----------------------------------------------------------------------
    @property
    def sending_ports(self) -> tuple[int, ...]:
        """TRex ports that send: (0, 1) bidirectional, (0,) unidirectional."""
        return tuple(tx for tx, _ in self.directions)

    def _static_max_load(self) -> float | None:
        """The limit from the topology (speeds, max_rate_pps); None: needs the server's speeds."""
        speeds = [self.ports[tx].speed_bps for tx in self.sending_ports]
        limits: list[float] = []
        if self.options.max_rate_pps is not None:
            limits.append(self.options.max_rate_pps)
        if all(s is not None for s in speeds):
            limits.append(sum(max_load_pps(s or 0.0, self.frame_size) for s in speeds))
        return min(limits) if limits else None

    def _server_max_load(self) -> float:
        client = self._open()
        total = 0.0
        for port in self.sending_ports:
            attr = self._call("get_port_attr", functools.partial(client.get_port_attr, port))
            speed = attr.get("speed")
            if isinstance(speed, bool) or not isinstance(speed, (int, float)) or speed <= 0:
                key = self.ports[port].key
                raise TrafficGeneratorError(
                    f"{self.node}: TRex reports no speed for port {port} ({speed!r}); give "
                    f"{where(self.topology, self.topology.tg, f'interfaces.{key}.speed')} "
                    "or options.max_rate_pps"
                )
            total += max_load_pps(float(speed) * 1e9, self.frame_size)
        cap = self.options.max_rate_pps
        return total if cap is None else min(cap, total)

    def _call(self, what: str, action: Callable[[], _T]) -> _T:
        """Run a client call under the session's lock; failures name the node and step."""
        return self.session.call(what, action)

    def _open(self) -> TrexClient:
        """The session's connected client in this traffic's mode (opening the session on
        first use; restarting TRex when it ran in the other mode, with a logged note)."""
        self.session.use_mode(self.mode)
        self.session.open()
        self._used = True
        client = self.session.client
        sockets = {p.index: p.memif_socket for p in self.ports if p.memif_socket is not None}
        if sockets and not self._linked:  # memif ports: the DUT connects after its set-up
            attr = functools.partial(self._call, "get_port_attr")
            waited = wait_for_links(
                self.node,
                lambda port: attr(functools.partial(client.get_port_attr, port)),
                sockets,
                clock=self._clock,
                sleep=self._sleep,
            )
            _log.info("%s: memif links up after %.1f s", self.node, waited)
            self._linked = True
        return client

    def _direction_traffic(self, direction: int) -> DirectionTraffic:
        if direction not in self._traffic:
            port = self.ports[direction]
            try:
                self._traffic[direction] = direction_traffic(
                    self.profile, self.frame_size, direction, port.src_mac, port.dest_mac
                )
            except ProfileError as exc:
                raise TrafficGeneratorError(
                    f"{self.node}: cannot build the direction {direction} frames: {exc}"
                ) from exc
        return self._traffic[direction]

    def _trial(
        self,
        client: TrexClient,
        duration: float,
        load: float,
        rate: float,
        streams: Mapping[int, Sequence[StreamSpec]],
    ) -> TrexTrial:
        sending = list(self.sending_ports)
        mask = self.session.core_mask(sending)
        veths = self._veth_counter()
        veths_before = veths.read() if veths is not None else None
        with self.session.lock:
            self._call("reset", lambda: client.reset(PORTS))
            for port, specs in streams.items():
                self._call("add_streams", functools.partial(client.add_streams, specs, [port]))
            self._call("clear_events", client.clear_events)
            asked = self._clock()
            seen = self._call(
                f"start at {rate:.3f} pps per port for {duration:g} s",
                lambda: client.start(
                    sending, mult=f"{rate:.3f}pps", duration=duration, force=True, core_mask=mask
                ),
            )
            started = traffic_start(asked, self._clock()) if seen is None else seen
        cut, ended = self._wait(client, sending, started, duration)
        traffic_s = traffic_seconds(started, self._clock() if ended is None else ended, duration)
        self._sleep(self.options.settle_s)
        with self.session.lock:
            stats = self._call("get_stats", lambda: client.get_stats(PORTS))
            warnings = self._call("get_warnings", client.get_warnings)
        received = None
        if veths is not None and veths_before is not None:
            received = veths.received(veths_before, veths.read())
        return trex_trial(
            stats,
            duration=duration,
            load=load,
            directions=self.directions,
            traffic_duration_s=traffic_s,
            stopped_at_cutoff=cut,
            trex_warnings=warnings,
            received=received,
        )

    def _veth_counter(self) -> VethCounter | None:
        """The receiving veths of a software-mode TRex in a local namespace (see vethcount)."""
        namespace = self.session.settings.namespace if self.options.software_mode else None
        receiving = [rx for _, rx in self.directions]
        return veth_counter(self.node, namespace, [p.device for p in self.ports], receiving)

    def _wait(
        self, client: TrexClient, sending: Sequence[int], started: float, duration: float
    ) -> tuple[bool, float | None]:
        """Wait for the traffic to end: (stopped at the cutoff, when it ended [s] or None)."""
        cutoff = started + cutoff_s(duration)
        while True:
            if self._stop_requested.is_set():
                raise TrafficGeneratorError(
                    f"{self.node}: the trial was stopped on request (stop_traffic)"
                )
            remaining = cutoff - self._clock()
            if remaining <= 0:
                with self.session.lock:
                    self._call("stop at the cutoff", lambda: client.stop(sending))
                return True, None
            wait = functools.partial(
                client.wait_on_traffic, sending, timeout_s=min(POLL_S, remaining)
            )
            with self.session.lock:
                ended = self._call("wait_on_traffic", wait)
            if ended is not None:
                if self._stop_requested.is_set():
                    raise TrafficGeneratorError(
                        f"{self.node}: the trial was stopped on request (stop_traffic)"
                    )
                return False, ended

    def __repr__(self) -> str:
        return (
            f"TrexTrafficGenerator(node={self.node!r}, session={self.session!r}, "
            f"profile={self.profile.name!r}, frame_size={self.frame_size!r}, "
            f"bidirectional={self.bidirectional!r})"
        )
