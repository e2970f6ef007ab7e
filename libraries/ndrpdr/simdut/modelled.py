"""What the sim TG modelled for a simulated DUT node, and the sim DUT's options.

The sim DUT driver (``ndrpdr.dut.sim``) and the sim TG
(``ndrpdr.trafficgen.sim``) meet here rather than importing each other: the
TG reads the options of the DUT node to build its loss model and notes what
it built; the DUT driver's telemetry reads the note back.
"""

from __future__ import annotations

import dataclasses
import weakref

from ndrpdr.drivers import option
from ndrpdr.simdut.capacity import ModelledCapacity
from ndrpdr.simdut.models import MODEL_NAMES, DutModel
from ndrpdr.topology.model import Node


@dataclasses.dataclass(frozen=True)
class ModelledDut:
    """What the sim TG modelled for one DUT: the capacity (None: drawn from the seed), the model."""

    capacity: ModelledCapacity | None
    model: DutModel


#: What the sim TG last modelled for a DUT node, by ``id(node)`` (the weak reference guards reuse).
_MODELLED: dict[int, tuple[weakref.ref[Node], ModelledDut]] = {}


def note_modelled(node: Node, dut: ModelledDut) -> None:
    """Remember what the sim TG modelled for DUT ``node`` (its telemetry says it)."""
    key = id(node)
    _MODELLED[key] = (weakref.ref(node, lambda _ref: _MODELLED.pop(key, None)), dut)


def modelled(node: Node) -> ModelledDut | None:
    """What the sim TG last modelled for DUT ``node`` (None: no sim TG made for it yet)."""
    entry = _MODELLED.get(id(node))
    if entry is None or entry[0]() is not node:
        return None
    return entry[1]


@dataclasses.dataclass(frozen=True)
class SimDutOptions:
    """The simulated DUT's options: its loss model (read by the sim TG)."""

    model: str = option("sharp", "loss behaviour of the simulated DUT", choices=MODEL_NAMES)
    seed: int = option(0, "random seed of the model's parameters")
