"""The ``sim`` TG driver: the simulated tester of a sim topology as a TrafficGenerator.

The DUT model comes from the topology's DUT node (driver ``sim``, options
``model`` and ``seed``); the tester's options are ``overhead_s`` and
``max_rate_pps``. The maximum load is the lower of the tester's limit and
what the TG's links carry at the frame size (sum over directions).
"""

from __future__ import annotations

import math

from ndrpdr.profiles import FrameSize, max_load_pps
from ndrpdr.search.trial import TrialResult
from ndrpdr.testbed.model import Topology
from ndrpdr.trafficgen.base import TrafficGeneratorError
from ndrpdr.trafficgen.sim.measurer import SimulatedMeasurer
from ndrpdr.trafficgen.sim.models import make_model

#: Load slack accepted above max_load_pps (float rounding of rates computed by callers).
_LOAD_SLACK = 1e-9


def link_limit_pps(topology: Topology, frame_size: FrameSize, directions: int) -> float | None:
    """Aggregate max load over the first ``directions`` TG ports' line rates [pps], if known."""
    ports = topology.tg_ports()[:directions]
    if len(ports) < directions or any(p.speed_bps is None for p in ports):
        return None
    return sum(max_load_pps(p.speed_bps or 0.0, frame_size) for p in ports)


class SimTrafficGenerator:
    """A TrafficGenerator over SimulatedMeasurer for the topology's simulated DUT."""

    def __init__(
        self, topology: Topology, frame_size: FrameSize = 64, *, bidirectional: bool = True
    ) -> None:
        """Build the DUT model and the tester from ``topology`` (no I/O)."""
        tg = topology.tg
        dut = topology.duts[0]
        self.node = tg.key
        model = make_model(str(dut.options.get("model", "sharp")), int(dut.options.get("seed", 0)))
        limits = [float(tg.options.get("max_rate_pps", math.inf))]
        link = link_limit_pps(topology, frame_size, 2 if bidirectional else 1)
        if link is not None:
            limits.append(link)
        self._max_load_pps = min(limits)
        if not math.isfinite(self._max_load_pps):
            raise TrafficGeneratorError(
                f"{topology.source}: nodes.{tg.key}: give options.max_rate_pps or interface "
                "speeds, so the maximum load is known"
            )
        self.measurer = SimulatedMeasurer(
            model,
            overhead_s=float(tg.options.get("overhead_s", 0.5)),
            seed=int(dut.options.get("seed", 0)),
            max_tg_rate_pps=self._max_load_pps,
        )
        self.model = model

    @property
    def max_load_pps(self) -> float:
        """The highest aggregate load [pps]."""
        return self._max_load_pps

    def measure(self, duration: float, load: float) -> TrialResult:
        """One simulated trial (returns at once; the simulated clock advances)."""
        if not (isinstance(load, int | float) and math.isfinite(load) and load >= 0):
            raise TrafficGeneratorError(f"{self.node}: load={load!r} pps must be finite and >= 0")
        if load > self._max_load_pps * (1 + _LOAD_SLACK):
            raise TrafficGeneratorError(
                f"{self.node}: load {load:.6g} pps is above the maximum "
                f"{self._max_load_pps:.6g} pps"
            )
        if not (isinstance(duration, int | float) and math.isfinite(duration) and duration > 0):
            raise TrafficGeneratorError(
                f"{self.node}: duration={duration!r} s must be finite and > 0"
            )
        return self.measurer.measure(duration, load)

    def stop_traffic(self) -> None:
        """Nothing runs between trials in the simulator."""

    def close(self) -> None:
        """Nothing to release."""
