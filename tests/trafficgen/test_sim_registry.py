"""make_model: names, reproducible parameters, ranges, protocol conformance."""

from __future__ import annotations

import pytest

from ndrpdr.search.errors import SearchInputError
from ndrpdr.trafficgen.sim import MODEL_NAMES, DutModel, make_model

RANGES = {
    "sharp": {"capacity_pps": (2e6, 20e6)},
    "gradual": {"knee_pps": (2e6, 20e6), "loss_coefficient": (2.0, 12.0)},
    "transient": {
        "capacity_pps": (2e6, 20e6),
        "interrupts_per_s": (1 / 60, 1 / 30),
        "interrupt_s": (0.002, 0.02),
        "buffer_frames": (0.4 * 2e6 * 0.002, 20e6 * 0.02),
    },
    "sporadic": {
        "capacity_pps": (2e6, 20e6),
        "loss_probability": (0.05, 0.2),
        "max_lost_frames": (10, 50),
    },
    "duration": {"capacity_pps": (2e6, 20e6), "buffer_frames": (0.1 * 2e6, 0.3 * 20e6)},
    "overload": {
        "capacity_pps": (2e6, 20e6),
        "slope": (1.0, 3.0),
        "floor_fraction": (0.1, 0.3),
    },
    "noisyknee": {
        "capacity_pps": (2e6, 20e6),
        "band_fraction": (0.10, 0.25),
        "max_loss_probability": (0.6, 0.95),
        "min_loss_fraction": (0.01, 0.01),
        "max_loss_fraction": (0.02, 0.05),
    },
    "spells": {
        "capacity_pps": (2e6, 20e6),
        "spells_per_s": (1 / 60, 1 / 20),
        "spell_s": (2.0, 6.0),
        "spell_drop": (0.05, 0.20),
    },
    "jitter": {"capacity_pps": (2e6, 20e6), "jitter": (0.003, 0.02)},
    "plateau": {
        "capacity_pps": (2e6, 20e6),
        "onset_fraction": (0.25, 0.5),
        "ramp_fraction": (0.05, 0.3),
        "level": (0.0005, 0.003),
        "burst_share": (0.3, 0.95),
        "spread": (0.2, 0.6),
    },
    # Zeros: the trait is off for that seed (tests/trafficgen/test_sim_randomized.py).
    "randomized": {
        "capacity_pps": (2e6, 20e6),
        "shape_index": (0, 4),
        "sharpness": (1e-7, 1e5),
        "exponent": (0.0, 3.0),
        "floor_fraction": (0.0, 0.3),
        "jitter": (0.0, 0.03),
        "band_fraction": (0.0, 0.25),
        "max_loss_probability": (0.0, 0.95),
        "max_loss_fraction": (0.0, 0.05),
        "spells_per_s": (0.0, 1 / 15),
        "spell_s": (0.0, 8.0),
        "spell_drop": (0.0, 0.25),
        "interrupts_per_s": (0.0, 1 / 20),
        "interrupt_s": (0.0, 0.02),
        "buffer_frames": (0.0, 1.2 * 20e6 * 0.02),
    },
    "dead": {"capacity_pps": (2e6, 20e6)},
    "flapping": {
        "capacity_pps": (2e6, 20e6),
        "low_fraction": (0.4, 0.7),
        "low_probability": (0.3, 0.6),
    },
    "duplicating": {
        "capacity_pps": (2e6, 20e6),
        "duplicate_fraction": (0.001, 0.01),
        "duplicate_probability": (0.1, 0.4),
    },
}


def test_names() -> None:
    assert MODEL_NAMES == (
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
        "randomized",
        "dead",
        "flapping",
        "duplicating",
    )
    deterministic = {name for name in MODEL_NAMES if make_model(name, 0).deterministic}
    assert deterministic == {"sharp", "gradual", "duration", "overload", "dead"}


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_seed_reproducible_and_in_range(name: str) -> None:
    model = make_model(name, seed=3)
    assert isinstance(model, DutModel)
    assert model.name == name
    assert make_model(name, seed=3).parameters() == model.parameters()
    assert make_model(name, seed=4).parameters() != model.parameters()
    seen = set()
    for seed in range(40):
        parameters = make_model(name, seed).parameters()
        assert set(parameters) == set(RANGES[name])
        for key, (low, high) in RANGES[name].items():
            assert low <= parameters[key] <= high, (seed, key)
        seen.add(tuple(parameters.values()))
    assert len(seen) == 40


def test_same_seed_same_capacity_across_models() -> None:
    capacities = {next(iter(make_model(name, 8).parameters().values())) for name in MODEL_NAMES}
    assert len(capacities) == 1


def test_unknown_name() -> None:
    with pytest.raises(SearchInputError, match="'cliff'"):
        make_model("cliff", 1)
