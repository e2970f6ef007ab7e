"""The ``trex`` TG driver's description (see ``ndrpdr.drivers``)."""

from __future__ import annotations

from ndrpdr.drivers import DriverDescription
from ndrpdr.trafficgen.base import TrafficContext
from ndrpdr.trafficgen.trex.driver import TrexTrafficGenerator
from ndrpdr.trafficgen.trex.options import TrexOptions


def make_trex_tg(context: TrafficContext) -> TrexTrafficGenerator:
    """The TRex TG for ``context`` (the TG factory of the description)."""
    return TrexTrafficGenerator(
        context.topology,
        context.profile,
        context.frame_size,
        bidirectional=context.bidirectional,
        access=context.access,
    )


DESCRIPTION = DriverDescription(
    name="trex",
    role="TG",
    summary="TRex (stateless mode) on the TG host, driven with TRex's own client",
    options=TrexOptions,
    factory=make_trex_tg,
    access=("ssh", "labbox", "netns", "local"),
)
