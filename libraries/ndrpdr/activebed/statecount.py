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
  sim, which keeps no state) counts nothing, and the record says so;
- a stateful ASTF family's flows are its transactions (its scale: a
  session each), its complete trial offers its expected count, and a trial
  lasts its scale at the load (``Transactions``).

``trial_reset`` gives what resets a family's state before each trial
(CSIT's ``${resetter}``): the ``trial_reset`` of the VPP set-up of each DUT
of the path whose driver takes it, run by its CLI; None when no DUT has one
(the sim: nothing to reset).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from ndrpdr.dut.base import DutDriver, DutError, StateCheck, TrialReset
from ndrpdr.families import Family
from ndrpdr.families.stateful import StateCount, StatePlan
from ndrpdr.profiles import FrameSize, pcap_flows
from ndrpdr.trafficgen.base import TrafficGenerator

if TYPE_CHECKING:
    from ndrpdr.activebed.testbed import ActiveTestbed

_log = logging.getLogger(__name__)


def flows_sent(tg: TrafficGenerator, family: Family, frame_size: FrameSize) -> int:
    """Direction 0's flows ``tg`` sends: the frame list's (a sample) or all of them."""
    if family.profile.transactions is not None:
        return family.profile.transactions.scale
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

    traffic = family.profile.transactions
    uncounted = f"{key}'s {driver} driver keeps no count of {family.id}'s state"
    if check is None and family.setup.vpp_for(driver) is not None:
        uncounted = f"CSIT checks no state count of {family.id} after its ramp-up"
    return StatePlan(
        family=family.id,
        ramp_up=ramp_up,
        flows=family.profile.directions[0].flows if traffic is None else traffic.scale,
        flows_sent=flows_sent(tg, family, frame_size),
        directions=directions,
        count_state=count_state,
        uncounted=uncounted,
        complete_count=None if traffic is None else traffic.expected(),
        trial_duration=None if traffic is None else (lambda _, load: traffic.duration_s(load)),
    )


def _reset_one(
    key: str,
    dut: DutDriver,
    reset: TrialReset,
    sleep: Callable[[float], None],
    clock: Callable[[], float],
) -> None:
    """``reset``'s commands on ``dut``, then its count polled until zero (DutError after its
    timeout, naming the node, the count and the command)."""
    for command in reset.commands:
        dut.run_cli(command)
    check = reset.until_empty
    if check is None:
        return
    deadline = clock() + reset.timeout_s
    while True:
        output = dut.run_cli(check.command)
        if output is None:
            return
        try:
            left = check.parse(output)
        except ValueError as exc:
            raise DutError(f"{key}: counting {check.what}: {exc}") from exc
        if left == 0:
            return
        if clock() >= deadline:
            raise DutError(
                f"{key}: {reset.what}: {left} {check.what} left after {reset.timeout_s:g} s "
                f"(`{check.command}`)"
            )
        sleep(reset.poll_s)


def trial_reset(
    testbed: ActiveTestbed,
    family: Family,
    *,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> Callable[[], None] | None:
    """What resets ``family``'s state on ``testbed`` before each trial (None: nothing does)."""
    resets: list[tuple[str, TrialReset]] = []
    for key in testbed.path.duts:
        vpp = family.setup.vpp_for(testbed.topology.nodes[key].driver)
        if vpp is not None and vpp.trial_reset is not None:
            resets.append((key, vpp.trial_reset))
    if not resets:
        return None

    def reset() -> None:
        for key, what in resets:
            dut = testbed.duts.get(key)
            if dut is None:
                continue
            _log.debug("%s: %s before the trial", key, what.what)
            _reset_one(key, dut, what, sleep, clock)

    return reset
