"""Opening traffic for a keyword: profile, frame size and TG, and rates in frames per second."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Protocol

from robot.api import SkipExecution

from ndrpdr.console.lines import trial_line
from ndrpdr.console.progress import ProgressOption
from ndrpdr.families import profile_of
from ndrpdr.families.stateful import StatePlan
from ndrpdr.profiles import FrameSize as FrameSizeValue
from ndrpdr.profiles import Profile, frame_size_label
from ndrpdr.rampup import RampedTraffic
from ndrpdr.results.record import RecordTraffic
from ndrpdr.runsetup import RunSetup
from ndrpdr.search.trial import TrialResult
from ndrpdr.searchlimits import Given, check_below_tg_max
from ndrpdr.trafficgen.base import TrafficGenerator, UnsupportedTrafficError
from ndrpdr.trialreset import ResetTraffic
from ndrpdr.units import format_rate
from NdrPdrLibrary import robotout
from NdrPdrLibrary.argtypes import FrameSize, Rate, TrafficProfile
from NdrPdrLibrary.context import LibraryContext


@dataclasses.dataclass(frozen=True)
class Traffic:
    """The traffic of one keyword call and the TG driver that sends it."""

    profile: Profile
    frame_size: FrameSizeValue
    tg: TrafficGenerator
    directions: int

    def rate_pps(self, rate: Rate, argument: str) -> float:
        """``rate`` in frames per second, checked against the TG's maximum
        (``check_below_tg_max``: BadSettingError naming ``argument``)."""
        value = rate.resolve(self.tg.max_load_pps, self.frame_size)
        return check_below_tg_max(
            Given(argument, rate),
            value,
            tg_max_pps=self.tg.max_load_pps,
            frame_size=self.frame_size,
        )

    def setup(self, ctx: LibraryContext) -> RunSetup:
        """This traffic on the library's testbed, as a run is set up on it."""
        record_traffic = RecordTraffic(ctx.topology, self.profile, self.frame_size, self.directions)
        return RunSetup(ctx.testbed, self.tg, record_traffic)

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
    fails raises (StateCheckError names the count). A family with a reset
    before each trial (CSIT's resetter, which its MRR trials and soak call
    too) gets it before every trial (``ndrpdr.trialreset``). The search
    keywords do this inside their run, where the record keeps it.
    """
    setup = traffic.setup(ctx)
    reset = setup.trial_reset()
    tg = _ramped(setup.state_plan(), traffic.tg)
    return tg if reset is None else ResetTraffic(tg, reset)


def _ramped(plan: StatePlan | None, tg: TrafficGenerator) -> TrafficGenerator:
    """``tg`` after the plan's ramp-up and state check (itself without a plan)."""
    if plan is None:
        return tg
    ramped = RampedTraffic(tg, plan)
    try:
        ramped.prepare()
    finally:
        note = ramped.note()
        if plan.flows_sent < plan.flows:
            robotout.warn(note)
        else:
            robotout.info(note)
    return ramped


class _TrialProgress(Protocol):
    """A run's snapshot after a trial (``MrrProgress``, ``SoakProgress``)."""

    @property
    def trial_number(self) -> int: ...

    @property
    def trial(self) -> TrialResult: ...


def trial_printer(ctx: LibraryContext) -> Callable[[_TrialProgress], None] | None:
    """A console line per trial of an MRR run or a soak (``progress trials``), else None."""
    if ctx.progress is not ProgressOption.TRIALS:
        return None

    def show(step: _TrialProgress) -> None:
        robotout.console(trial_line(step.trial_number, step.trial))

    return show
