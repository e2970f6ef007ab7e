"""The models of DUTs at the edge of what a search can conclude, by registry name.

A dead DUT, a flapping one, a duplicating one: each a module of its own;
``registry`` adds them to its names after the well-behaved models.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from ndrpdr.simdut.models.dead import draw_dead
from ndrpdr.simdut.models.duplicating import draw_duplicating
from ndrpdr.simdut.models.flapping import draw_flapping
from ndrpdr.simdut.models.protocol import DutModel

EDGE_FACTORIES: dict[str, Callable[[random.Random, float], DutModel]] = {
    "dead": draw_dead,
    "flapping": draw_flapping,
    "duplicating": draw_duplicating,
}
