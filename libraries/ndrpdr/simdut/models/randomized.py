"""The ``randomized`` model: a family of DUTs whose every trait is drawn from the seed.

The named models each show one behaviour; a search tuned on them may fail
on a DUT that combines them. Here a seed draws, each on its own: the loss
curve above the knee and its sharpness (``randomshape``: cliff, linear,
power, exponential, overload collapse), trial-to-trial noise (a capacity
jitter, a noisy knee, both or none) and its level, loss spells of random
length, and transient interrupts absorbed in part by a buffer. So the
family holds combinations no named model has (a noisy knee above a
power-law curve with interrupts, say), and seeds held out from any tuning
are DUTs no one looked at (``benchmarks/heldout.py``).
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections import Counter
from statistics import NormalDist
from typing import ClassVar

from ndrpdr.simdut.models.base import (
    ModelBase,
    check_positive,
    offered_frames,
    whole_frames_lost,
)
from ndrpdr.simdut.models.randomshape import SHAPES, LossShape, sharpness_for_offset

_NORMAL = NormalDist()
_TAIL = 1e-12
"""Uniform draws are kept this far from 0 and 1 (a jitter level within 7 sigma)."""
TRUTH_SAMPLES = 4001
"""Trial states drawn (from a fixed seed) per duration to find the median trial."""
_TRUTH_SEED = 20261206
_BISECTION_STEPS = 60
_RELATIVE_PRECISION = 1e-9
_TRUTHS: dict[tuple[object, ...], float] = {}
"""Truths by (traits, duration, loss ratio): shared by the models of one seed, so the
benchmarks' fresh model per algorithm does not compute them again."""
_TRUTHS_KEPT = 4096
MIN_LOSS_FRACTION = 0.01
"""Least share of its frames a lossy trial in the noisy knee loses (as ``noisyknee``)."""


@dataclasses.dataclass(frozen=True)
class Noise:
    """Trial-to-trial noise: the level ``K exp(jitter Z)`` per trial (Z standard normal),
    and a noisy knee: below the trial's level, in a band of ``band_fraction`` of it, a trial
    is lossy with a probability rising linearly to ``max_loss_probability`` at the level
    (and staying there above), then losing a share uniform in [1 %, ``max_loss_fraction``]
    of the frames the curve left. Zero jitter or band: that noise is off."""

    jitter: float = 0.0
    band_fraction: float = 0.0
    max_loss_probability: float = 0.0
    max_loss_fraction: float = 0.0


@dataclasses.dataclass(frozen=True)
class Spells:
    """Spells of ``spell_s`` [s] starting as a Poisson process of ``spells_per_s`` [1/s]
    in wall time; inside one the knee is ``spell_drop`` lower. Zero rate: off."""

    spells_per_s: float = 0.0
    spell_s: float = 0.0
    spell_drop: float = 0.0


@dataclasses.dataclass(frozen=True)
class Interrupts:
    """Stalls starting as a Poisson process of ``interrupts_per_s`` [1/s], each of an
    exponential length of mean ``interrupt_s`` [s]; a stall of ``t`` at load ``L`` loses
    ``ceil(L t - buffer_frames)`` frames when positive. Zero rate: off."""

    interrupts_per_s: float = 0.0
    interrupt_s: float = 0.0
    buffer_frames: float = 0.0


@dataclasses.dataclass(frozen=True)
class TrialState:
    """What a trial drew, before its load is known: the level factor ``exp(jitter Z)``,
    the noisy knee's uniform and share, seconds in spells, and stall lengths [s]."""

    level: float = 1.0
    knee_uniform: float = 1.0
    knee_share: float = 0.0
    spell_overlap_s: float = 0.0
    stalls_s: tuple[float, ...] = ()


class RandomizedDut(ModelBase):
    """A DUT with a knee at ``capacity_pps`` (``K``), a loss ``shape`` above it, and the
    optional ``noise``, ``spells`` and ``interrupts`` (each off at its defaults).

    A trial of ``D`` s at load ``L`` first draws its state (``TrialState``:
    the draws depend on the duration only, never on the load), then loses,
    in whole frames: the shape's loss at knee ``K' = K exp(jitter Z)`` for
    the time outside spells and at ``K' (1 - spell_drop)`` inside them; if
    the noisy knee makes it lossy, a share of what is left (at least one
    frame); and what each stall overflows from the buffer.

    Truth (noisy or not, the same rule as the other models): the highest
    load at which the median trial of that duration meets the goal. Each
    of the losses above grows with the load for a fixed state, so a state
    passes below one threshold load and fails above it, and the truth is
    the median threshold over the states. It is computed from
    ``TRUTH_SAMPLES`` states drawn once per duration from a fixed seed
    (as ``spells`` finds its median overlap), scored by the trial's own
    counting (whole frames included), by bisection on the load; with no
    noise, spells nor interrupts there is one state and it is exact. The
    sample's median lies within about 0.8 % of probability (one standard
    error) of the true median; against the named models' own truths it
    agrees within 0.1 % (jitter) to 2 % (interrupts, whose pass
    probability is flat near the truth).
    """

    NAME: ClassVar[str] = "randomized"

    def __init__(
        self,
        capacity_pps: float,
        shape: LossShape,
        noise: Noise | None = None,
        spells: Spells | None = None,
        interrupts: Interrupts | None = None,
    ) -> None:
        """The knee ``capacity_pps`` [pps] > 0 and the traits (None: off)."""
        self.capacity_pps = check_positive("capacity_pps", capacity_pps)
        self.shape = shape
        self.noise = noise or Noise()
        self.spells = spells or Spells()
        self.interrupts = interrupts or Interrupts()
        self._states: dict[float, tuple[tuple[TrialState, int], ...]] = {}

    @property
    def deterministic(self) -> bool:
        """True when no trait draws from the rng (pure loss curve)."""
        return not (
            self.noise.jitter > 0
            or self.noise.band_fraction > 0
            or self.spells.spells_per_s > 0
            or self.interrupts.interrupts_per_s > 0
        )

    DETERMINISTIC: ClassVar[bool] = False
    """Unused: ``deterministic`` depends on the drawn traits."""

    def draw_state(self, duration_s: float, rng: random.Random) -> TrialState:
        """One trial's draws for a ``duration_s`` [s] trial (none when deterministic)."""
        level = 1.0
        if self.noise.jitter > 0:
            uniform = min(max(rng.random(), _TAIL), 1.0 - _TAIL)
            level = math.exp(self.noise.jitter * _NORMAL.inv_cdf(uniform))
        knee_uniform, knee_share = 1.0, 0.0
        if self.noise.band_fraction > 0:
            knee_uniform = rng.random()
            knee_share = rng.uniform(MIN_LOSS_FRACTION, self.noise.max_loss_fraction)
        overlap = self._draw_overlap(duration_s, rng) if self.spells.spells_per_s > 0 else 0.0
        stalls: list[float] = []
        rate = self.interrupts.interrupts_per_s
        if rate > 0:
            start_s = rng.expovariate(rate)
            while start_s < duration_s:
                stalls.append(rng.expovariate(1.0 / self.interrupts.interrupt_s))
                start_s += rng.expovariate(rate)
        return TrialState(level, knee_uniform, knee_share, overlap, tuple(stalls))

    def _draw_overlap(self, duration_s: float, rng: random.Random) -> float:
        """Seconds of the trial in spells (the union of spells clipped to it)."""
        time_s, covered_until, overlap = -self.spells.spell_s, 0.0, 0.0
        while True:
            time_s += rng.expovariate(self.spells.spells_per_s)
            if time_s >= duration_s:
                return overlap
            start = max(time_s, covered_until)
            end = min(time_s + self.spells.spell_s, duration_s)
            if end > start:
                overlap += end - start
                covered_until = end

    def knee_loss_probability(self, load_pps: float, level_pps: float) -> float:
        """Probability that the noisy knee makes a trial at ``load_pps`` lossy."""
        band = self.noise.band_fraction
        bottom = level_pps * (1.0 - band)
        if band <= 0 or load_pps <= bottom:
            return 0.0
        share = min(1.0, (load_pps - bottom) / (level_pps - bottom))
        return self.noise.max_loss_probability * share

    def lost_frames(self, duration_s: float, load_pps: float, state: TrialState) -> tuple[int, int]:
        """``(offered, lost)`` [frames] of a trial in ``state``."""
        offered = offered_frames(duration_s, load_pps)
        if offered == 0:
            return 0, 0
        level = self.capacity_pps * state.level
        overlap = state.spell_overlap_s
        ratio = self.shape.loss_ratio(load_pps, level)
        if overlap > 0:
            slow = self.shape.loss_ratio(load_pps, level * (1.0 - self.spells.spell_drop))
            ratio = (ratio * (duration_s - overlap) + slow * overlap) / duration_s
        lost = whole_frames_lost(offered, ratio)
        if state.knee_uniform < self.knee_loss_probability(load_pps, level):
            lost += max(1, math.floor(state.knee_share * (offered - lost)))
        buffer = self.interrupts.buffer_frames
        for stall_s in state.stalls_s:
            over = load_pps * stall_s - buffer
            if over > 0:
                lost += math.ceil(over)
        return offered, min(offered, lost)

    def trial(self, duration_s: float, load_pps: float, rng: random.Random) -> tuple[int, int]:
        """Run one trial: ``(offered_count, forwarded_count)`` [frames]."""
        duration_s, load_pps = self._check_trial(duration_s, load_pps)
        state = self.draw_state(duration_s, rng)
        offered, lost = self.lost_frames(duration_s, load_pps, state)
        return offered, offered - lost

    def truth_states(self, duration_s: float) -> tuple[tuple[TrialState, int], ...]:
        """The fixed sample of trial states for ``duration_s``, as (state, count) pairs."""
        if duration_s not in self._states:
            rng = random.Random(_TRUTH_SEED)
            count = 1 if self.deterministic else TRUTH_SAMPLES
            drawn = Counter(self.draw_state(duration_s, rng) for _ in range(count))
            self._states[duration_s] = tuple(drawn.items())
        return self._states[duration_s]

    def _passes(self, duration_s: float, load: float, state: TrialState, ratio: float) -> bool:
        offered, lost = self.lost_frames(duration_s, load, state)
        return offered == 0 or lost / offered <= ratio

    def true_throughput(self, duration_s: float, loss_ratio: float) -> float:
        """The highest load [pps] at which the median ``duration_s`` trial meets the goal."""
        duration_s, loss_ratio = self._check_goal(duration_s, loss_ratio)
        key = (self._traits(), duration_s, loss_ratio)
        if key not in _TRUTHS:
            if len(_TRUTHS) >= _TRUTHS_KEPT:
                _TRUTHS.clear()
            _TRUTHS[key] = self._median_threshold(duration_s, loss_ratio)
        return _TRUTHS[key]

    def _traits(self) -> tuple[object, ...]:
        """Everything the truth depends on (hashable: the traits are frozen)."""
        return (self.capacity_pps, self.shape, self.noise, self.spells, self.interrupts)

    def _median_threshold(self, duration_s: float, ratio: float) -> float:
        """Bisection on the load for the median of the states' thresholds.

        Keeps only the states whose threshold may lie in the bracket: one
        that passes at the top passes everywhere in it, one that fails at
        the bottom fails everywhere (each state's loss grows with the load).
        """
        states = self.truth_states(duration_s)
        total = sum(count for _, count in states)
        need = total // 2 + 1

        def passing(load: float, among: tuple[tuple[TrialState, int], ...]) -> int:
            return sum(c for s, c in among if self._passes(duration_s, load, s, ratio))

        high = 2.0 * self.capacity_pps / (1.0 - ratio)
        while passing(high, states) >= need:
            high *= 2.0
        low = high
        while passing(low, states) < need:
            high, low = low, low / 2.0
            if low < 1e-9 * self.capacity_pps:
                return 0.0
        sure, open_ = 0, states
        for _ in range(_BISECTION_STEPS):
            if high - low <= _RELATIVE_PRECISION * high:
                break
            middle = (low + high) / 2.0
            passed: list[tuple[TrialState, int]] = []
            failed: list[tuple[TrialState, int]] = []
            for pair in open_:
                if self._passes(duration_s, middle, pair[0], ratio):
                    passed.append(pair)
                else:
                    failed.append(pair)
            count = sum(c for _, c in passed)
            if sure + count >= need:
                low, open_ = middle, tuple(passed)
            else:
                high, sure, open_ = middle, sure + count, tuple(failed)
        return low

    def parameters(self) -> dict[str, float]:
        """The knee [pps], the shape (``shape_index`` into ``randomshape.SHAPES``) and
        every trait's parameters (zeros: the trait is off)."""
        shape, noise, spells, stalls = self.shape, self.noise, self.spells, self.interrupts
        return {
            "capacity_pps": self.capacity_pps,
            "shape_index": float(shape.index),
            "sharpness": shape.sharpness,
            "exponent": shape.exponent,
            "floor_fraction": shape.floor_fraction,
            **{key: float(value) for key, value in dataclasses.asdict(noise).items()},
            **{key: float(value) for key, value in dataclasses.asdict(spells).items()},
            **{key: float(value) for key, value in dataclasses.asdict(stalls).items()},
        }

    def describe(self) -> str:
        """The shape and the traits that are on, in words (for tables and tests)."""
        traits = [self.shape.kind]
        if self.noise.jitter > 0:
            traits.append("jitter")
        if self.noise.band_fraction > 0:
            traits.append("noisy knee")
        if self.spells.spells_per_s > 0:
            traits.append("spells")
        if self.interrupts.interrupts_per_s > 0:
            traits.append("interrupts")
        return " + ".join(traits)


P_JITTER = 0.4
"""Share of seeds whose level jitters from trial to trial."""
P_NOISY_KNEE = 0.3
"""Share of seeds with a noisy knee."""
P_SPELLS = 0.3
"""Share of seeds with loss spells."""
P_INTERRUPTS = 0.3
"""Share of seeds with transient interrupts."""
PDR_RATIO = 0.005


def _draw_shape(rng: random.Random) -> LossShape:
    """A shape, every parameter drawn whichever kind wins (a fixed count of draws)."""
    kind = SHAPES[rng.randrange(len(SHAPES))]
    # Where the 0.5 % loss lies above the knee: 0.5 .. 8 %, log-uniform.
    offset = math.exp(rng.uniform(math.log(0.005), math.log(0.08)))
    power = rng.uniform(1.5, 3.0)
    width = rng.uniform(0.01, 0.05)
    slope = rng.uniform(0.1, 0.9)
    collapse = rng.uniform(1.0, 3.0)
    floor = rng.uniform(0.1, 0.3)
    if kind == "linear":
        return LossShape(kind, sharpness=slope)
    if kind == "power":
        return LossShape(kind, sharpness_for_offset(kind, offset, power, PDR_RATIO), power)
    if kind == "exponential":
        return LossShape(kind, sharpness_for_offset(kind, offset, width, PDR_RATIO), width)
    if kind == "overload":
        return LossShape(kind, sharpness=collapse, floor_fraction=floor)
    return LossShape(kind)


def draw_randomized(rng: random.Random, capacity_pps: float) -> RandomizedDut:
    """The ``randomized`` model of ``make_model``: every trait drawn from ``rng``.

    Each trait is on with its own probability (``P_*``), independently, and
    its level is drawn in a range wider than the named model's: jitter
    0.2 .. 3 %; a noisy knee band of 5 .. 25 % below the level, lossy with
    probability up to 0.55 .. 0.95, losing 1 % .. 2-5 %; spells every 15 ..
    90 s of 1 .. 8 s, 3 .. 25 % lower; stalls every 20 .. 90 s of 2 .. 20 ms
    mean, the buffer holding 0.3 .. 1.2 mean stalls at the knee. The draws
    are the same in number whatever is on, so each trait's parameters do
    not depend on the others'.
    """
    shape = _draw_shape(rng)
    on_jitter, jitter = rng.random() < P_JITTER, rng.uniform(0.002, 0.03)
    on_knee, band = rng.random() < P_NOISY_KNEE, rng.uniform(0.05, 0.25)
    max_probability, max_fraction = rng.uniform(0.55, 0.95), rng.uniform(0.02, 0.05)
    on_spells, spell_rate = rng.random() < P_SPELLS, 1.0 / rng.uniform(15.0, 90.0)
    spell_s, spell_drop = rng.uniform(1.0, 8.0), rng.uniform(0.03, 0.25)
    on_stalls, stall_rate = rng.random() < P_INTERRUPTS, 1.0 / rng.uniform(20.0, 90.0)
    stall_s, buffer_share = rng.uniform(0.002, 0.020), rng.uniform(0.3, 1.2)
    noise = Noise(
        jitter=jitter if on_jitter else 0.0,
        band_fraction=band if on_knee else 0.0,
        max_loss_probability=max_probability if on_knee else 0.0,
        max_loss_fraction=max_fraction if on_knee else 0.0,
    )
    spells = Spells(spell_rate, spell_s, spell_drop) if on_spells else None
    interrupts = (
        Interrupts(stall_rate, stall_s, float(round(buffer_share * capacity_pps * stall_s)))
        if on_stalls
        else None
    )
    return RandomizedDut(capacity_pps, shape, noise, spells, interrupts)
