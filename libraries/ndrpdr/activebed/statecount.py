"""A stateful family's plan on this testbed: the flows its TG sends, and who counts the state.

``state_plan`` gives the ``StatePlan`` the run flow's ramp-up needs
(``ndrpdr.rampup``) for a family with a ``ramp_up``, None for any other:

- the flows sent: a TG that sends a frame list (``sends_frame_list``: the
  local TG's pcap) sends the family's sample
  (``ndrpdr.profiles.pcap_flows``), every other TG every flow;
- the state is counted on DUT1 of the path, as CSIT does ("on DUT1 node"),
  by its driver's CLI (``run_cli``) with the ``state_check`` of the
  family's VPP set-up, when the driver takes that set-up (its
  description's ``family_setup``); a DUT whose driver has neither (the
  sim, which keeps no state) counts nothing, and the record says so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ndrpdr.dut.base import DutError, StateCheck
from ndrpdr.families import Family
from ndrpdr.families.stateful import StateCount, StatePlan
from ndrpdr.profiles import FrameSize, pcap_flows
from ndrpdr.trafficgen.base import TrafficGenerator

if TYPE_CHECKING:
    from ndrpdr.activebed.testbed import ActiveTestbed


def flows_sent(tg: TrafficGenerator, family: Family, frame_size: FrameSize) -> int:
    """Direction 0's flows ``tg`` sends: the frame list's (a sample) or all of them."""
    if tg.sends_frame_list:
        return pcap_flows(family.profile, frame_size, 0)
    return family.profile.directions[0].flows


def _check(testbed: ActiveTestbed, family: Family, key: str) -> StateCheck | None:
    vpp = family.setup.vpp_for(testbed.topology.nodes[key].driver)
    return None if vpp is None else vpp.state_check


def state_plan(
    testbed: ActiveTestbed,
    family: Family,
    tg: TrafficGenerator,
    frame_size: FrameSize,
    directions: int,
) -> StatePlan | None:
    """The ramp-up plan of ``family`` on ``testbed`` (None: the family has no ramp-up)."""
    ramp_up = family.ramp_up
    if ramp_up is None:
        return None
    key = testbed.path.duts[0]
    check = _check(testbed, family, key)
    driver = testbed.topology.nodes[key].driver

    def count_state() -> StateCount | None:
        dut = testbed.duts.get(key)
        if check is None or dut is None:
            return None
        output = dut.run_cli(check.command)
        if output is None:
            return None
        try:
            count = check.parse(output)
        except ValueError as exc:
            raise DutError(f"{key}: counting {check.what}: {exc}") from exc
        return StateCount(key, check.what, check.command, count)

    return StatePlan(
        family=family.id,
        ramp_up=ramp_up,
        flows=family.profile.directions[0].flows,
        flows_sent=flows_sent(tg, family, frame_size),
        directions=directions,
        count_state=count_state,
        uncounted=f"{key}'s {driver} driver keeps no count of {family.id}'s state",
    )
