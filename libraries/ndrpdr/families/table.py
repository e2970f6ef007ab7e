"""The suite table: which tests each family's suites hold (family x test type x frame x cores).

As CSIT's suite generator, every family gets one suite per test type
(``ndrpdr``, ``mrr``, ``soak``) and each suite one test per row of frame size and
physical core count, named ``<frame>-<cores>c-<family>-<type>``
(``64B-2c-ethip4-ip4base-ndrpdr``, ``78B-1c-ethip6-ip6base-mrr``) and
tagged ``<frame>`` and ``<cores>C`` (``64B``, ``2C``). The suite carries
the test type's tag (``NDRPDR``, ``MRR``), the family's tags and its id.

The rows, and why (CSIT's rules, from its generator and job specs):

| frame | cores | which families |
| min (64B; 78B for IPv6) | 1, 2, 4 | all but IPsec |
| 1518B | 1, 2 | all |
| 9000B | 1 | all but IPsec |
| IMIX | 1, 2, 4 | all but IPsec reassembly |

CSIT's reports run 1518B at 1-2 cores and 9000B at 1 core only; its
daily IPsec sets run 1518B and IMIX only (no 64B: a tunnel's encryption,
not the frame rate, is what they measure) and reassembly 1518B only (the
DUT-DUT MTU splits a 1518B frame in two). Its daily UDP-encapsulated set
runs only 1518B at 1 core; its generator makes every row, and so does this
table (1518B at 1-2 cores and IMIX, as the other IPsec families), so each
family can be compared across cores. CSIT's daily and weekly jobs run 1, 2
and 4 cores; so does the table. A testbed that cannot give a DUT that many cores (a 2-CPU
machine's local testbed) skips the row saying why, never runs it on fewer.
MRR suites hold the same rows as NDRPDR suites, as CSIT's generator makes
them. A soak test runs for 30 minutes in a lab, so soak suites hold only
the family's first row (its smallest frame; 1518B for IPsec) at 1 and 2
cores (``64B-1c-ethip4-ip4base-soak``).

Stateful (TRex ASTF) families have NDRPDR suites only, as CSIT's (a trial
runs the family's whole transaction scale, not a duration): ``cps`` at
64B, ``tput`` at 100B, 1518B and 9000B, each at 1, 2 and 4 cores.

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
#: Cores of soak rows (each family's first frame row only).
_CORES_SOAK = (1, 2)
#: The smallest frame of IPv4 and L2 families, and of IPv6 ones (CSIT's 64B and 78B) [B incl. FCS].
MIN_FRAME_IP4_B = 64
MIN_FRAME_IP6_B = 78
#: The physical core counts of the table (CSIT's daily and weekly jobs).
CORES: tuple[int, ...] = (1, 2, 4)
#: Cores of 1518B rows (CSIT's reports: 1-2 cores).
_CORES_1518 = (1, 2)
#: Frames that are not the family's smallest, and the cores each runs at.
_LARGER: tuple[tuple[FrameSize, tuple[int, ...]], ...] = (
    (1518, _CORES_1518),
    (9000, (1,)),
    (IMIX, CORES),
)

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


def _is_ipsec(family: Family) -> bool:
    return "IPSEC" in family.tags


#: Frames of stateful families' suites, by transaction kind (CSIT's).
_ASTF_FRAMES: dict[str, tuple[FrameSize, ...]] = {"cps": (64,), "tput": (100, 1518, 9000)}


def frame_rows(family: Family) -> tuple[tuple[FrameSize, tuple[int, ...]], ...]:
    """The (frame size, cores) pairs of ``family``'s suites (see the module's table)."""
    stateful = family.profile.transactions
    if stateful is not None:
        return tuple((frame, CORES) for frame in _ASTF_FRAMES[stateful.kind])
    if _is_ipsec(family):
        if "REASSEMBLY" in family.tags:
            return ((1518, _CORES_1518),)
        return ((1518, _CORES_1518), (IMIX, CORES))
    return ((min_frame_size_b(family), CORES), *_LARGER)


def suite(family: Family, test_type: TestType) -> Suite:
    """``family``'s suite of ``test_type``."""
    pairs = frame_rows(family)
    if test_type == "soak":
        pairs = ((pairs[0][0], _CORES_SOAK),)
    rows = tuple(
        TestRow(family, test_type, frame, cores)
        for frame, cores_list in pairs
        for cores in cores_list
    )
    return Suite(family, test_type, rows)


def suite_types(family: Family) -> tuple[TestType, ...]:
    """The test types ``family`` has suites of: all, or NDRPDR only for a stateful family."""
    return TEST_TYPES if family.profile.transactions is None else ("ndrpdr",)


def suites(families: Iterable[Family]) -> tuple[Suite, ...]:
    """Every suite of ``families``: each family's NDRPDR suite, then its MRR and soak suites."""
    return tuple(suite(family, kind) for family in families for kind in suite_types(family))
