"""Simulated DUT models: what a device under test forwards in one trial, and its truth.

Each name is re-exported by ``X as X``; ``ndrpdr.trafficgen.sim`` lists the public ones.
"""

from ndrpdr.simdut.models.chain import ChainModel as ChainModel
from ndrpdr.simdut.models.dead import DeadDut as DeadDut
from ndrpdr.simdut.models.duplicating import DuplicatingDut as DuplicatingDut
from ndrpdr.simdut.models.duration import DurationDependent as DurationDependent
from ndrpdr.simdut.models.flapping import FlappingCapacity as FlappingCapacity
from ndrpdr.simdut.models.gradual import GradualLoss as GradualLoss
from ndrpdr.simdut.models.jitter import CapacityJitter as CapacityJitter
from ndrpdr.simdut.models.noisyknee import NoisyKnee as NoisyKnee
from ndrpdr.simdut.models.overload import OverloadCollapse as OverloadCollapse
from ndrpdr.simdut.models.plateau import LossPlateau as LossPlateau
from ndrpdr.simdut.models.protocol import DutModel as DutModel
from ndrpdr.simdut.models.randomized import RandomizedDut as RandomizedDut
from ndrpdr.simdut.models.registry import MODEL_NAMES as MODEL_NAMES
from ndrpdr.simdut.models.registry import make_model as make_model
from ndrpdr.simdut.models.sharp import SharpCliff as SharpCliff
from ndrpdr.simdut.models.spells import LossSpells as LossSpells
from ndrpdr.simdut.models.sporadic import SporadicLoss as SporadicLoss
from ndrpdr.simdut.models.transient import TransientInterrupts as TransientInterrupts
