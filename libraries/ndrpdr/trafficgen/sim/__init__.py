"""The simulated traffic generator: DUT models and a Measurer on a simulated clock.

Nothing here does I/O. Typical use::

    model = make_model("transient", seed=3)
    measurer = SimulatedMeasurer(model, overhead_s=0.5, seed=7)
    result = measurer.measure(duration=1.0, load=1e6)
"""

from ndrpdr.simdut.models import (
    MODEL_NAMES,
    CapacityJitter,
    DurationDependent,
    DutModel,
    GradualLoss,
    LossPlateau,
    NoisyKnee,
    OverloadCollapse,
    SharpCliff,
    SporadicLoss,
    TransientInterrupts,
    make_model,
)
from ndrpdr.trafficgen.sim.clock import SimulatedClock
from ndrpdr.trafficgen.sim.measurer import SimulatedMeasurer

__all__ = [
    "MODEL_NAMES",
    "CapacityJitter",
    "DurationDependent",
    "DutModel",
    "GradualLoss",
    "LossPlateau",
    "NoisyKnee",
    "OverloadCollapse",
    "SharpCliff",
    "SimulatedClock",
    "SimulatedMeasurer",
    "SporadicLoss",
    "TransientInterrupts",
    "make_model",
]
