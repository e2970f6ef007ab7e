"""Model names and ``make_model``: a DUT model with parameters drawn from a seed.

Every model draws its capacity [pps] first, uniformly in
[``CAPACITY_MIN_PPS``, ``CAPACITY_MAX_PPS``] (well below 29.76 Mpps, the
10GE 64B line rate), so the same seed gives the same capacity across models.
A caller that knows the capacity (the sim TG, from the family's packet
cost: ``ndrpdr.simdut.capacity``) gives it; the draw is made all
the same, so a seed's other parameters (the shape around the capacity) do
not depend on whether a capacity was given.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from ndrpdr.search.errors import SearchInputError
from ndrpdr.simdut.models.base import check_positive
from ndrpdr.simdut.models.duration import DurationDependent
from ndrpdr.simdut.models.edge import EDGE_FACTORIES
from ndrpdr.simdut.models.gradual import GradualLoss
from ndrpdr.simdut.models.jitter import CapacityJitter
from ndrpdr.simdut.models.noisyknee import NoisyKnee
from ndrpdr.simdut.models.overload import OverloadCollapse
from ndrpdr.simdut.models.plateau import LossPlateau
from ndrpdr.simdut.models.protocol import DutModel
from ndrpdr.simdut.models.randomized import draw_randomized
from ndrpdr.simdut.models.sharp import SharpCliff
from ndrpdr.simdut.models.spells import LossSpells
from ndrpdr.simdut.models.sporadic import SporadicLoss
from ndrpdr.simdut.models.transient import TransientInterrupts

CAPACITY_MIN_PPS = 2e6
"""Lowest capacity [pps] make_model draws."""

CAPACITY_MAX_PPS = 20e6
"""Highest capacity [pps] make_model draws."""


def _sharp(rng: random.Random, capacity_pps: float) -> DutModel:
    return SharpCliff(capacity_pps=capacity_pps)


def _gradual(rng: random.Random, capacity_pps: float) -> DutModel:
    return GradualLoss(knee_pps=capacity_pps, loss_coefficient=rng.uniform(2.0, 12.0))


def _transient(rng: random.Random, capacity_pps: float) -> DutModel:
    interrupts_per_s = rng.uniform(1.0 / 60.0, 1.0 / 30.0)
    interrupt_s = rng.uniform(0.002, 0.020)
    # The buffer holds 0.4 .. 1.0 mean stalls' worth of frames at capacity.
    buffer_frames = float(round(rng.uniform(0.4, 1.0) * capacity_pps * interrupt_s))
    return TransientInterrupts(
        capacity_pps=capacity_pps,
        interrupts_per_s=interrupts_per_s,
        interrupt_s=interrupt_s,
        buffer_frames=buffer_frames,
    )


def _sporadic(rng: random.Random, capacity_pps: float) -> DutModel:
    return SporadicLoss(
        capacity_pps=capacity_pps,
        loss_probability=rng.uniform(0.05, 0.2),
        max_lost_frames=rng.randint(10, 50),
    )


def _duration(rng: random.Random, capacity_pps: float) -> DutModel:
    # beta * C * 1 s frames: the buffer absorbs 0.1 .. 0.3 s of excess at C.
    buffer_frames = float(round(rng.uniform(0.1, 0.3) * capacity_pps))
    return DurationDependent(capacity_pps=capacity_pps, buffer_frames=buffer_frames)


def _overload(rng: random.Random, capacity_pps: float) -> DutModel:
    # Slope >= 1 keeps line rate (29.76 Mpps) below 55 % of any capacity drawn.
    return OverloadCollapse(
        capacity_pps=capacity_pps,
        slope=rng.uniform(1.0, 3.0),
        floor_fraction=rng.uniform(0.1, 0.3),
    )


def _noisyknee(rng: random.Random, capacity_pps: float) -> DutModel:
    # The local testbed's knee: trials start losing a few percent at random
    # 10 .. 25 % below the capacity, more often the closer to it.
    return NoisyKnee(
        capacity_pps=capacity_pps,
        band_fraction=rng.uniform(0.10, 0.25),
        max_loss_probability=rng.uniform(0.6, 0.95),
        min_loss_fraction=0.01,
        max_loss_fraction=rng.uniform(0.02, 0.05),
    )


def _spells(rng: random.Random, capacity_pps: float) -> DutModel:
    # A DUT sharing CPUs with a software TG: one spell every 20 .. 60 s, of
    # 2 .. 6 s, forwarding 5 .. 20 % less. About one 1 s trial in eight
    # meets a spell; nearly every 60 s trial does.
    return LossSpells(
        capacity_pps=capacity_pps,
        spells_per_s=1.0 / rng.uniform(20.0, 60.0),
        spell_s=rng.uniform(2.0, 6.0),
        spell_drop=rng.uniform(0.05, 0.20),
    )


def _jitter(rng: random.Random, capacity_pps: float) -> DutModel:
    # A level that moves 0.3 .. 2 % (one standard deviation) from trial to trial.
    return CapacityJitter(capacity_pps=capacity_pps, jitter=rng.uniform(0.003, 0.02))


def _plateau(rng: random.Random, capacity_pps: float) -> DutModel:
    # The Linux kernel on the lab in a box: loss from a quarter to a half of
    # the capacity on, rising to 0.05 .. 0.3 % and staying there up to the
    # cliff, mostly once per trial (its start), varying from trial to trial.
    return LossPlateau(
        capacity_pps=capacity_pps,
        onset_fraction=rng.uniform(0.25, 0.5),
        ramp_fraction=rng.uniform(0.05, 0.3),
        level=rng.uniform(0.0005, 0.003),
        burst_share=rng.uniform(0.3, 0.95),
        spread=rng.uniform(0.2, 0.6),
    )


_FACTORIES: dict[str, Callable[[random.Random, float], DutModel]] = {
    "sharp": _sharp,
    "gradual": _gradual,
    "transient": _transient,
    "sporadic": _sporadic,
    "duration": _duration,
    "overload": _overload,
    "noisyknee": _noisyknee,
    "spells": _spells,
    "jitter": _jitter,
    "plateau": _plateau,
    "randomized": draw_randomized,
    **EDGE_FACTORIES,
}

MODEL_NAMES: tuple[str, ...] = tuple(_FACTORIES)
"""Names ``make_model`` accepts, in a stable order."""


def make_model(name: str, seed: int = 0, capacity_pps: float | None = None) -> DutModel:
    """The DUT model ``name`` with parameters drawn reproducibly from ``seed``.

    ``capacity_pps``: the DUT's capacity [pps] (the knee of ``gradual``);
    None draws it from the seed. Raises SearchInputError for an unknown
    name or a capacity that is not a finite number > 0.
    """
    factory = _FACTORIES.get(name)
    if factory is None:
        raise SearchInputError(f"unknown DUT model name={name!r}; known: {', '.join(MODEL_NAMES)}")
    rng = random.Random(seed)
    drawn_pps = rng.uniform(CAPACITY_MIN_PPS, CAPACITY_MAX_PPS)
    if capacity_pps is None:
        return factory(rng, drawn_pps)
    return factory(rng, check_positive(f"{name} model capacity_pps", capacity_pps))
