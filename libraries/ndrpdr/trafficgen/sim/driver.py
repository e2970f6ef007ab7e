"""The ``sim`` TG driver: the simulated tester of a sim topology as a TrafficGenerator.

The DUT model comes from the DUT nodes on the traffic path (driver ``sim``,
options ``model`` and ``seed``); a 3-node path crosses two models in a
chain. Each DUT is a model of a real one: its capacity is what the traffic
profile's family costs a software data plane at the frame size (the mean
for IMIX) on the DUTs' worker cores, times a per-seed factor of 0.97..1.03
(``ndrpdr.simdut.capacity``; the facts behind the costs are in
``ndrpdr.profiles.cost``); the model (sharp, gradual, noisyknee...) shapes
loss around it. On a 3-node path both DUTs do the family's work, each with
the full cost. Without a profile (plain Python callers) the capacity is
drawn from the seed, as ``make_model(name, seed)`` does.

The tester's options are ``overhead_s``, ``max_rate_pps``,
``max_offered_pps`` and ``wall_time_factor``. The maximum load is the lower
of the tester's limit and what the TG's sending ports carry at the frame
size (sum over directions). ``max_offered_pps`` models a TG slower than its
ports (like tcpreplay): it accepts loads up to the maximum but sends at most
that rate, the rest of the frames go unsent. ``wall_time_factor`` makes
trials take real time (for tests of timeouts and signals).

``measure_latency`` draws latency samples from each DUT's latency model
(``latencymodel``), deterministic per the DUTs' seeds; the simulated
clock advances as for a trial.
"""

from __future__ import annotations

import dataclasses
import math
import random
import time

from ndrpdr.drivers import DriverDescription, option
from ndrpdr.profiles import FrameSize, Profile, max_load_pps
from ndrpdr.search.trial import TrialResult
from ndrpdr.simdut.capacity import ModelledCapacity, modelled_capacity
from ndrpdr.simdut.modelled import ModelledDut, SimDutOptions, note_modelled
from ndrpdr.simdut.models import ChainModel, DutModel, make_model
from ndrpdr.simdut.version import simulator_version
from ndrpdr.topology.model import Topology
from ndrpdr.topology.path import TrafficPath, compute_path
from ndrpdr.trafficgen.base import (
    TrafficContext,
    TrafficGenerator,
    TrafficGeneratorError,
    checked_trial,
    node_options,
)
from ndrpdr.trafficgen.latency import LatencyResult, latency_from_samples
from ndrpdr.trafficgen.sim.latencymodel import chain_sample, latency_model
from ndrpdr.trafficgen.sim.measurer import SimulatedMeasurer

#: The simulated latency stream's rate per direction [pps].
LATENCY_STREAM_PPS = 10_000.0
#: At most this many latency samples are drawn per direction and trial (they stand for all).
MAX_LATENCY_SAMPLES = 2_000


@dataclasses.dataclass(frozen=True)
class SimTgOptions:
    """The simulated tester's options."""

    overhead_s: float = option(0.5, "time added to every trial [s]", minimum=0)
    max_rate_pps: float | None = option(
        None,
        "highest aggregate rate the TG can send [packets/s]",
        minimum=0,
        exclusive_minimum=True,
    )
    max_offered_pps: float | None = option(
        None,
        "highest aggregate rate the TG really sends [packets/s]; frames of a higher "
        "load go unsent (a TG slower than its ports)",
        minimum=0,
        exclusive_minimum=True,
    )
    wall_time_factor: float = option(
        0.0, "wall-clock seconds a trial takes per trial second (0: at once); for tests of "
        "timeouts and signals", minimum=0,
    )  # fmt: skip


def link_limit_pps(
    topology: Topology, path: TrafficPath, frame_size: FrameSize, directions: int
) -> float | None:
    """Aggregate max load over the sending TG ports' line rates [pps], if all are known."""
    tg = topology.tg
    ports = [tg.interfaces[key] for key in path.tg_ports[:directions]]
    if any(p.speed_bps is None for p in ports):
        return None
    return sum(max_load_pps(p.speed_bps or 0.0, frame_size) for p in ports)


class SimTrafficGenerator(TrafficGenerator):
    """A TrafficGenerator over SimulatedMeasurer for the path's simulated DUT(s)."""

    def __init__(
        self,
        topology: Topology,
        frame_size: FrameSize = 64,
        *,
        bidirectional: bool = True,
        path: TrafficPath | None = None,
        profile: Profile | None = None,
        cores: int = 1,
    ) -> None:
        """Build the DUT model(s) and the tester from ``topology`` (no I/O).

        ``path``: the traffic path (default: ``compute_path(topology)``);
        ``profile``: the traffic, whose family's cost gives each DUT's
        capacity on ``cores`` worker cores (None: drawn from the seed).
        """
        path = compute_path(topology) if path is None else path
        tg = topology.tg
        self.node = tg.key
        options = node_options(topology, tg, SimTgOptions)
        models: list[DutModel] = []
        capacities: list[ModelledCapacity | None] = []
        seeds: list[int] = []
        for key in path.duts:
            dut = topology.nodes[key]
            if dut.driver not in (DESCRIPTION.peers or ()):
                raise TrafficGeneratorError(
                    f"{topology.source}: nodes.{key}.driver is {dut.driver!r}: the sim TG "
                    "drives simulated DUTs (driver: sim) only"
                )
            dut_options = node_options(topology, dut, SimDutOptions)
            capacity = (
                None
                if profile is None
                else modelled_capacity(
                    profile.name, profile.cost, frame_size, cores, dut_options.seed
                )
            )
            made = make_model(
                dut_options.model,
                dut_options.seed,
                None if capacity is None else capacity.capacity_pps,
            )
            note_modelled(dut, ModelledDut(capacity, made))
            models.append(made)
            capacities.append(capacity)
            seeds.append(dut_options.seed)
        model: DutModel = models[0] if len(models) == 1 else ChainModel(models)
        limits = [math.inf if options.max_rate_pps is None else options.max_rate_pps]
        link = link_limit_pps(topology, path, frame_size, 2 if bidirectional else 1)
        if link is not None:
            limits.append(link)
        self._max_load_pps = min(limits)
        if not math.isfinite(self._max_load_pps):
            raise TrafficGeneratorError(
                f"{topology.source}: nodes.{tg.key}: give options.max_rate_pps or interface "
                "speeds, so the maximum load is known"
            )
        sends = self._max_load_pps
        if options.max_offered_pps is not None:
            sends = min(sends, options.max_offered_pps)
        self.wall_time_factor = options.wall_time_factor
        self.measurer = SimulatedMeasurer(
            model,
            overhead_s=options.overhead_s,
            seed=seeds[0],
            max_tg_rate_pps=sends,
        )
        self.model = model
        #: Each DUT's modelled capacity, in path order (None: drawn from the seed).
        self.capacities = tuple(capacities)
        self.directions = 2 if bidirectional else 1
        self.latency_models = tuple(
            latency_model(m, seed) for m, seed in zip(models, seeds, strict=True)
        )
        self._latency_rng = random.Random(f"latency-trials-{seeds[0]}")

    @property
    def max_load_pps(self) -> float:
        """The highest aggregate load [pps]."""
        return self._max_load_pps

    def measure(self, duration: float, load: float) -> TrialResult:
        """One simulated trial (returns at once; the simulated clock advances)."""
        duration, load = checked_trial(self.node, duration, load, self._max_load_pps)
        if self.wall_time_factor > 0:
            time.sleep(duration * self.wall_time_factor)  # signals and timeouts interrupt it
        return self.measurer.measure(duration, load)

    def measure_latency(self, duration_s: float, load_pps: float) -> LatencyResult:
        """One simulated latency trial: ``duration_s`` [s] at background ``load_pps`` [pps].

        The latency stream (LATENCY_STREAM_PPS per direction, at most half a
        direction's rate) is part of the load; at load 0 it is all the DUT
        sees. Up to MAX_LATENCY_SAMPLES per direction stand for its frames.
        """
        duration_s, load_pps = checked_trial(
            self.node, duration_s, load_pps, self._max_load_pps, "latency trial"
        )
        rate = load_pps / self.directions
        stream = LATENCY_STREAM_PPS if load_pps == 0 else min(LATENCY_STREAM_PPS, rate / 2)
        seen = max(load_pps, stream * self.directions)
        frames = round(stream * duration_s)
        count = min(frames, MAX_LATENCY_SAMPLES)
        if self.wall_time_factor > 0:
            time.sleep(duration_s * self.wall_time_factor)
        directions = tuple(
            latency_from_samples(
                direction,
                [chain_sample(self.latency_models, seen, self._latency_rng) for _ in range(count)],
                frames_measured=frames,
            )
            for direction in range(self.directions)
        )
        self.measurer.clock.advance(duration_s + self.measurer.overhead_s)
        return LatencyResult(
            duration_s=float(duration_s),
            load_pps=float(load_pps),
            stream_pps=stream,
            directions=directions,
            method=f"simulated (latency model, {count} samples per direction)",
        )

    def stop_traffic(self) -> None:
        """Nothing runs between trials in the simulator."""

    def close(self) -> None:
        """Nothing to release."""


def make_sim_tg(context: TrafficContext) -> SimTrafficGenerator:
    """The sim TG for ``context`` (the TG factory of the description)."""
    return SimTrafficGenerator(
        context.topology,
        context.frame_size,
        bidirectional=context.bidirectional,
        path=context.path,
        profile=context.profile,
        cores=context.dut_cores,
    )


DESCRIPTION = DriverDescription(
    name="sim",
    role="TG",
    summary="a simulated tester on a simulated clock (no I/O, runs anywhere in seconds)",
    options=SimTgOptions,
    factory=make_sim_tg,
    access=("local",),
    default_access="local",
    peers=("sim",),
    version=simulator_version,
)
