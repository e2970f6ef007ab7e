"""The suite table: which tests each family's suites hold (family x test type x frame x cores).

As CSIT's suite generator, a family gets one suite per test type it has
(``ndrpdr``, ``mrr``, ``soak``) and each suite one test per row of frame size and
physical core count, named ``<frame>-<cores>c-<family>-<type>``
(``64B-2c-ethip4-ip4base-ndrpdr``, ``78B-1c-ethip6-ip6base-mrr``) and
tagged ``<frame>`` and ``<cores>C`` (``64B``, ``2C``). The suite carries
the test type's tag (``NDRPDR``, ``MRR``), the family's tags and its id.

The rows are CSIT's suite files' (its ``tests/vpp/perf`` NDRPDR suites;
its generator makes the MRR and soak suites from them). A CSIT suite
holds every row; its jobs choose rows by tag (``--include 64BAND1C``), so
neither do the suites here leave a row out:

- NDRPDR and MRR: each frame of the family (its smallest: 64B, 78B for
  IPv6; then 1518B, 9000B and IMIX) at each core count: 1, 2 and 4, the
  same for IPsec (64B too), reassembly and every other stateless family.
- A family with one data-plane core and the rest for other work (the
  IPsec async families with the software crypto scheduler, tag
  ``SCHEDULER``: core 1 forwards, the others encrypt) runs at 2, 3 and 4
  cores: one core alone would have no crypto worker.
- Stateful (TRex ASTF) families have no IMIX (TRex's ASTF has none):
  ``cps`` runs the smallest frame (64B) only, ``tput`` 100B instead of it
  (TRex's smallest TCP data frame is 80B; UDP uses the same for a fair
  comparison), then 1518B and 9000B; each at 1, 2 and 4 cores. They have
  NDRPDR suites only: a trial runs
  the family's whole transaction scale, not a duration, which MRR and
  soak need (CSIT's generator writes MRR and soak suites of them too).
- Soak: the NDRPDR rows at 1 core (a soak test runs 30 minutes in a lab;
  CSIT's generator keeps 1-core rows only). A reassembly family
  (``REASSEMBLY``: IPsec, GTP-U) soaks only at 1518B, the frame its
  reassembly is about. A family with no 1-core row (``SCHEDULER``) has no
  soak suite.

A testbed that cannot give a DUT that many cores (a 2-CPU machine's local
testbed) skips the row saying why, never runs it on fewer.

Tags added at run time, not here (a committed suite's tags are static):
the testbed's (``DUT_VPP``, ``TG_TREX``, ``2_NODE_SINGLE_LINK_TOPO``...,
from `Set Up Testbed`) and the thread tags (``1T1C``: data-plane threads
and physical cores, ``STHREAD``/``MTHREAD``, from the test template).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Literal

from ndrpdr.families.model import Family
from ndrpdr.families.registry import kind_of
from ndrpdr.profiles import IMIX, FrameSize, frame_size_label

TestType = Literal["ndrpdr", "mrr", "soak"]
#: The test types, in suite order.
TEST_TYPES: tuple[TestType, ...] = ("ndrpdr", "mrr", "soak")
#: The smallest frame of IPv4 and L2 families, and of IPv6 ones (CSIT's 64B and 78B) [B incl. FCS].
MIN_FRAME_IP4_B = 64
MIN_FRAME_IP6_B = 78
#: The physical core counts of a family's rows (CSIT's).
CORES: tuple[int, ...] = (1, 2, 4)
#: The core counts of a family with one data-plane core, the others for other work (``SCHEDULER``).
CORES_ONE_DATA_PLANE: tuple[int, ...] = (2, 3, 4)
#: Frames after the family's smallest, in suite order.
LARGER_FRAMES: tuple[FrameSize, ...] = (1518, 9000, IMIX)
#: The frame of a stateful ``tput`` family that replaces its smallest (CSIT's) [B].
TPUT_MIN_FRAME_B = 100
#: The cores of soak rows.
SOAK_CORES = 1
#: The one soak frame of a reassembly family [B].
REASSEMBLY_SOAK_FRAME_B = 1518

#: Family modules whose suites go in another module's folder.
_FOLDERS = {"own": "ip4"}


@dataclasses.dataclass(frozen=True)
class TestRow:
    """One test of a suite: a frame size at a number of physical cores."""

    family: Family
    test_type: TestType
    frame_size: FrameSize
    cores: int

    @property
    def frame_label(self) -> str:
        """``64B`` or ``IMIX``: the frame tag."""
        return frame_size_label(self.frame_size)

    @property
    def name(self) -> str:
        """CSIT's test name: ``64B-2c-ethip4-ip4base-ndrpdr``."""
        return f"{self.frame_label}-{self.cores}c-{self.family.id}-{self.test_type}"

    @property
    def tags(self) -> tuple[str, str]:
        """The test's own tags: frame and cores (``64B``, ``2C``)."""
        return self.frame_label, f"{self.cores}C"


@dataclasses.dataclass(frozen=True)
class Suite:
    """One generated suite: a family's tests of one test type."""

    family: Family
    test_type: TestType
    rows: tuple[TestRow, ...]

    @property
    def folder(self) -> str:
        """The folder of ``suites/`` it goes in: the family's module (``ip4``, ``ipsec``...).

        Our own family (``ethip4udp-ip4base``) goes with IPv4 routing, ``ip4``.
        """
        kind = kind_of(self.family.id)
        return _FOLDERS.get(kind, kind)

    @property
    def path(self) -> str:
        """Its file, relative to ``suites/``: ``ip4/ethip4-ip4base-ndrpdr.robot``."""
        return f"{self.folder}/{self.family.id}-{self.test_type}.robot"

    @property
    def tags(self) -> tuple[str, ...]:
        """Every test's tags: the test type's, the family's, and its id."""
        return (self.test_type.upper(), *self.family.tags, self.family.id)


def min_frame_size_b(family: Family) -> int:
    """The family's smallest frame [B incl. FCS] (CSIT's 64B, 78B for IPv6, or more)."""
    return family.profile.min_frame_size_b


def cores_of(family: Family) -> tuple[int, ...]:
    """The core counts of ``family``'s rows: 1, 2, 4, or 2, 3, 4 with one data-plane core."""
    return CORES_ONE_DATA_PLANE if "SCHEDULER" in family.tags else CORES


def frames_of(family: Family) -> tuple[FrameSize, ...]:
    """The frames of ``family``'s NDRPDR suite, smallest first (see the module's rules)."""
    frames: tuple[FrameSize, ...] = (min_frame_size_b(family), *LARGER_FRAMES)
    stateful = family.profile.transactions
    if stateful is None:
        return frames
    if stateful.kind == "cps":
        return frames[:1]
    return (TPUT_MIN_FRAME_B, *(frame for frame in frames[1:] if frame != IMIX))


def frame_rows(family: Family, test_type: TestType = "ndrpdr") -> tuple[tuple[FrameSize, int], ...]:
    """The (frame size, cores) pairs of ``family``'s suite of ``test_type``, in suite order."""
    pairs = tuple((frame, cores) for frame in frames_of(family) for cores in cores_of(family))
    if test_type != "soak":
        return pairs
    soak_frames = (REASSEMBLY_SOAK_FRAME_B,) if "REASSEMBLY" in family.tags else frames_of(family)
    return tuple((f, c) for f, c in pairs if c == SOAK_CORES and f in soak_frames)


def suite(family: Family, test_type: TestType) -> Suite:
    """``family``'s suite of ``test_type`` (no rows: ``family`` has no such suite)."""
    rows = tuple(
        TestRow(family, test_type, frame, cores) for frame, cores in frame_rows(family, test_type)
    )
    return Suite(family, test_type, rows)


def suite_types(family: Family) -> tuple[TestType, ...]:
    """The test types ``family`` has suites of: those with rows, NDRPDR only if stateful."""
    kinds = TEST_TYPES if family.profile.transactions is None else ("ndrpdr",)
    return tuple(kind for kind in kinds if frame_rows(family, kind))


def suites(families: Iterable[Family]) -> tuple[Suite, ...]:
    """Every suite of ``families``: each family's NDRPDR suite, then its MRR and soak suites."""
    return tuple(suite(family, kind) for family in families for kind in suite_types(family))
