"""The soak's truth on a simulated DUT: the long-run average loss ratio and its critical load.

A soak (``ndrpdr.search.soak``) estimates the load at which lost frames
over sent frames, over a long time, meet a tiny target ratio (CSIT's
PLRsearch's definition; 1e-7 by default). That is a different question
from a model's ``true_throughput`` (the load where the *median* trial of
one duration meets the goal): on a bursty DUT rare heavy losses set the
average while the median trial loses nothing.

``mean_loss_ratio(model, load)`` is the model's long-run loss ratio at a
load [pps]: the expected lost frames per second over the load, in the
limit of long trials (per-trial effects such as a buffer that hides the
first excess frames, or a few frames lost once per trial, vanish in it).
Every behaviour model has it in closed form (each formula is in its
function's docstring); ``critical_load(model, ratio)`` is the load where
it reaches ``ratio``, found by bisection (the ratio rises with the load).
The edge models (dead, flapping, duplicating) have none: ``SoakTruthError``.
"""

from __future__ import annotations

import math
from statistics import NormalDist

from ndrpdr.simdut.models import (
    CapacityJitter,
    DurationDependent,
    DutModel,
    GradualLoss,
    LossPlateau,
    LossSpells,
    NoisyKnee,
    OverloadCollapse,
    SharpCliff,
    SporadicLoss,
    TransientInterrupts,
)
from ndrpdr.simdut.models.base import cliff_loss_ratio

_NORMAL = NormalDist()
#: Bisection steps in log-load: the result is exact in floats.
_STEPS = 200


class SoakTruthError(ValueError):
    """The model has no long-run average loss ratio (an edge model)."""


def _transient(model: TransientInterrupts, load: float) -> float:
    """Stalls of rate ``a`` and exponential length of mean ``m`` lose ``ceil(L t - B)`` frames
    when ``L t > B``: by memorylessness ``a (L m + 1/2) exp(-B / (L m))`` frames a second
    (the half frame: ``ceil``'s mean excess), on top of the cliff's loss."""
    frames_per_stall = load * model.interrupt_s
    lossy = model.interrupts_per_s * math.exp(-model.buffer_frames / frames_per_stall)
    return min(
        1.0, cliff_loss_ratio(model.capacity_pps, load) + lossy * (frames_per_stall + 0.5) / load
    )


def _noisyknee(model: NoisyKnee, load: float) -> float:
    """A trial is lossy with probability ``p(L)`` and then loses a uniform share of what the
    cliff left: ``cliff + (1 - cliff) p(L) (min + max) / 2``."""
    cliff = cliff_loss_ratio(model.capacity_pps, load)
    share = (model.min_loss_fraction + model.max_loss_fraction) / 2.0
    return cliff + (1.0 - cliff) * model.loss_probability(load) * share


def _spells(model: LossSpells, load: float) -> float:
    """Spells of length ``s`` starting at rate ``a`` cover ``q = 1 - exp(-a s)`` of the time;
    there the DUT forwards ``C (1 - drop)``, elsewhere ``C``."""
    covered = 1.0 - math.exp(-model.spells_per_s * model.spell_s)
    slow = model.capacity_pps * (1.0 - model.spell_drop)
    return (1.0 - covered) * cliff_loss_ratio(model.capacity_pps, load) + covered * (
        cliff_loss_ratio(slow, load)
    )


def _jitter(model: CapacityJitter, load: float) -> float:
    """A level ``C exp(j Z)`` per trial loses ``1 - level / L`` when below ``L``: with
    ``a = ln(L / C) / j``, ``E = Phi(a) - (C / L) exp(j^2 / 2) Phi(a - j)``."""
    j = model.jitter
    a = math.log(load / model.capacity_pps) / j
    value = _NORMAL.cdf(a) - model.capacity_pps / load * math.exp(j * j / 2.0) * _NORMAL.cdf(a - j)
    return max(0.0, value)


def mean_loss_ratio(model: DutModel, load: float) -> float:
    """The long-run average loss ratio of ``model`` at ``load`` [pps] (see the module).

    Sharp, duration (its buffer is absorbed once per trial) and sporadic (a
    few frames per trial, whatever its length): the capacity cliff; gradual
    and overload: their loss ratio curve; plateau: its own
    ``long_run_loss_ratio`` (the per-second part of its plateau). Raises SoakTruthError for a model
    without one.
    """
    if load <= 0:
        return 0.0
    if isinstance(model, (SharpCliff, DurationDependent, SporadicLoss)):
        return cliff_loss_ratio(model.capacity_pps, load)
    if isinstance(model, (GradualLoss, OverloadCollapse)):
        return model.loss_ratio(1.0, load)
    if isinstance(model, TransientInterrupts):
        return _transient(model, load)
    if isinstance(model, NoisyKnee):
        return _noisyknee(model, load)
    if isinstance(model, LossSpells):
        return _spells(model, load)
    if isinstance(model, CapacityJitter):
        return _jitter(model, load)
    if isinstance(model, LossPlateau):
        return model.long_run_loss_ratio(load)
    raise SoakTruthError(f"model {model.name!r} has no long-run average loss ratio")


def critical_load(model: DutModel, loss_ratio: float) -> float:
    """The load [pps] at which ``mean_loss_ratio`` reaches ``loss_ratio`` (in (0, 1)).

    Bisection in log-load between a millionth of the load where the
    capacity cliff alone reaches the ratio, and that load doubled.
    """
    capacity = model.parameters().get("capacity_pps") or model.parameters()["knee_pps"]
    high = 2.0 * capacity / (1.0 - loss_ratio)
    low = high * 1e-6
    if mean_loss_ratio(model, high) < loss_ratio:
        return high
    for _ in range(_STEPS):
        middle = math.sqrt(low * high)
        if middle in (low, high):
            break
        if mean_loss_ratio(model, middle) < loss_ratio:
            low = middle
        else:
            high = middle
    return low
