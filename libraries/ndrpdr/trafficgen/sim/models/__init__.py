"""Simulated DUT models: what a device under test forwards in one trial, and its truth.

Each name is re-exported by ``X as X``; ``ndrpdr.trafficgen.sim`` lists the public ones.
"""

from ndrpdr.trafficgen.sim.models.chain import ChainModel as ChainModel
from ndrpdr.trafficgen.sim.models.dead import DeadDut as DeadDut
from ndrpdr.trafficgen.sim.models.duplicating import DuplicatingDut as DuplicatingDut
from ndrpdr.trafficgen.sim.models.duration import DurationDependent as DurationDependent
from ndrpdr.trafficgen.sim.models.flapping import FlappingCapacity as FlappingCapacity
from ndrpdr.trafficgen.sim.models.gradual import GradualLoss as GradualLoss
from ndrpdr.trafficgen.sim.models.noisyknee import NoisyKnee as NoisyKnee
from ndrpdr.trafficgen.sim.models.overload import OverloadCollapse as OverloadCollapse
from ndrpdr.trafficgen.sim.models.protocol import DutModel as DutModel
from ndrpdr.trafficgen.sim.models.registry import MODEL_NAMES as MODEL_NAMES
from ndrpdr.trafficgen.sim.models.registry import make_model as make_model
from ndrpdr.trafficgen.sim.models.sharp import SharpCliff as SharpCliff
from ndrpdr.trafficgen.sim.models.spells import LossSpells as LossSpells
from ndrpdr.trafficgen.sim.models.sporadic import SporadicLoss as SporadicLoss
from ndrpdr.trafficgen.sim.models.transient import TransientInterrupts as TransientInterrupts
