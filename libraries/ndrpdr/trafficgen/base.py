"""The contract every traffic generator driver keeps.

A TG driver is a ``Measurer`` of ndrpdr.search: ``measure(duration, load)``
runs one trial and returns a TrialResult. Loads are aggregate over the
traffic's directions [frames per second]; counts are aggregate too. On top
of that a driver knows its own maximum load and can stop traffic at once.
A driver subclasses ``TrafficGenerator`` for the defaults of what not
every driver has (``sends_frame_list``).
"""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

from ndrpdr.drivers import read_options
from ndrpdr.errors import NdrPdrError
from ndrpdr.rates import above_max
from ndrpdr.search.trial import TrialResult
from ndrpdr.trafficgen.latency import LatencyResult

if TYPE_CHECKING:
    from ndrpdr.localbed import LocalTestbed
    from ndrpdr.profiles import FrameSize, Profile
    from ndrpdr.topology.model import Node, Topology
    from ndrpdr.topology.path import TrafficPath

_O = TypeVar("_O")


class TrafficGeneratorError(NdrPdrError):
    """A trial could not be run (names the node, the rate and what failed)."""


def where(topology: Topology, node: Node, field: str) -> str:
    """``<file>: nodes.<key>.<field>`` (the file only when the topology has one)."""
    prefix = f"{topology.source}: " if topology.source is not None else ""
    return f"{prefix}nodes.{node.key}.{field}"


def node_options(topology: Topology, node: Node, cls: type[_O]) -> _O:
    """``node``'s options read as ``cls`` (TrafficGeneratorError naming the file and field)."""
    return read_options(
        cls,
        node.options,
        lambda field, detail: TrafficGeneratorError(
            f"{where(topology, node, f'options.{field}')}: {detail}"
        ),
    )


class UnsupportedTrafficError(TrafficGeneratorError):
    """This testbed cannot carry the traffic asked for (e.g. jumbo frames on 1500 B MTU veths).

    Not a failure of the device under test: test runners may skip such a test.
    """


def checked_trial(
    node: str, duration: object, load: object, max_load_pps: float, what: str = "trial"
) -> tuple[float, float]:
    """A trial's ``duration`` [s] and aggregate ``load`` [pps] as floats, as every TG checks them.

    TrafficGeneratorError, naming ``node``, ``what`` and the value, unless
    both are finite numbers, ``duration`` > 0 and 0 <= ``load`` <=
    ``max_load_pps`` (``ndrpdr.rates.above_max``: plus float rounding).
    """
    duration_s = _finite_number(duration)
    if duration_s is None or duration_s <= 0:
        raise TrafficGeneratorError(
            f"{node}: {what} duration={duration!r} s must be a finite number > 0"
        )
    load_pps = _finite_number(load)
    if load_pps is None or load_pps < 0:
        raise TrafficGeneratorError(
            f"{node}: {what} load={load!r} pps must be a finite number >= 0"
        )
    if above_max(load_pps, max_load_pps):
        raise TrafficGeneratorError(
            f"{node}: {what} load {load_pps:.6g} pps is above the maximum {max_load_pps:.6g} pps"
        )
    return duration_s, load_pps


def _finite_number(value: object) -> float | None:
    """``value`` as a float when it is a finite int or float (not a bool), else None."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value)


class ProfileTraffic:
    """The part a TG driver that sends a traffic profile's frames starts from.

    The profile's frames of ``frame_size`` are sent from ``topology``'s TG
    node, whose key is ``node`` (in messages), in both directions or only
    the first one (``bidirectional``). A driver that sends a stateful
    family's connections (TRex in ASTF mode) sets ``stateful``.
    """

    #: True for a driver that runs stateful (TRex ASTF) families too.
    stateful = False

    def __init__(
        self, topology: Topology, profile: Profile, frame_size: FrameSize, bidirectional: bool
    ) -> None:
        """Keep the traffic's description (no I/O).

        TrafficGeneratorError for a frame size below the family's minimum
        (``Profile.check_frame_size``: names the family and the minimum);
        UnsupportedTrafficError for a stateful (TRex ASTF) family unless
        the driver is ``stateful``: the others send a profile's frames.
        """
        from ndrpdr.profiles import ProfileError  # noqa: PLC0415 - profiles only for typing above

        if profile.transactions is not None and not self.stateful:
            raise UnsupportedTrafficError(
                f"{topology.tg.key}: family {profile.name} is stateful (TRex ASTF, "
                f"{profile.transactions.transaction_type}); the {topology.tg.driver} TG sends "
                "stateless frames only: run it on the sim (driver: sim) or with TRex (driver: trex)"
            )
        try:
            profile.check_frame_size(frame_size)
        except ProfileError as exc:
            raise TrafficGeneratorError(f"{topology.tg.key}: {exc}") from exc
        self.topology = topology
        self.profile = profile
        self.frame_size = frame_size
        self.bidirectional = bidirectional
        self.node = topology.tg.key


class TrafficGenerator(Protocol):
    """A search Measurer that also reports its limit and stops traffic on demand.

    A driver subclasses this class for the default of ``sends_frame_list``.
    """

    @property
    def max_load_pps(self) -> float:
        """The highest aggregate load this TG can offer with the current traffic [pps]."""
        ...

    def measure(self, duration: float, load: float) -> TrialResult:
        """One trial: ``duration`` [s] at aggregate intended ``load`` [pps]."""
        ...

    def stop_traffic(self) -> None:
        """Stop any traffic still being sent (idempotent; safe after an error)."""
        ...

    def close(self) -> None:
        """Release what the TG holds (processes, files, connections)."""
        ...

    @property
    def sends_frame_list(self) -> bool:
        """True for a TG that sends a list of frames (the local TG's pcap), so a sample of
        a family's flows; False (the default): it sends every flow."""
        return False


@runtime_checkable
class LatencyMeasurer(Protocol):
    """A TG that can also measure latency (optional: a TG without it says "not measured").

    ``measure_latency`` runs one latency trial of ``duration_s`` [s]:
    latency streams at a low fixed rate per direction beside background
    traffic at aggregate ``load_pps`` [pps] (0: the latency streams only).
    None means this TG (or its current set-up) cannot measure latency.
    """

    def measure_latency(self, duration_s: float, load_pps: float) -> LatencyResult | None:
        """One latency trial; None: not measured."""
        ...


def latency_measurer(tg: object) -> LatencyMeasurer | None:
    """``tg`` as a LatencyMeasurer, or None when it has no ``measure_latency``."""
    return tg if isinstance(tg, LatencyMeasurer) else None


class TgSession(Protocol):
    """The testbed-wide part of a TG driver (a TRex server and its connection).

    Made once per testbed by the TG description's ``session`` factory
    (called as ``session(topology, access=..., path=...)``: the TG's node
    access, through which a TG in a network namespace is also reached),
    opened at set-up, shared by the TG of every test, closed at teardown.
    """

    def open(self) -> None:
        """Start what the TG needs (idempotent)."""
        ...

    def health_check(self) -> str | None:
        """Check it still works before a test; a note when it had to be restarted."""
        ...

    def close(self) -> None:
        """Stop it and release everything (idempotent)."""
        ...


@dataclasses.dataclass(frozen=True)
class TrafficContext:
    """What a TG driver's factory gets to make the TG for one kind of traffic.

    ``path`` is the test's traffic path (which TG ports send and receive);
    ``localbed`` the run's local testbed (netns topologies), ``session`` the
    TG's testbed-wide session (when its description has one); ``dut_cores``
    the worker cores the DUTs were configured with (the sim's model scales
    by it).
    """

    topology: Topology
    path: TrafficPath
    profile: Profile
    frame_size: FrameSize
    bidirectional: bool = True
    localbed: LocalTestbed | None = None
    session: Any = None
    dut_cores: int = 1
