"""A traffic profile: the traffic of a test family as every TG driver reads it.

A profile is made by the family (``ndrpdr.families``) and handed to the TG
drivers: its name (the family's CSIT id), the headers of each direction
(``ndrpdr.profiles.traffic``), whether the DUT forwards it at L2 or L3 (so
L2 frames are addressed to the far TG port), and what a packet costs a
data plane (``ndrpdr.profiles.cost``, read by the sim).
"""

from __future__ import annotations

import dataclasses
from typing import Literal, TypeAlias

from ndrpdr.profiles.addressing import check_flow_count
from ndrpdr.profiles.cost import PacketCost
from ndrpdr.profiles.errors import ProfileError
from ndrpdr.profiles.traffic import Headers

#: How the DUT forwards a profile's traffic: switching (L2) or routing (L3).
Layer: TypeAlias = Literal["L2", "L3"]


@dataclasses.dataclass(frozen=True)
class Profile:
    """A family's traffic: ``directions[d]`` is what TG port ``d + 1`` sends.

    ``multi_flow``: the flow count may be changed (``with_flows``), as for
    ndrpdr's own ``ethip4udp-ip4base``; CSIT's families keep theirs.
    """

    name: str
    description: str
    layer: Layer
    directions: tuple[Headers, Headers]
    cost: PacketCost
    multi_flow: bool = False

    def __post_init__(self) -> None:
        """Check the layer and that both directions use one IP version."""
        if self.layer not in ("L2", "L3"):
            raise ProfileError(f"profile {self.name}: layer {self.layer!r} is not 'L2' or 'L3'")
        if len(self.directions) != 2:
            raise ProfileError(f"profile {self.name}: give the headers of both directions")

    @property
    def flows_per_direction(self) -> int:
        """Flows (distinct frames) of the direction that has most."""
        return max(d.flows for d in self.directions)

    def with_flows(self, flows: int) -> Profile:
        """This profile with ``flows`` flows per direction (multi-flow profiles only)."""
        check_flow_count(flows)
        if not self.multi_flow:
            if flows == self.flows_per_direction:
                return self
            raise ProfileError(
                f"traffic profile {self.name} has {self.flows_per_direction} flow(s) per "
                f"direction, as CSIT's; got flows={flows!r}"
            )
        first, second = self.directions
        return dataclasses.replace(
            self, directions=(first.with_flows(flows), second.with_flows(flows))
        )

    def describe_directions(self) -> tuple[str, str]:
        """Each direction's headers in one line (for the record and the log)."""
        first, second = self.directions
        return first.describe(), second.describe()
