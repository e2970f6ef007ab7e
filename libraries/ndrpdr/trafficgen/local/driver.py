"""LocalTrafficGenerator: trials with tcpreplay on a local testbed, counted at the TG's veths.

Direction 0 leaves the traffic path's first TG port and comes back on its
second, direction 1 the reverse. A trial at aggregate load L [pps] for T [s] starts one tcpreplay
per direction (L / directions pps each, ``round(L * T)`` frames in all),
pinned to the TG's CPU, inside the TG namespace (``senders``: stopped at
the cut-off). Counters are read before the senders start and again once
the frames in flight are back: every offered frame received, or no frame
received for 0.1 s, or ``settle_s`` after the senders finish
(``portcounts``). The counts become the TrialResult by the rules TRex's
counts follow too (``ndrpdr.trafficgen.counting``: forwarded, surplus,
one way, unsent, the cut-off).

A sender that falls short of the intended rate (by tcpreplay's own rate)
or had packets refused gives the trial a warning, not an error.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import os
import shutil
import tempfile
from pathlib import Path

from ndrpdr.access.base import CommandError, NodeAccessError
from ndrpdr.drivers import DriverDescription, option
from ndrpdr.localbed import LocalTestbed, LocalTestbedError
from ndrpdr.profiles import (
    FrameSize,
    Profile,
    ProfileError,
    build_frames,
    frame_sizes,
    write_pcap,
)
from ndrpdr.search.trial import TrialResult
from ndrpdr.systemtools import require
from ndrpdr.topology.model import Topology
from ndrpdr.topology.path import TrafficPath, compute_path
from ndrpdr.trafficgen.base import (
    ProfileTraffic,
    TrafficContext,
    TrafficGenerator,
    TrafficGeneratorError,
    UnsupportedTrafficError,
    checked_trial,
    node_options,
)
from ndrpdr.trafficgen.counting import DirectionCount, TrialCounts, counted_result
from ndrpdr.trafficgen.local import tcpreplay
from ndrpdr.trafficgen.local.portcounts import TgPorts
from ndrpdr.trafficgen.local.senders import Senders, Sent

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
        sooner once the frames in flight are back, see ``portcounts``);
        ``min_rate_ratio``: a direction whose tcpreplay reports a rate below
        this share of its intended one gets a warning (frames not sent get
        ``counting``'s unsent warning whatever the ratio); ``workdir``:
        where the temporary pcap directory goes.
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
        self._senders = Senders(self.node)

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
        ports = self._tg_ports()
        before = ports.read()
        commands = {
            direction: tcpreplay.command(
                self._port(direction, sending=True),
                rate,
                count,
                str(self._pcaps[direction]),
                self.cpu,
            )
            for direction, count in counts.items()
            if count > 0
        }
        try:
            sent = self._senders.run(self.testbed.access(self.node), commands, duration, rate)
        except BaseException:
            self.stop_traffic()
            raise
        after = ports.settled(before, self.settle_s)
        return self._result(duration, load, rate, sent, ports.counts(before, after, sent.resent))

    def stop_traffic(self) -> None:
        """Stop every tcpreplay this TG runs, by PID (idempotent)."""
        self._senders.stop()

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

    def _tg_ports(self) -> TgPorts:
        """The TG's veths, by the path's port order, in its namespace."""
        names = (self._port(0, sending=True), self._port(1, sending=True))
        return TgPorts(self.node, self.testbed.namespace(self.node), names, self.directions)

    def _result(
        self,
        duration: float,
        load: float,
        rate: float,
        sent: Sent,
        directions: list[DirectionCount],
    ) -> TrialResult:
        """The trial's result (``counting``), tcpreplay's shortfalls as its own warnings."""
        own: list[str] = []
        for direction, report in sorted(sent.reports.items()):
            if report.rate_pps < self.min_rate_ratio * rate:
                own.append(
                    f"direction {direction}: tcpreplay achieved {report.rate_pps:g} pps < "
                    f"{self.min_rate_ratio:.0%} of intended {rate:g} pps"
                )
            if report.failed:
                own.append(f"direction {direction}: tcpreplay failed {report.failed} packets")
        seconds = max((r.seconds for r in sent.reports.values()), default=0.0)
        counts = TrialCounts(
            duration,
            load,
            directions,
            sender="TG",
            ran_s=seconds if seconds > 0 else None,
            stopped={f"direction {d}: tcpreplay": s for d, s in sorted(sent.stopped.items())},
        )
        return counted_result(counts, own)

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
