"""What a stateful family needs before its search: a ramp-up of its flows and a state check.

A stateful data plane (NAT44 keeps one session per flow) measured from
cold spends its first trials creating state, so CSIT sends "ramp-up
traffic" first: one trial at a low rate sending every flow about once,
whose result is not used, then checks that the DUT holds the state it
should (``Verify DET44 sessions number``), then searches. Sessions time out
(VPP's UDP sessions after 300 s), so CSIT ramps up again before a trial
when the last ramp-up is older than its ``state_timeout`` (240 s); a
lossless trial that sent every flow counts as a ramp-up.

``RampUp`` is that description, on the family (``Family.ramp_up``): the
rate and duration CSIT's suite gives for the family's whole flow set; a TG
that sends only a sample of the flows (the local TG's frame list) ramps
up for as many frames per flow, so for a shorter time. How one DUT driver
counts the state is the ``state_check`` of its set-up (VPP's:
``ndrpdr.dut.base.StateCheck``, a CLI command and the parser of its output). The run flow does the
rest (``ndrpdr.rampup``).

A stateful ASTF family (``Profile.transactions``) ramps up by transactions:
CSIT's ``ramp_up_rate`` is ASTF's multiplier (transactions started per
second, both directions together) and, its ``ramp_up_duration`` unset, the
ramp-up runs the whole scale (``scale / rate``); ``astf_ramp_up`` turns
that into a ``RampUp`` whose rate is the aggregate load in the family's
unit (``per_direction`` False: the transactions, or their frames for tput).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

from ndrpdr.families.model import FamilyDefinitionError
from ndrpdr.profiles.transactions import Transactions

#: CSIT's ``state_timeout``: ramp up again before a trial once the last ramp-up is this old [s].
STATE_TIMEOUT_S = 240.0
#: The shortest ramp-up trial [s] (a sample of a few flows still gets a real trial).
MIN_RAMP_UP_S = 0.1


@dataclasses.dataclass(frozen=True)
class RampUp:
    """CSIT's ramp-up of a family: ``rate_pps`` per direction for ``duration_s`` (all flows).

    ``state_timeout_s``: the state's lifetime the run flow assumes
    (CSIT's 240 s for VPP's 300 s UDP session timeout). ``per_direction``
    False: ``rate_pps`` is the aggregate load in the family's unit (an
    ASTF family's, ``astf_ramp_up``), whatever the directions.
    """

    rate_pps: float
    duration_s: float
    state_timeout_s: float = STATE_TIMEOUT_S
    per_direction: bool = True

    def __post_init__(self) -> None:
        """FamilyDefinitionError for a rate, duration or timeout that is not a positive number."""
        for name in ("rate_pps", "duration_s", "state_timeout_s"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
                raise FamilyDefinitionError(f"ramp-up: {name}={value!r} must be a number > 0")
            if not math.isfinite(value):
                raise FamilyDefinitionError(f"ramp-up: {name}={value!r} must be finite")

    def passes(self, flows: int) -> float:
        """Frames sent per flow of a direction of ``flows`` flows (CSIT's: a little over 1)."""
        return self.rate_pps * self.duration_s / flows

    def duration_for(self, flows: int, flows_sent: int, rate_pps: float) -> float:
        """Seconds to send ``flows_sent`` of ``flows`` flows as often as CSIT's ramp-up does,
        at ``rate_pps`` per direction [s] (at least MIN_RAMP_UP_S)."""
        frames = self.passes(flows) * flows_sent
        return max(MIN_RAMP_UP_S, frames / rate_pps)


def astf_ramp_up(traffic: Transactions, rate_tps: float) -> RampUp:
    """CSIT's ramp-up of an ASTF family: ``rate_tps`` transactions per second (its suite's
    ``ramp_up_rate``) for the family's whole scale; FamilyDefinitionError for a rate <= 0."""
    if isinstance(rate_tps, bool) or not isinstance(rate_tps, int | float) or not rate_tps > 0:
        raise FamilyDefinitionError(f"ramp-up: rate_tps={rate_tps!r} must be a number > 0")
    load = rate_tps if traffic.kind == "cps" else rate_tps * traffic.packets_aggregated
    return RampUp(rate_pps=load, duration_s=traffic.scale / rate_tps, per_direction=False)


@dataclasses.dataclass(frozen=True)
class StateCount:
    """The state a DUT held when counted: ``count`` of ``what`` on ``node`` (by ``command``)."""

    node: str
    what: str
    command: str
    count: int


@dataclasses.dataclass(frozen=True)
class StatePlan:
    """What a stateful test's ramp-up needs (``ndrpdr.activebed.statecount``).

    ``flows``: direction 0's flows in the family's traffic; ``flows_sent``:
    how many of them the TG sends (fewer for a frame-list TG's sample);
    ``directions``: directions sent; ``count_state()``: the DUT's state now,
    None when no DUT on the path can count it (the sim).
    ``complete_count``: what a trial that sent every flow offers (None:
    ``flows_sent`` x ``directions``; an ASTF family's expected count);
    ``trial_duration(duration, load)``: how long a trial really runs (None:
    ``duration``; an ASTF trial runs its scale at the load).
    """

    family: str
    ramp_up: RampUp
    flows: int
    flows_sent: int
    directions: int
    count_state: Callable[[], StateCount | None]
    uncounted: str = "no DUT driver on the path counts this family's state"
    complete_count: int | None = None
    trial_duration: Callable[[float, float], float] | None = None
