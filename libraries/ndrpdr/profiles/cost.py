"""What forwarding one packet of a family costs a software data plane: the sim's DUT model reads it.

The model
---------
A worker core of the simulated DUT spends ``cycles`` CPU cycles on a 64 B
packet of the family, plus ``cycles_per_byte`` for every byte above 64
(copies, encryption), plus ``table_cycles`` for its table size (cache and
TLB misses of a large FIB, MAC table or SA database). One core at
``SIM_CORE_HZ`` therefore forwards ``SIM_CORE_HZ / cycles_at(size)``
packets per second [pps, aggregate over both directions, as CSIT reports
NDR and PDR]. Each further worker core adds ``core_scaling`` of the first
core's rate (``capacity_pps``); the sim TG then caps what that gives at the
TG's and the links' limits (a 10GE port carries 14.88 Mpps of 64 B frames).

What the figures rest on
------------------------
* From FD.io CSIT's repository (its suite generator, suites and docs): its
  perf suites run every family at 64 B (78 B for IPv6), 1518 B, 9000 B and
  IMIX on 1, 2 and 4 physical cores; NDR and PDR are aggregate over both
  directions; MRR on 10GE is capped at 2 x 14.88 Mpps at 64 B. The
  repository itself publishes no per-family throughput figures.
* General knowledge of CSIT's published trending and report graphs (not
  from its repository, so to be read as magnitudes, not measurements): one
  2.x GHz Xeon core running VPP forwards 64 B ``ethip4-ip4base`` at about
  15-25 Mpps; relative to it, ``eth-l2patch`` and ``eth-l2xcbase`` run
  1.1-1.4x, ``eth-l2bdbasemaclrn`` 0.8-1.0x, 2M random routes 0.45-0.6x,
  ``ethip6-ip6base`` 0.8-0.9x, stateless / stateful ACLs 0.4-0.6x /
  0.35-0.5x, memif through a second VPP 0.3-0.5x, SRv6 0.5-0.7x, and IPsec
  AES-256-GCM (4 tunnels) 0.2-0.3x, CBC+HMAC about half of GCM. The family
  modules (``ndrpdr.families``) give each family's ``cycles`` and say their
  basis.
* Core scaling (``DEFAULT_CORE_SCALING``), general knowledge: VPP scales
  close to, but below, linearly with worker cores (2 cores about 1.8-1.95x
  one core in CSIT's multi-core graphs, when no NIC or link limit is hit):
  RSS spreads flows over the RX queues unevenly, and the cores share the
  last-level cache and memory bandwidth.
"""

from __future__ import annotations

import dataclasses

from ndrpdr.profiles.errors import ProfileError

#: Clock of a simulated DUT core [Hz] (a 2.6 GHz server core, as CSIT's Xeon and EPYC testbeds).
SIM_CORE_HZ = 2.6e9
#: Frame size the ``cycles`` of a cost are given for [B].
BASE_FRAME_B = 64
#: Share of the first core's rate each further worker core adds (see the module docstring).
DEFAULT_CORE_SCALING = 0.9


@dataclasses.dataclass(frozen=True)
class PacketCost:
    """CPU cycles per packet on one core (see the module docstring); ``basis`` says why.

    ``cycles`` [cycles per 64 B packet], ``cycles_per_byte`` [cycles per byte
    above 64 B], ``table_cycles`` [cycles per packet], ``core_scaling``
    [share of one core's rate each further core adds, in (0, 1]].
    """

    cycles: float
    cycles_per_byte: float = 0.0
    table_cycles: float = 0.0
    core_scaling: float = DEFAULT_CORE_SCALING
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
        """Packets per second ``cores`` cores forward at ``frame_size_b`` [B], no other limit.

        Aggregate over the directions [pps]: one core's ``SIM_CORE_HZ /
        cycles_at(frame_size_b)``, and ``core_scaling`` of that for every
        further core.
        """
        if isinstance(cores, bool) or not isinstance(cores, int) or cores < 1:
            raise ProfileError(f"packet cost: cores {cores!r} must be an integer >= 1")
        one = SIM_CORE_HZ / self.cycles_at(frame_size_b)
        return one * (1 + self.core_scaling * (cores - 1))
