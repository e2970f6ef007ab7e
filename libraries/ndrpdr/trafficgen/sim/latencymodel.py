"""The simulated DUT's latency: a base latency that rises as the load nears capacity.

A frame's latency [us] through one simulated DUT is its base latency, a
small jitter, and a queueing delay drawn from an exponential distribution
whose mean grows like an M/M/1 queue's, ``service_us * rho / (1 - rho)``,
with ``rho`` the load over the DUT's capacity (capped at ``MAX_UTILISATION``
so an overloaded DUT has a large but finite delay). Idle, the latency is
about the base; near PDR the average and the tail rise steeply. A chain
of DUTs adds its members' latencies. All draws come from the caller's
``random.Random``, so the same seed gives the same latencies.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence

from ndrpdr.simdut.models.base import check_non_negative, check_positive
from ndrpdr.simdut.models.protocol import DutModel

#: Highest utilisation the queueing delay is computed at (load at or above capacity).
MAX_UTILISATION = 0.98
#: The capacity the queue saturates at, relative to the model's PDR for 1 s trials.
CAPACITY_OVER_PDR = 1.05


@dataclasses.dataclass(frozen=True)
class LatencyModel:
    """One simulated DUT's latency [us] as a function of the load [pps, aggregate].

    ``base_us``: latency of an idle DUT; ``jitter_us``: uniform spread on
    top of it; ``service_us``: the queueing delay scale (mean delay at
    utilisation 0.5); ``capacity_pps``: the load at which the queue is
    saturated.
    """

    base_us: float
    jitter_us: float
    service_us: float
    capacity_pps: float

    def __post_init__(self) -> None:
        check_positive("base_us", self.base_us)
        check_non_negative("jitter_us", self.jitter_us)
        check_non_negative("service_us", self.service_us)
        check_positive("capacity_pps", self.capacity_pps)

    def utilisation(self, load_pps: float) -> float:
        """The load over the capacity, at most MAX_UTILISATION."""
        return min(check_non_negative("load_pps", load_pps) / self.capacity_pps, MAX_UTILISATION)

    def mean_queueing_us(self, load_pps: float) -> float:
        """The mean queueing delay at ``load_pps`` [us]."""
        rho = self.utilisation(load_pps)
        return self.service_us * rho / (1.0 - rho)

    def sample(self, load_pps: float, rng: random.Random) -> float:
        """One frame's latency at ``load_pps`` [us]."""
        mean = self.mean_queueing_us(load_pps)
        queueing = rng.expovariate(1.0 / mean) if mean > 0 else 0.0
        return self.base_us + rng.uniform(0.0, self.jitter_us) + queueing


def latency_model(model: DutModel, seed: int) -> LatencyModel:
    """The latency model of ``model`` (its capacity: CAPACITY_OVER_PDR x its 1 s PDR).

    Base latency, jitter and service scale are drawn from ``seed`` (a
    base of 4 .. 12 us, like a software data plane's idle latency).
    """
    rng = random.Random(f"latency-{seed}")
    return LatencyModel(
        base_us=rng.uniform(4.0, 12.0),
        jitter_us=rng.uniform(0.5, 2.0),
        service_us=rng.uniform(1.0, 4.0),
        # A dead DUT (PDR 0) never gets latency trials; any capacity does for it.
        capacity_pps=max(CAPACITY_OVER_PDR * model.true_pdr(1.0), 1.0),
    )


def chain_sample(models: Sequence[LatencyModel], load_pps: float, rng: random.Random) -> float:
    """One frame's latency through every DUT of a chain [us] (the sum)."""
    return sum(m.sample(load_pps, rng) for m in models)
