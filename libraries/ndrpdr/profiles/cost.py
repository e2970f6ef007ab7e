"""What forwarding one packet of a family costs a software data plane: the sim's DUT model reads it.

A core of the simulated DUT spends ``cycles`` CPU cycles on a 64 B packet
of the family, plus ``cycles_per_byte`` for every byte above 64 (copies,
encryption), plus ``table_cycles`` for its table size (cache and TLB
misses of a large FIB, MAC table or SA database). With ``cores`` worker
cores the capacity grows by ``core_scaling`` per extra core (1.0: linear).
The sim TG caps what that gives at the TG's and the links' limits.
"""

from __future__ import annotations

import dataclasses

from ndrpdr.profiles.errors import ProfileError

#: Clock of a simulated DUT core [Hz] (a 2.6 GHz server core, as CSIT's Xeon and EPYC testbeds).
SIM_CORE_HZ = 2.6e9
#: Frame size the ``cycles`` of a cost are given for [B].
BASE_FRAME_B = 64


@dataclasses.dataclass(frozen=True)
class PacketCost:
    """CPU cycles per packet on one core (see the module docstring); ``basis`` says why."""

    cycles: float
    cycles_per_byte: float = 0.0
    table_cycles: float = 0.0
    core_scaling: float = 1.0
    basis: str = ""

    def __post_init__(self) -> None:
        """ProfileError for a cost that is not a positive number of cycles."""
        if not self.cycles > 0:
            raise ProfileError(f"packet cost: cycles {self.cycles!r} must be > 0")
        if self.cycles_per_byte < 0 or self.table_cycles < 0:
            raise ProfileError("packet cost: per-byte and table cycles must be >= 0")
        if not 0 < self.core_scaling <= 1:
            raise ProfileError(f"packet cost: core_scaling {self.core_scaling!r} must be in (0, 1]")

    def cycles_at(self, frame_size_b: float) -> float:
        """Cycles one packet of ``frame_size_b`` [B] (mean size for IMIX) costs one core."""
        extra = max(0.0, frame_size_b - BASE_FRAME_B)
        return self.cycles + self.table_cycles + self.cycles_per_byte * extra

    def capacity_pps(self, frame_size_b: float, cores: int) -> float:
        """Packets per second ``cores`` cores forward at ``frame_size_b`` [B], no other limit."""
        if cores < 1:
            raise ProfileError(f"packet cost: cores {cores!r} must be >= 1")
        one = SIM_CORE_HZ / self.cycles_at(frame_size_b)
        return one * (1 + self.core_scaling * (cores - 1))
