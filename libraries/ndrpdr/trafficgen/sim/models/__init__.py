"""Simulated DUT models: what a device under test forwards in one trial, and its truth."""

from ndrpdr.trafficgen.sim.models.chain import ChainModel
from ndrpdr.trafficgen.sim.models.duration import DurationDependent
from ndrpdr.trafficgen.sim.models.gradual import GradualLoss
from ndrpdr.trafficgen.sim.models.noisyknee import NoisyKnee
from ndrpdr.trafficgen.sim.models.overload import OverloadCollapse
from ndrpdr.trafficgen.sim.models.protocol import DutModel
from ndrpdr.trafficgen.sim.models.registry import MODEL_NAMES, make_model
from ndrpdr.trafficgen.sim.models.sharp import SharpCliff
from ndrpdr.trafficgen.sim.models.sporadic import SporadicLoss
from ndrpdr.trafficgen.sim.models.transient import TransientInterrupts

__all__ = [
    "MODEL_NAMES",
    "ChainModel",
    "DurationDependent",
    "DutModel",
    "GradualLoss",
    "NoisyKnee",
    "OverloadCollapse",
    "SharpCliff",
    "SporadicLoss",
    "TransientInterrupts",
    "make_model",
]
