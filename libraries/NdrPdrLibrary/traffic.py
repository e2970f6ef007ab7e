"""Opening traffic for a keyword: profile, frame size and TG, and rates in frames per second."""

from __future__ import annotations

import dataclasses

from robot.api import SkipExecution

from ndrpdr.activebed.statecount import state_plan
from ndrpdr.errors import NdrPdrError
from ndrpdr.families import get_family, profile_of
from ndrpdr.profiles import FrameSize as FrameSizeValue
from ndrpdr.profiles import Profile, frame_size_label
from ndrpdr.rampup import RampedTraffic
from ndrpdr.trafficgen.base import TrafficGenerator, UnsupportedTrafficError
from ndrpdr.units import format_rate
from NdrPdrLibrary import robotout
from NdrPdrLibrary.argtypes import FrameSize, Rate, TrafficProfile
from NdrPdrLibrary.context import LibraryContext

#: Slack accepted above the TG's maximum when a rate is compared with it.
_SLACK = 1e-9


@dataclasses.dataclass(frozen=True)
class Traffic:
    """The traffic of one keyword call and the TG driver that sends it."""

    profile: Profile
    frame_size: FrameSizeValue
    tg: TrafficGenerator
    directions: int

    def rate_pps(self, rate: Rate, argument: str) -> float:
        """``rate`` in frames per second, checked against the TG's maximum."""
        value = rate.resolve(self.tg.max_load_pps, self.frame_size)
        if value > self.tg.max_load_pps * (1 + _SLACK):
            raise NdrPdrError(
                f"{argument}={rate} ({format_rate(value)}) is above the traffic generator's "
                f"maximum {format_rate(self.tg.max_load_pps)} for {self.size_label} frames"
            )
        return value

    @property
    def size_label(self) -> str:
        """``64B`` or ``IMIX``."""
        return frame_size_label(self.frame_size)

    def describe(self) -> str:
        """``ethip4-ip4base 64B, 2 direction(s), max 29.762 Mpps``."""
        return (
            f"{self.profile.name} {self.size_label}, {self.directions} direction(s), "
            f"max {format_rate(self.tg.max_load_pps)}"
        )


def open_traffic(
    ctx: LibraryContext,
    profile: TrafficProfile,
    frame_size: FrameSize,
    bidirectional: bool = True,
    flows: int | None = None,
) -> Traffic:
    """The TG driver for this traffic; a testbed that cannot carry it skips the test.

    A unidirectional family (CSIT's ``-udir``) sends direction 0 only.
    """
    chosen = profile_of(profile.value, flows=flows)
    bidirectional = bidirectional and not chosen.unidirectional
    try:
        tg = ctx.testbed.traffic_generator(chosen, frame_size.value, bidirectional=bidirectional)
    except UnsupportedTrafficError as exc:
        raise SkipExecution(f"this testbed cannot run the test: {exc}") from exc
    return Traffic(chosen, frame_size.value, tg, 2 if bidirectional else 1)


def prepared_tg(ctx: LibraryContext, traffic: Traffic) -> TrafficGenerator:
    """The traffic's TG, for a stateful family (NAT44) after its ramp-up and state check.

    Its trials are then preceded by ramp-ups as the state ages
    (``ndrpdr.rampup``); the log says what the ramp-up did and found (a
    warning when the TG sends a sample of the flows). A state check that
    fails raises (StateCheckError names the count). The search keywords
    do this inside their run, where the record keeps it.
    """
    family = get_family(traffic.profile.name)
    plan = state_plan(ctx.testbed, family, traffic.tg, traffic.frame_size, traffic.directions)
    if plan is None:
        return traffic.tg
    ramped = RampedTraffic(traffic.tg, plan)
    try:
        ramped.prepare()
    finally:
        note = ramped.note()
        if plan.flows_sent < plan.flows:
            robotout.warn(note)
        else:
            robotout.info(note)
    return ramped
