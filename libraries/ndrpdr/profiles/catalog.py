"""The traffic profiles: what the frames carry and how many flows each direction has.

``ethip4-ip4base``
    Ethernet/IPv4/UDP, one flow per direction; the DUT routes (L3).
``ethip4udp-ip4base``
    Ethernet/IPv4/UDP, ``DEFAULT_FLOWS`` (1024) flows per direction unless
    ``flows`` says otherwise; flows differ in IPv4 source address and UDP
    source port (see ``ndrpdr.profiles.addressing``); the DUT routes (L3).
``eth-l2xcbase``
    Ethernet frames with an IPv4/UDP payload, one flow per direction; the
    DUT cross-connects its two ports (L2), so IP addressing is irrelevant
    to forwarding.
"""

from __future__ import annotations

import dataclasses
from typing import Literal, TypeAlias

from ndrpdr.profiles.addressing import check_flow_count
from ndrpdr.profiles.errors import ProfileError

#: How the DUT forwards a profile's traffic: cross-connect (L2) or IPv4 routing (L3).
Layer: TypeAlias = Literal["L2", "L3"]

#: Flows per direction of a multi-flow profile when not given.
DEFAULT_FLOWS = 1024


@dataclasses.dataclass(frozen=True)
class Profile:
    """A traffic profile.

    ``flows_per_direction`` flows are sent in each direction; only
    ``multi_flow`` profiles take more than one.
    """

    name: str
    description: str
    layer: Layer
    flows_per_direction: int = 1
    multi_flow: bool = False

    def __post_init__(self) -> None:
        """Check the layer and flow count (ProfileError names the bad value)."""
        if self.layer not in ("L2", "L3"):
            raise ProfileError(f"profile {self.name}: layer {self.layer!r} is not 'L2' or 'L3'")
        check_flow_count(self.flows_per_direction)
        if not self.multi_flow and self.flows_per_direction != 1:
            raise ProfileError(
                f"profile {self.name} has one flow per direction; "
                f"got flows={self.flows_per_direction!r}"
            )

    def with_flows(self, flows: int) -> Profile:
        """This profile with ``flows`` flows per direction (multi-flow profiles only)."""
        return dataclasses.replace(self, flows_per_direction=flows)


_CATALOG: dict[str, Profile] = {
    p.name: p
    for p in (
        Profile(
            name="ethip4-ip4base",
            description="Ethernet/IPv4/UDP, 1 flow per direction, DUT routes IPv4",
            layer="L3",
        ),
        Profile(
            name="ethip4udp-ip4base",
            description=(
                "Ethernet/IPv4/UDP, N flows per direction (IPv4 source address and "
                "UDP source port vary), DUT routes IPv4"
            ),
            layer="L3",
            flows_per_direction=DEFAULT_FLOWS,
            multi_flow=True,
        ),
        Profile(
            name="eth-l2xcbase",
            description="Ethernet frames (IPv4/UDP payload), 1 flow per direction, "
            "DUT cross-connects its ports (L2)",
            layer="L2",
        ),
    )
}

#: Names of the profiles ``get_profile`` knows, in catalog order.
PROFILE_NAMES: tuple[str, ...] = tuple(_CATALOG)


def get_profile(name: str, *, flows: int | None = None) -> Profile:
    """The profile called ``name`` (case-insensitive), with ``flows`` flows per direction if given.

    Raises ProfileError for an unknown name, a bad flow count, or ``flows``
    other than 1 for a single-flow profile.
    """
    key = name.strip().lower() if isinstance(name, str) else name
    profile = _CATALOG.get(key) if isinstance(key, str) else None
    if profile is None:
        raise ProfileError(
            f"traffic profile {name!r} is not known: give one of {', '.join(PROFILE_NAMES)}"
        )
    if flows is None:
        return profile
    check_flow_count(flows)
    if not profile.multi_flow and flows != 1:
        raise ProfileError(
            f"traffic profile {profile.name} has one flow per direction; got flows={flows!r} "
            f"(multi-flow profiles: {', '.join(n for n, p in _CATALOG.items() if p.multi_flow)})"
        )
    return profile.with_flows(flows)
