"""The soak fit's second reading of bursts: spells of a slower capacity.

Once the bursts shrink steeply as the load falls (``burst_size``'s slope at least
``SPELL_SLOPE``), a second reading joins, the data weighing the two (``spell_row``):
spells of a slower capacity. Now and then the DUT forwards at most ``c`` for a while
(spells of ``lead`` seconds at a rate per second read from the trials: ``spell_rates``),
so a trial of ``D`` s at a load ``L`` above ``c`` is lossy with chance
``1 - exp(-r (D + lead))`` and loses at most ``1 - c / L`` of its frames; below ``c`` no
trial loses. The long-run loss ratio is the share of time in spells times ``1 - c / L``:
the critical load is ``c`` (within the target over that share). Read per trial alone, the
posterior reached far below a slower capacity (sim ``spells``: 78-80 % covered).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ndrpdr.search.soak.soakbursty import (
    WIDTHS,
    BurstSize,
    Counted,
    likeliest_rate,
    lossy,
    width_prior,
)

#: Spells' lengths [s] (``spell_row``), a column each: stalls of tens of milliseconds to
#: contention of ten seconds.
SPELL_LEADS: tuple[float, ...] = (0.03, 0.1, 0.3, 1.0, 3.0, 10.0)
#: Spells are read once bursts grow this steeply with the load (``burst_size``'s slope: on
#: the sim's ``spells`` 0-800, over 20 on 29 of 40 seeds; on ``transient``'s stalls under
#: 5 but on 3 of 40, where a gate of 10 put 2-3 soaks of 40 far above the truth),
SPELL_SLOPE = 20.0
#: ... with this share of the prior (the per-trial reading keeps the rest: with half,
#: ``jitter``'s estimates moved up to where it lost 42x the target on seeds 30000, 0.03x
#: with a fifth).
SPELL_SHARE = 0.2
#: What a lossy trial costs [nats] where spells cannot make it lossy.
_LOG_NEVER = -30.0


def spell_rates(seen: Sequence[Counted], target: float) -> tuple[float, ...]:
    """For each of ``SPELL_LEADS``, the likeliest rate [1/s] of spells (``likeliest_rate``,
    a trial of ``D`` s counted as ``D + lead``), read from the trials at the lowest lossy
    trial's load and above (all 1 with none lossy): spells come at one rate whatever the
    load, and below the lowest lossy trial the critical load may lie."""
    lowest = lowest_lossy(seen, target)
    if lowest is None:
        return tuple(1.0 for _ in SPELL_LEADS)
    above = [o for o in seen if o.frames > 0 and o.load >= lowest]
    lossy_ones = [o.frames / o.load for o in above if lossy(o.lost, o.frames, target)]
    clean = [o.frames / o.load for o in above if not lossy(o.lost, o.frames, target)]
    rates = []
    for lead in SPELL_LEADS:
        clean_seconds = sum(d + lead for d in clean)
        rates.append(likeliest_rate([d + lead for d in lossy_ones], clean_seconds))
    return tuple(rates)


def lowest_lossy(seen: Sequence[Counted], target: float) -> float | None:
    """The load [pps] of the lowest trial that lost more than ``target`` allows (or None)."""
    loads = [o.load for o in seen if o.frames > 0 and lossy(o.lost, o.frames, target)]
    return min(loads, default=None)


def spell_row(
    trial: Counted, duration: float, is_lossy: bool, critical: float, rates: Sequence[float]
) -> list[float]:
    """log P(the trial was lossy or not | c=critical, spells of each of ``SPELL_LEADS`` at
    its rate of ``rates``): below ``c`` no trial loses; above it a trial of ``duration``
    [s] is lossy with chance ``1 - exp(-rate (duration + lead))`` and loses at most
    ``1 - c / L`` of its frames (``trial.lost``: less what any trial may lose). A lossy
    trial that spells cannot give costs ``_LOG_NEVER``."""
    if trial.load <= critical or (
        is_lossy and trial.lost > (1.0 - critical / trial.load) * trial.frames
    ):
        return [_LOG_NEVER if is_lossy else 0.0] * len(SPELL_LEADS)
    row = []
    for lead, rate in zip(SPELL_LEADS, rates, strict=True):
        exponent = rate * (duration + lead)
        log_p = math.log(-math.expm1(-exponent)) if is_lossy else -exponent
        row.append(max(_LOG_NEVER, log_p))
    return row


#: The spells' rates rebuild the fit's grids once one moves by this factor.
RATES_MOVE = 1.5


def rates_moved(rates: Sequence[float], old: Sequence[float]) -> bool:
    """A spells' rate (``spell_rates``) moved by over ``RATES_MOVE`` times."""
    limit = math.log(RATES_MOVE)
    return any(abs(math.log(new / was)) > limit for new, was in zip(rates, old, strict=True))


def spells_on(size: BurstSize) -> bool:
    """The bursts (``burst_size``) shrink steeply enough as the load falls to be read as
    spells too."""
    return size.slope >= SPELL_SLOPE


def log_prior(size: BurstSize) -> tuple[float, ...]:
    """The log prior of each column of a bursty row: the widths' (``width_prior``), then
    the spells' (``SPELL_SHARE`` of it all; none unless ``spells_on``)."""
    widths = width_prior(size)
    spell = -math.inf
    if spells_on(size):
        share = SPELL_SHARE / (1.0 - SPELL_SHARE) / len(SPELL_LEADS)
        spell = math.log(sum(math.exp(p) for p in widths) * share)
    return widths + tuple(spell for _ in SPELL_LEADS)


def columns() -> int:
    """The number of columns of a row: the widths, then the spells' lengths."""
    return len(WIDTHS) + len(SPELL_LEADS)
