"""LocalTrafficGenerator: trials with tcpreplay on a local testbed, counted at the TG's veths.

Direction 0 leaves the traffic path's first TG port and comes back on its
second, direction 1 the reverse. A trial at aggregate load L [pps] for T [s] starts one tcpreplay
per direction (L / directions pps each, ``round(L * T)`` frames in all),
pinned to the TG's CPU, inside the TG namespace. Counters are read before
the senders start and again once the frames in flight are back: every
offered frame received, or no frame received for 0.1 s, or ``settle_s``
after the senders finish (ndrpdr.localbed.read_counters):

* offered = sum of delta(tx_packets + tx_dropped) of the sending ports, less
  the sends tcpreplay made again after the kernel refused them (ENOBUFS:
  counted in tx_dropped, and the same frame again in tx_packets when it
  goes out; counted twice, they made a busy machine's trials look up to
  30 % lossy where 2 % was lost);
* received = sum of delta(rx_packets) of the receiving ports (the TG sink
  drops them after they are counted);
* forwarded = min(received, offered); loss = offered - forwarded.

A sender that falls short of the intended rate (by tcpreplay's own rate
or by the frames it got out) gives the trial a warning, not an error.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import os
import shutil
import tempfile
import threading
import time
from pathlib import Path

from ndrpdr.access.base import CommandError, NodeAccessError, tail
from ndrpdr.access.local import LocalProcess
from ndrpdr.drivers import DriverDescription, option
from ndrpdr.localbed import LocalTestbed, LocalTestbedError, NetdevCounters, read_counters
from ndrpdr.profiles import (
    FrameSize,
    Profile,
    ProfileError,
    build_frames,
    frame_sizes,
    write_pcap,
)
from ndrpdr.results.oneway import one_way_warnings
from ndrpdr.search.trial import TrialResult
from ndrpdr.systemtools import require
from ndrpdr.topology.model import Topology
from ndrpdr.topology.path import TrafficPath, compute_path
from ndrpdr.trafficgen.base import (
    STRETCH_GRACE_S,
    STRETCH_TOLERANCE,
    ProfileTraffic,
    TrafficContext,
    TrafficGenerator,
    TrafficGeneratorError,
    UnsupportedTrafficError,
    checked_trial,
    node_options,
)
from ndrpdr.trafficgen.local import tcpreplay

#: Highest aggregate load without options.max_rate_pps [pps]: tcpreplay's accurate range on 1 CPU.
DEFAULT_MAX_RATE_PPS = 800_000.0

#: CPU the senders run on unless the TG node's options say "cpu".
DEFAULT_TG_CPU = 0


@dataclasses.dataclass(frozen=True)
class LocalTgOptions:
    """The local TG's options."""

    cpu: int = option(
        DEFAULT_TG_CPU,
        "CPU the senders run on (modulo the CPU count); unset on this machine: this CPU unless "
        "another run holds it, else one no run holds",
        minimum=0,
    )
    max_rate_pps: float = option(
        DEFAULT_MAX_RATE_PPS,
        "highest aggregate rate the TG offers [packets/s] (tcpreplay is accurate up to about "
        "0.8 Mpps per CPU)",
        minimum=0,
        exclusive_minimum=True,
    )


#: Largest frame the local veths carry [B incl. FCS]: MTU 1500 + 14 B header + 4 B FCS.
MAX_LOCAL_FRAME_SIZE = 1518

#: A sender may run WAIT_FACTOR x duration + WAIT_MARGIN_S [s] before it is stopped as hung.
WAIT_FACTOR = 2.0
WAIT_MARGIN_S = 10.0

#: How often running senders are polled [s].
POLL_S = 0.01

#: How often the counters are read while the frames in flight come back [s].
SETTLE_POLL_S = 0.02
#: The receive count still this long [s]: nothing is left in flight.
SETTLE_QUIET_S = 0.1


def _finite(what: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TrafficGeneratorError(f"{what}={value!r} is not a number")
    if not math.isfinite(value):
        raise TrafficGeneratorError(f"{what}={value!r} is not finite")
    return float(value)


def _split(total: int, parts: int) -> list[int]:
    """``total`` frames over ``parts`` directions, the first ones taking the remainder."""
    return [total // parts + (1 if i < total % parts else 0) for i in range(parts)]


class LocalTrafficGenerator(ProfileTraffic, TrafficGenerator):
    """The ``local`` TG driver (a TrafficGenerator): tcpreplay senders, veth counters."""

    #: It sends a frame list (a pcap per direction): a sample of a family's flows beyond it.
    sends_frame_list = True

    def __init__(
        self,
        testbed: LocalTestbed,
        topology: Topology,
        profile: Profile,
        frame_size: FrameSize,
        *,
        bidirectional: bool = True,
        path: TrafficPath | None = None,
        cpu: int | None = None,
        max_rate_pps: float | None = None,
        settle_s: float = 0.5,
        min_rate_ratio: float = 0.98,
        workdir: Path | None = None,
    ) -> None:
        """Check the settings; no I/O (pcaps are written on the first trial).

        ``path``: the traffic path, whose TG ports send and receive (default:
        ``compute_path(topology)``).

        ``cpu``: CPU of the senders (default: TG options.cpu, else 0; taken
        modulo the CPU count); ``max_rate_pps``: aggregate limit [pps]
        (default: TG options.max_rate_pps, else 800 000); ``settle_s``: the
        longest wait after the senders end before counting [s] (it ends
        sooner once the frames in flight are back, see ``_settled``); ``min_rate_ratio``: a
        trial whose achieved rate is below this share of the intended one
        gets a warning; ``workdir``: where the temporary pcap directory goes.
        """
        super().__init__(topology, profile, frame_size, bidirectional)
        self.testbed = testbed
        tg = topology.tg
        self.path = compute_path(topology) if path is None else path
        self._ports = tuple(tg.interfaces[key] for key in self.path.tg_ports)
        largest = max(frame_sizes(frame_size))
        if largest > MAX_LOCAL_FRAME_SIZE:
            raise UnsupportedTrafficError(
                f"{self.node}: {largest} B frames do not fit the local testbed's veths "
                f"(MTU 1500: frames up to {MAX_LOCAL_FRAME_SIZE} B incl. FCS)"
            )
        options = node_options(topology, tg, LocalTgOptions)
        cpu_value = options.cpu if cpu is None else cpu
        if isinstance(cpu_value, bool) or not isinstance(cpu_value, int) or cpu_value < 0:
            raise TrafficGeneratorError(f"{self.node}: cpu={cpu_value!r} is not a CPU number")
        self.cpu = cpu_value % (os.cpu_count() or 1)
        limit = options.max_rate_pps if max_rate_pps is None else max_rate_pps
        self._max_load = _finite(f"{self.node}: max_rate_pps", limit)
        if self._max_load <= 0:
            raise TrafficGeneratorError(f"{self.node}: max_rate_pps={self._max_load!r} must be > 0")
        self.settle_s = _finite(f"{self.node}: settle_s", settle_s)
        self.min_rate_ratio = _finite(f"{self.node}: min_rate_ratio", min_rate_ratio)
        if self.settle_s < 0 or not 0 < self.min_rate_ratio <= 1:
            raise TrafficGeneratorError(
                f"{self.node}: need settle_s >= 0 and 0 < min_rate_ratio <= 1, got "
                f"settle_s={settle_s!r}, min_rate_ratio={min_rate_ratio!r}"
            )
        self._workdir_parent = workdir
        self._workdir: Path | None = None
        self._pcaps: dict[int, Path] = {}
        self._running: list[LocalProcess] = []
        self._cut: list[int] = []  # directions whose sender was stopped at the cutoff
        self._lock = threading.Lock()

    # -- TrafficGenerator ------------------------------------------------------------
    @property
    def max_load_pps(self) -> float:
        """Highest aggregate load [pps] (both directions together)."""
        return self._max_load

    @property
    def directions(self) -> tuple[int, ...]:
        """Directions sent: (0, 1) bidirectional, (0,) unidirectional."""
        return (0, 1) if self.bidirectional else (0,)

    def measure(self, duration: float, load: float) -> TrialResult:
        """One trial: ``duration`` [s] at aggregate ``load`` [pps]; counts from the TG's veths."""
        duration, load = checked_trial(self.node, duration, load, self._max_load)
        intended = round(load * duration)
        if intended == 0:
            return TrialResult(
                duration, load, 0, forwarded_count=0, intended_count=0, effective_duration=duration
            )
        directions = self.directions
        rate = load / len(directions)
        counts = dict(zip(directions, _split(intended, len(directions)), strict=True))
        self._prepare()
        namespace = self.testbed.namespace(self.node)
        before = self._counters(namespace)
        try:
            reports = self._send(duration, rate, counts)
        except BaseException:
            self.stop_traffic()
            raise
        after = self._settled(namespace, before)
        return self._result(duration, load, intended, rate, reports, before, after)

    def stop_traffic(self) -> None:
        """Stop every tcpreplay this TG runs, by PID (idempotent)."""
        with self._lock:
            running, self._running = self._running, []
        for process in running:
            if process.is_running():
                process.stop(timeout_s=3.0)

    def close(self) -> None:
        """Stop traffic and remove the pcap directory (idempotent)."""
        self.stop_traffic()
        workdir, self._workdir = self._workdir, None
        self._pcaps.clear()
        if workdir is not None:
            shutil.rmtree(workdir, ignore_errors=True)
            with contextlib.suppress(LocalTestbedError):
                self.testbed.untrack_path(workdir)

    # -- parts -----------------------------------------------------------------------
    def _port(self, direction: int, sending: bool) -> str:
        index = direction if sending else 1 - direction
        name = self._ports[index].name
        assert name is not None  # the testbed refuses nameless netns interfaces
        return name

    def _mac(self, node: str, interface: str) -> str:
        """The MAC of (node, interface): from the topology, else read in its namespace."""
        iface = self.topology.nodes[node].interface(interface)
        if iface.mac_address:
            return iface.mac_address
        try:
            out = self.testbed.access(node).run(
                ["ip", "-j", "link", "show", "dev", str(iface.name)]
            )
            return str(json.loads(out.stdout)[0]["address"])
        except (CommandError, NodeAccessError, LocalTestbedError, ValueError, KeyError) as exc:
            raise TrafficGeneratorError(
                f"{node}: cannot find the MAC of {iface.name}: {exc}"
            ) from exc

    def _prepare(self) -> None:
        """Write one pcap per direction (first trial only)."""
        if self._workdir is None:
            require("tcpreplay")  # on this machine, before the first file is written
            parent = None if self._workdir_parent is None else str(self._workdir_parent)
            prefix = f"ndrpdr-tg-{self.testbed.run_id}-"
            self._workdir = Path(tempfile.mkdtemp(prefix=prefix, dir=parent))
            self.testbed.track_path(self._workdir)
        tg = self.topology.tg
        for direction in self.directions:
            if direction in self._pcaps:
                continue
            port = self._ports[direction]
            peer = self.topology.peer(tg.key, port.key)
            assert peer is not None  # the path's TG ports are linked
            src = self._mac(tg.key, port.key)
            dst = self._mac(peer.node, peer.interface)
            path = self._workdir / f"dir{direction}.pcap"
            try:
                frames = build_frames(self.profile, self.frame_size, direction, src, dst)
                write_pcap(path, frames)
            except (ProfileError, OSError) as exc:
                raise TrafficGeneratorError(
                    f"{self.node}: cannot write the direction {direction} pcap: {exc}"
                ) from exc
            self._pcaps[direction] = path

    def _sent_received(
        self, before: dict[str, NetdevCounters], after: dict[str, NetdevCounters]
    ) -> tuple[int, int]:
        """(offered, received) frames between two counter reads of the TG's ports."""
        counts = self._by_direction(before, after).values()
        return sum(sent for sent, _ in counts), sum(received for _, received in counts)

    def _by_direction(
        self, before: dict[str, NetdevCounters], after: dict[str, NetdevCounters]
    ) -> dict[int, tuple[int, int]]:
        """(sent, received) frames per direction between two counter reads of the TG's ports."""

        def delta(name: str) -> tuple[int, int]:
            if name not in before or name not in after:
                raise TrafficGeneratorError(f"{self.node}: interface {name} has no counters")
            b, a = before[name], after[name]
            sent = (a.tx_packets + a.tx_dropped) - (b.tx_packets + b.tx_dropped)
            return sent, a.rx_packets - b.rx_packets

        return {
            d: (delta(self._port(d, sending=True))[0], delta(self._port(d, sending=False))[1])
            for d in self.directions
        }

    def _settled(
        self, namespace: str, before: dict[str, NetdevCounters]
    ) -> dict[str, NetdevCounters]:
        """The counters once the frames in flight have come back (at most ``settle_s`` [s]).

        Polled every SETTLE_POLL_S: done as soon as every offered frame was
        received (nothing more can come), or when the receive count has not
        moved for SETTLE_QUIET_S (the DUT has nothing left in its queues), or
        after ``settle_s``. A fixed 0.5 s wait cost a third of every 1 s
        trial's wall time; frames come back from a veth DUT within
        milliseconds of the last one sent.
        """
        deadline = time.monotonic() + self.settle_s
        after = self._counters(namespace)
        last_received, quiet_since = -1, time.monotonic()
        while True:
            offered, received = self._sent_received(before, after)
            now = time.monotonic()
            if received >= offered or now >= deadline:
                return after
            if received != last_received:
                last_received, quiet_since = received, now
            elif now - quiet_since >= SETTLE_QUIET_S:
                return after
            time.sleep(min(SETTLE_POLL_S, max(deadline - now, 0.0)))
            after = self._counters(namespace)

    def _counters(self, namespace: str) -> dict[str, NetdevCounters]:
        try:
            return read_counters(namespace)
        except LocalTestbedError as exc:
            raise TrafficGeneratorError(f"{self.node}: cannot read counters: {exc}") from exc

    def _send(
        self, duration: float, rate: float, counts: dict[int, int]
    ) -> dict[int, tcpreplay.TcpreplayReport]:
        """Run the senders to the end; their reports by direction."""
        access = self.testbed.access(self.node)
        started: dict[int, LocalProcess] = {}
        for direction, count in counts.items():
            if count <= 0:
                continue
            argv = tcpreplay.command(
                self._port(direction, sending=True),
                rate,
                count,
                str(self._pcaps[direction]),
                self.cpu,
            )
            try:
                process = access.start(argv)
            except NodeAccessError as exc:
                raise TrafficGeneratorError(f"{self.node}: cannot start tcpreplay: {exc}") from exc
            with self._lock:
                self._running.append(process)
            started[direction] = process
        now = time.monotonic()
        cutoff = now + duration * (1 + STRETCH_TOLERANCE) + STRETCH_GRACE_S
        deadline = now + WAIT_FACTOR * duration + WAIT_MARGIN_S
        pending = dict(started)
        reports: dict[int, tcpreplay.TcpreplayReport] = {}
        self._cut = []
        while pending:
            for direction, process in list(pending.items()):
                if process.is_running() and time.monotonic() > cutoff:
                    # The sender fell behind: stop it as TRex trials stop at their
                    # duration; what it did not send counts as unsent (lost).
                    process.stop(timeout_s=WAIT_MARGIN_S)
                    self._cut.append(direction)
                if process.is_running():
                    continue
                del pending[direction]
                code = process.stop()
                output = process.output()
                report = tcpreplay.parse_report(output) if code == 0 else None
                if report is None:
                    raise TrafficGeneratorError(
                        f"{self.node}: tcpreplay failed with exit code {code} at {rate:g} pps "
                        f"(direction {direction}): {' '.join(process.argv)}\n"
                        f"output:\n{tail(output.rstrip()) or '(none)'}"
                    )
                reports[direction] = report
            if pending and time.monotonic() > deadline:
                raise TrafficGeneratorError(
                    f"{self.node}: tcpreplay did not finish {duration:g} s at {rate:g} pps within "
                    f"{WAIT_FACTOR * duration + WAIT_MARGIN_S:g} s; stopped "
                    f"(directions {sorted(pending)})"
                )
            if pending:
                time.sleep(POLL_S)
        with self._lock:
            self._running = [p for p in self._running if p.is_running()]
        return reports

    def _result(
        self,
        duration: float,
        load: float,
        intended: int,
        rate: float,
        reports: dict[int, tcpreplay.TcpreplayReport],
        before: dict[str, NetdevCounters],
        after: dict[str, NetdevCounters],
    ) -> TrialResult:
        offered, received = self._sent_received(before, after)
        offered = max(0, offered - sum(r.retried_enobufs for r in reports.values()))
        # direction d leaves TG port d and comes back on the other one
        warnings = one_way_warnings(
            {(d, 1 - d): counts for d, counts in self._by_direction(before, after).items()}
        )
        if offered < self.min_rate_ratio * intended:
            warnings.append(
                f"TG sent {offered} of {intended} intended frames: achieved "
                f"{offered / duration:.0f} pps < {self.min_rate_ratio:.0%} of intended {load:g} pps"
            )
        for direction, report in sorted(reports.items()):
            if report.rate_pps < self.min_rate_ratio * rate:
                warnings.append(
                    f"direction {direction}: tcpreplay achieved {report.rate_pps:g} pps < "
                    f"{self.min_rate_ratio:.0%} of intended {rate:g} pps"
                )
            if report.failed:
                warnings.append(f"direction {direction}: tcpreplay failed {report.failed} packets")
        for direction in self._cut if offered < intended else ():
            warnings.append(
                f"direction {direction}: tcpreplay was still sending {duration:g} s "
                f"(+{STRETCH_TOLERANCE:.0%} +{STRETCH_GRACE_S:g} s) after the start; stopped, "
                "frames not sent count as lost"
            )
        seconds = max((r.seconds for r in reports.values()), default=0.0)
        return TrialResult(
            duration=duration,
            load=load,
            offered_count=offered,
            forwarded_count=received,  # beyond offered: the trial's surplus_count
            intended_count=intended,
            effective_duration=seconds if seconds > 0 else duration,
            warnings=tuple(warnings),
        )

    def __repr__(self) -> str:
        return (
            f"LocalTrafficGenerator(node={self.node!r}, run_id={self.testbed.run_id!r}, "
            f"profile={self.profile.name!r}, frame_size={self.frame_size!r}, "
            f"bidirectional={self.bidirectional!r}, cpu={self.cpu!r})"
        )


def make_local_tg(context: TrafficContext) -> LocalTrafficGenerator:
    """The local TG for ``context`` (the TG factory of the description)."""
    if context.localbed is None:
        raise TrafficGeneratorError(
            f"{context.topology.source}: the local TG runs in a network namespace of the local "
            "testbed: give the TG 'access: {kind: netns, namespace: tg}'"
        )
    return LocalTrafficGenerator(
        context.localbed,
        context.topology,
        context.profile,
        context.frame_size,
        bidirectional=context.bidirectional,
        path=context.path,
    )


DESCRIPTION = DriverDescription(
    name="local",
    role="TG",
    summary="tcpreplay senders in a network namespace, counts from the veths' statistics",
    options=LocalTgOptions,
    factory=make_local_tg,
    access=("netns",),
    version=tcpreplay.tcpreplay_version,
)
