"""The sim models' soak truth: the long-run average loss ratio and the load where it meets 1e-7.

Each formula of ``ndrpdr.simdut.soaktruth`` is checked against the model's
own trials: simulated long (fixed seeds), the pooled loss ratio at a load
where it is measurable matches the formula; and at the critical load for
1e-7 scaled down and up by a model's factor, the pooled ratio falls below
and above the target. The factor is 2 % where loss rises steeply past the
truth; transient's rises by a factor 1.2 per 2 % there, so its sides are
taken at 0.75 and 1.3 (a ratio of about 1/7 and 5 times the target) to stay
within a second of simulation.
"""

from __future__ import annotations

import random

import pytest

from ndrpdr.simdut.models import make_model
from ndrpdr.simdut.soaktruth import SoakTruthError, critical_load, mean_loss_ratio

TARGET = 1e-7
BEHAVIOURS = (
    "sharp",
    "gradual",
    "transient",
    "sporadic",
    "duration",
    "overload",
    "noisyknee",
    "spells",
    "jitter",
    "plateau",
)
#: (factor below, factor above, trial seconds, trials) of the sides check per model.
SIDES = {
    "transient": (0.75, 1.3, 20_000.0, 2_000),
    "noisyknee": (0.98, 1.02, 1.0, 20_000),
    "spells": (0.98, 1.02, 100.0, 2_000),
    "jitter": (0.98, 1.02, 1.0, 100_000),
}


def pooled_ratio(name: str, seed: int, load: float, seconds: float, trials: int) -> float:
    """Lost over sent frames of ``trials`` trials of ``seconds`` at ``load`` (fixed rng)."""
    model = make_model(name, seed)
    rng = random.Random(1000 + seed)
    sent = lost = 0
    for _ in range(trials):
        offered, forwarded = model.trial(seconds, load, rng)
        sent += offered
        lost += offered - forwarded
    return lost / sent


@pytest.mark.parametrize("name", BEHAVIOURS)
@pytest.mark.parametrize("seed", [0, 7])
def test_the_critical_load_meets_the_target(name: str, seed: int) -> None:
    model = make_model(name, seed)
    load = critical_load(model, TARGET)
    assert mean_loss_ratio(model, load) == pytest.approx(TARGET, rel=1e-6)
    assert mean_loss_ratio(model, load * 0.999) < TARGET < mean_loss_ratio(model, load * 1.001)


@pytest.mark.parametrize(
    "name", ["transient", "noisyknee", "spells", "jitter", "gradual", "plateau"]
)
def test_the_formula_matches_long_simulation(name: str) -> None:
    """Where the loss ratio is measurable (1e-3 by the formula), the pooled ratio of simulated
    trials (long enough for hundreds of lossy events) is the formula's, within 15 %."""
    model = make_model(name, 3)
    load = critical_load(model, 1e-3)
    seconds, trials = {
        "transient": (600.0, 300),
        "spells": (100.0, 500),
        "plateau": (1000.0, 20),
    }.get(name, (1.0, 5_000))
    pooled = pooled_ratio(name, 3, load, seconds, trials)
    assert pooled == pytest.approx(mean_loss_ratio(model, load), rel=0.15)


@pytest.mark.parametrize(
    "name", ["sharp", "gradual", "duration", "overload", "sporadic", "plateau"]
)
def test_long_trials_fall_on_each_side_of_the_target(name: str) -> None:
    """A 1000 s trial at 0.98 x the truth loses less than the target (sporadic's few frames,
    duration's buffer included), at 1.02 x more."""
    load = critical_load(make_model(name, 5), TARGET)
    assert pooled_ratio(name, 5, load * 0.98, 1000.0, 3) < TARGET
    assert pooled_ratio(name, 5, load * 1.02, 1000.0, 3) > TARGET


@pytest.mark.parametrize("name", sorted(SIDES))
def test_bursty_models_fall_on_each_side_of_the_target(name: str) -> None:
    below, above, seconds, trials = SIDES[name]
    load = critical_load(make_model(name, 5), TARGET)
    assert pooled_ratio(name, 5, load * below, seconds, trials) < TARGET
    assert pooled_ratio(name, 5, load * above, seconds, trials) > TARGET


def test_edge_models_have_no_truth() -> None:
    with pytest.raises(SoakTruthError):
        mean_loss_ratio(make_model("dead", 0), 1e6)
