"""A traffic profile: the traffic of a test family as every TG driver reads it.

A profile is made by the family (``ndrpdr.families``) and handed to the TG
drivers: its name (the family's CSIT id), the headers of each direction
(``ndrpdr.profiles.traffic``), whether the DUT forwards it at L2 or L3 (so
L2 frames are addressed to the far TG port), and what a packet costs a
data plane (``ndrpdr.profiles.cost``, read by the sim).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Literal, TypeAlias

from ndrpdr.profiles.addressing import check_flow_count
from ndrpdr.profiles.cost import PacketCost
from ndrpdr.profiles.errors import ProfileError
from ndrpdr.profiles.framesize import FCS_SIZE, IMIX, FrameSize, frame_sizes
from ndrpdr.profiles.layout import FrameLayout
from ndrpdr.profiles.traffic import Headers
from ndrpdr.profiles.transactions import Transactions
from ndrpdr.profiles.variation import base_value, check_range

#: How the DUT forwards a profile's traffic: switching (L2) or routing (L3).
Layer: TypeAlias = Literal["L2", "L3"]
#: A family's own sample of its flows: the profile with at most n flows per direction that a
#: TG sending a frame list of n frames sends instead (``Profile.sampler``).
Sampler: TypeAlias = Callable[[int], "Profile"]


@dataclasses.dataclass(frozen=True)
class Profile:
    """A family's traffic: ``directions[d]`` is what TG port ``d + 1`` sends.

    ``multi_flow``: the flow count may be changed (``with_flows``), as for
    ndrpdr's own ``ethip4udp-ip4base``; CSIT's families keep theirs.
    ``unidirectional``: only direction 0 is sent (CSIT's ``-udir``
    families); ``directions[1]`` is then not used. ``sampler``: where the
    directions' flows must match each other (NAT44: direction 1 returns to
    the sessions direction 0 made), the family's own sample of them for a
    TG that cannot send every flow (``ndrpdr.profiles.frames``); without
    one such a TG sends every direction's evenly spread sample.
    ``transactions``: set for a stateful (TRex ASTF) family, whose load is
    transactions or frames of connections (``ndrpdr.profiles.transactions``).
    """

    name: str
    description: str
    layer: Layer
    directions: tuple[Headers, Headers]
    cost: PacketCost
    multi_flow: bool = False
    unidirectional: bool = False
    sampler: Sampler | None = dataclasses.field(default=None, compare=False, repr=False)
    transactions: Transactions | None = None

    def __post_init__(self) -> None:
        """Check the layer and that both directions use one IP version."""
        if self.layer not in ("L2", "L3"):
            raise ProfileError(f"profile {self.name}: layer {self.layer!r} is not 'L2' or 'L3'")
        if len(self.directions) != 2:
            raise ProfileError(f"profile {self.name}: give the headers of both directions")
        for direction, headers in enumerate(self.directions):
            layout = FrameLayout.of(headers)
            for vary in headers.vary:
                if (
                    vary.field.startswith("eth.")
                    and getattr(headers, vary.field.replace(".", "_")) is None
                ):
                    continue  # the TG's MAC: checked when the frames are built
                try:
                    check_range(layout, vary, base_value(headers, vary.field, "", ""))
                except ProfileError as exc:
                    raise ProfileError(f"profile {self.name} direction {direction}: {exc}") from exc

    @property
    def min_frame_size_b(self) -> int:
        """The smallest frame size of this traffic [B incl. FCS].

        Headers, the 10 B signature and the FCS must fit, and it is at least
        CSIT's minimum: 64 B for IPv4 and L2 families, 78 B for IPv6. A
        tunnelled direction's frames grow to hold the tunnel
        (``FrameLayout.frame_size_b``), so only its inner frame counts here.
        """
        return max(FrameLayout.of(d).nominal_min_frame_size for d in self.directions)

    def check_frame_size(self, frame_size: FrameSize) -> None:
        """ProfileError naming the profile and its minimum for a frame size too small for it.

        IMIX keeps its 64 B frames for every family (as CSIT's IMIX_v4_1);
        they need only hold the headers (an IPv6 family's carry no signature).
        """
        sizes = frame_sizes(frame_size)
        if frame_size == IMIX:
            need = max(
                (
                    FrameLayout.of(d).headers_size + FCS_SIZE
                    for d in self.directions
                    if d.tunnel is None  # a tunnelled direction's frames grow to hold it
                ),
                default=0,
            )
            if min(sizes) < need:
                raise ProfileError(
                    f"profile {self.name}: IMIX's {min(sizes)} B frames cannot hold its "
                    f"{need - FCS_SIZE} B of headers and the FCS"
                )
            return
        if sizes[0] < self.min_frame_size_b:
            raise ProfileError(
                f"profile {self.name}: frame size {sizes[0]} B is below its minimum "
                f"{self.min_frame_size_b} B (headers, signature and FCS; CSIT's 64 B for "
                f"IPv4/L2, 78 B for IPv6)"
            )

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
