"""A test family: one CSIT test id and everything a test of it needs, described once.

A ``Family`` holds its CSIT id and tags, its traffic (``profile``: the
headers of each direction, what varies, what a packet costs a data plane),
the DUT chains it runs on (2-node, 3-node), the VPP plugins it needs, and
what each DUT driver configures for it (``setup``: a basic mode for the
linux, testpmd, l3fwd, ovs and sim drivers, a VPP set-up, and the reason
every other driver cannot run it). Suites, the command line, the keyword's
argument type, libdoc, the docs and every TG driver read it.
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING

from ndrpdr.dut.base import FamilySetup
from ndrpdr.families.vppsetup import VppSetupBase
from ndrpdr.profiles import Profile

if TYPE_CHECKING:
    from ndrpdr.families.stateful import RampUp

#: A CSIT test id: lower-case words joined by '-', or '--' as CSIT's GENEVE ids ("ethip4-ip4base").
_ID = re.compile(r"^[a-z0-9]+(--?[a-z0-9]+)*$")
#: A Robot tag as CSIT writes a family's tags ("IP4FWD", "FIB_20K", "SRv6_1SID").
_TAG = re.compile(r"^[A-Z0-9_][A-Za-z0-9_]*$")


class FamilyDefinitionError(ValueError):
    """A family is described wrongly (names the family and the field)."""


def _for_family(setup: FamilySetup, family: str) -> FamilySetup:
    """``setup`` and its VPP set-up as family ``family``'s (a copied family's get the copy's id).

    FamilyDefinitionError for a VPP set-up that does not derive from
    ``VppSetupBase`` (the vpp driver reads every member it gives).
    """
    vpp = setup.vpp
    if vpp is not None:
        if not isinstance(vpp, VppSetupBase):
            raise FamilyDefinitionError(
                f"family {family}: its VPP set-up ({type(vpp).__name__}) must derive from "
                "ndrpdr.families.vppsetup.VppSetupBase"
            )
        vpp = vpp.for_family(family)
    return dataclasses.replace(setup, family=family, vpp=vpp)


@dataclasses.dataclass(frozen=True)
class CsitDifference:
    """A deliberate difference of a family's traffic from its CSIT TRex profile's.

    ``field``: the header field as the comparison names it (``ip.src``,
    ``udp.sport``, ``frame.length``, ...; ``*`` any field); ``direction``:
    0 or 1, None both; ``reason``: why ours differs. ``renumber``: for an
    address field sent in other prefixes, (CSIT's network, ours), e.g.
    ``("10.10.10.0/24", "198.18.0.0/24")``: CSIT's address is moved into
    our network keeping its host bits and must then equal ours, so the
    host numbers and their order are still compared.
    """

    field: str
    reason: str
    direction: int | None = None
    renumber: tuple[str, str] | None = None

    def covers(self, direction: int, field: str) -> bool:
        """True when this difference is about ``field`` of ``direction``."""
        return self.direction in (None, direction) and self.field in ("*", field)


@dataclasses.dataclass(frozen=True)
class Family:
    """One test family (see the module docstring).

    ``duts``: the DUT counts of the chains it runs on ((1,) 2-node only,
    (2,) 3-node only); ``tags``: CSIT's tags of the family (the test type,
    frame size and core tags are added per test); ``csit``: False for a
    family of our own; ``note``: what a user should know (where it cannot
    run, what it needs); ``ramp_up``: a stateful family's ramp-up before
    its search (``ndrpdr.families.stateful``; None: none).
    """

    id: str
    tags: tuple[str, ...]
    profile: Profile
    setup: FamilySetup
    duts: tuple[int, ...] = (1,)
    plugins: tuple[str, ...] = ()
    csit: bool = True
    note: str = ""
    ramp_up: RampUp | None = None
    csit_profile: str | None = None
    csit_differences: tuple[CsitDifference, ...] = ()

    def __post_init__(self) -> None:
        """FamilyDefinitionError for a bad id, tag, DUT count, or a profile of another name.

        The family's id is passed down to its set-ups (``FamilySetup.family``
        and a VPP set-up's ``family``, which checks its values then), so a
        family module writes it once.
        """
        if not _ID.match(self.id):
            raise FamilyDefinitionError(f"family {self.id!r}: not an id like 'ethip4-ip4base'")
        for tag in self.tags:
            if not _TAG.match(tag):
                raise FamilyDefinitionError(f"family {self.id}: tag {tag!r} is not like 'IP4FWD'")
        if not self.duts or any(n not in (1, 2) for n in self.duts):
            raise FamilyDefinitionError(f"family {self.id}: duts {self.duts!r}: give 1, 2 or both")
        if self.csit_profile is not None and not self.csit:
            raise FamilyDefinitionError(
                f"family {self.id}: csit_profile {self.csit_profile!r} on a family of our own"
            )
        if self.profile.name != self.id:
            raise FamilyDefinitionError(
                f"family {self.id}: its profile ({self.profile.name}) must carry the family's id"
            )
        object.__setattr__(self, "setup", _for_family(self.setup, self.id))

    @property
    def description(self) -> str:
        """The profile's one-line description."""
        return self.profile.description

    @property
    def topologies(self) -> str:
        """``2-node``, ``3-node`` or ``2-node, 3-node``."""
        return ", ".join(f"{n + 1}-node" for n in self.duts)
