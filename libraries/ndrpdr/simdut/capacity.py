"""The capacity of a simulated DUT: the family's packet cost at the test's frame size and cores.

A simulated DUT forwards what a real software data plane of the test's
family would on ``cores`` worker cores (``PacketCost.capacity_pps``, whose
module docstring gives the facts the costs rest on), times a factor drawn
from the DUT's seed in [``SEED_FACTOR_MIN``, ``SEED_FACTOR_MAX``]: two
testbeds (seeds) of one family differ by a few percent, as two lab DUTs of
one model do, and one seed always gives the same factor. The DUT model
(``sharp``, ``gradual``, ``noisyknee``...) then shapes loss around that
capacity. For IMIX the cost is taken at the mean frame size.
"""

from __future__ import annotations

import dataclasses
import random

from ndrpdr.profiles import FrameSize, PacketCost
from ndrpdr.profiles.framesize import average_frame_size

#: Lowest per-seed factor on the family's capacity.
SEED_FACTOR_MIN = 0.97
#: Highest per-seed factor on the family's capacity.
SEED_FACTOR_MAX = 1.03


def seed_factor(seed: int) -> float:
    """The factor [1] in SEED_FACTOR_MIN..SEED_FACTOR_MAX a DUT of ``seed`` applies to its capacity.

    Drawn from its own stream (not the model's), so the model's other
    parameters stay what ``make_model(name, seed)`` draws.
    """
    return random.Random(f"sim-dut-capacity-{seed}").uniform(SEED_FACTOR_MIN, SEED_FACTOR_MAX)


@dataclasses.dataclass(frozen=True)
class ModelledCapacity:
    """One simulated DUT's capacity and what it comes from.

    ``family_pps``: the family's cost at the frame size and cores [pps];
    ``factor``: the seed's factor [1]; ``capacity_pps`` their product [pps].
    """

    family: str
    frame_size: FrameSize
    cores: int
    seed: int
    family_pps: float
    factor: float

    @property
    def capacity_pps(self) -> float:
        """The DUT model's capacity [pps, aggregate over directions]."""
        return self.family_pps * self.factor

    def describe(self) -> str:
        """One line for telemetry: family, frame size, cores and the capacity in Mpps."""
        return (
            f"{self.family} {self.frame_size} B {self.cores} core(s): "
            f"{self.capacity_pps / 1e6:.4f} Mpps (family {self.family_pps / 1e6:.4f} Mpps "
            f"x seed {self.seed} factor {self.factor:.4f})"
        )


def modelled_capacity(
    family: str, cost: PacketCost, frame_size: FrameSize, cores: int, seed: int
) -> ModelledCapacity:
    """The capacity of a simulated DUT of ``seed`` running ``family`` (see the module docstring)."""
    return ModelledCapacity(
        family=family,
        frame_size=frame_size,
        cores=cores,
        seed=seed,
        family_pps=cost.capacity_pps(average_frame_size(frame_size), cores),
        factor=seed_factor(seed),
    )
