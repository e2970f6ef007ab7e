"""A stateful family's ramp-up and state check before the search, and ramp-ups as state ages.

CSIT's way (``ndrpdr.families.stateful``): before the search one trial
at the family's ramp-up rate sends every flow about once so that the DUT
makes its state (NAT44: a session per flow); its result is not used.
Then the DUT's state is counted and must equal the flows sent (a NAT
session per flow of direction 0); a shortfall is ramped up again at half
the rate (a DUT that lost frames of the first ramp-up), and fails the test
before the search if it stays. During the search, a trial that might outlive the state (the
last ramp-up began, or ends the trial, ``state_timeout_s`` or more ago)
is preceded by another ramp-up; a lossless trial that sent every flow
refreshes the state as a ramp-up does. An ASTF family's ramp-up rate is
the aggregate load in its unit (``RampUp.per_direction`` False), its trials
last the scale at their load (``StatePlan.trial_duration``) and a complete
one offers the family's expected count (``StatePlan.complete_count``).

``RampedTraffic`` wraps the TG: the search, the calibration and the
latency trials all measure through it. ``to_json`` is the record's
``search.ramp_up``: the ramp-up trials, the flows sent (a TG sending a
frame list sends the family's sample, ``ndrpdr.profiles.pcap_profile``)
and the state found.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from typing import Any

from ndrpdr.errors import NdrPdrError
from ndrpdr.families.stateful import StateCount, StatePlan
from ndrpdr.search.trial import TrialResult
from ndrpdr.trafficgen.base import TrafficGenerator, latency_measurer
from ndrpdr.trafficgen.latency import LatencyResult

#: CSIT's safety margin added to "now" when it decides whether a ramp-up is due [s].
DUE_MARGIN_S = 1.0
#: Ramp-ups before the search at most, each at half the rate of the one before, while the
#: DUT's state falls short and grows.
RAMP_UP_ATTEMPTS = 3
#: A ramp-up again at half the rate lasts at most this share of the state's lifetime (else
#: it is repeated at the same rate), and none follows within it of the last one's end: a
#: 256 s ramp-up of 4128768 flows (det44 on the lab in a box, the third at half the rate)
#: was followed at once by another, before every trial, as its first sessions were 240 s old.
MAX_SHARE = 0.5


class StateCheckError(NdrPdrError):
    """The DUT holds less (or more) state after the ramp-up than the flows sent make."""


@dataclasses.dataclass(frozen=True)
class RampUpTrial:
    """One ramp-up trial: when (seconds after the first), why, and what it counted."""

    at_s: float
    why: str
    result: TrialResult

    def to_json(self) -> dict[str, Any]:
        """The record's entry."""
        r = self.result
        return {
            "at_s": round(self.at_s, 3),
            "why": self.why,
            "duration_s": r.duration,
            "load_pps": r.load,
            "offered": r.offered_count,
            "forwarded": r.forwarded_count,
        }


class RampedTraffic:
    """A TG whose trials are preceded by ramp-ups as the plan's state needs (module docstring)."""

    def __init__(
        self,
        tg: TrafficGenerator,
        plan: StatePlan,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """Wrap ``tg``; nothing is sent before ``prepare`` or the first ``measure``."""
        self.tg, self.plan, self._clock = tg, plan, clock
        #: The directions the ramp-up rate is per: 1 for an aggregate rate (ASTF).
        self.rate_directions = plan.directions if plan.ramp_up.per_direction else 1
        per_direction = min(plan.ramp_up.rate_pps, tg.max_load_pps / self.rate_directions)
        self.rate_pps = per_direction
        self.duration_s = plan.ramp_up.duration_for(plan.flows, plan.flows_sent, per_direction)
        self.trials: list[RampUpTrial] = []
        self.state: StateCount | None = None
        self._first: float | None = None
        self._start: float | None = None  # the last ramp-up's (or refreshing trial's) start
        self._stop: float | None = None

    # -- the TG's contract ------------------------------------------------------------
    @property
    def max_load_pps(self) -> float:
        """The wrapped TG's maximum [pps]."""
        return self.tg.max_load_pps

    @property
    def sends_frame_list(self) -> bool:
        """Whether the wrapped TG sends a frame list."""
        return self.tg.sends_frame_list

    def measure(self, duration: float, load: float) -> TrialResult:
        """One trial of the wrapped TG, after a ramp-up when the state may time out during it."""
        real = (
            duration
            if self.plan.trial_duration is None
            else self.plan.trial_duration(duration, load)
        )
        self._ramp_up_if_due(real)
        start = self._clock()
        result = self.tg.measure(duration, load)
        self._refreshed_by(result, start)
        return result

    def measure_latency(self, duration_s: float, load_pps: float) -> LatencyResult | None:
        """The wrapped TG's latency trial (after a ramp-up if due); None if it has none."""
        measurer = latency_measurer(self.tg)
        if measurer is None:
            return None
        self._ramp_up_if_due(duration_s)
        return measurer.measure_latency(duration_s, load_pps)

    def stop_traffic(self) -> None:
        """Stop the wrapped TG's traffic."""
        self.tg.stop_traffic()

    def close(self) -> None:
        """Close the wrapped TG."""
        self.tg.close()

    # -- the ramp-up ------------------------------------------------------------------
    @property
    def load_pps(self) -> float:
        """The ramp-up's aggregate load [pps]."""
        return self.rate_pps * self.rate_directions

    def prepare(self) -> StateCount | None:
        """Ramp up, then count the state: StateCheckError unless it is one per flow sent.

        A ramp-up after which the DUT holds less state than it should (it
        lost frames: the first frame of a flow makes its session) is
        repeated at half the rate (at most MAX_SHARE of the state's
        lifetime long), up to RAMP_UP_ATTEMPTS ramp-ups, while the count
        grows; CSIT fails at once. None when no DUT counts the
        state (the record says so).
        """
        expected = self.plan.flows_sent
        self.ramp_up("before the search")
        self.state = self.plan.count_state()
        for attempt in range(2, RAMP_UP_ATTEMPTS + 1):
            state = self.state
            if state is None or state.count >= expected:
                break
            if self.duration_s * 2 <= self.plan.ramp_up.state_timeout_s * MAX_SHARE:
                self.rate_pps /= 2
                self.duration_s *= 2
            self.ramp_up(f"attempt {attempt}: {state.count} of {expected} {state.what} before")
            self.state = self.plan.count_state()
            if self.state is None or self.state.count <= state.count:
                break
        state = self.state
        if state is not None and state.count != expected:
            raise StateCheckError(
                f"{state.node}: {state.count} {state.what} after {len(self.trials)} ramp-up "
                f"trial(s) (the last {self.duration_s:.3g} s at {self.load_pps:.6g} pps), "
                f"expected {expected} (one per flow sent; `{state.command}`)"
            )
        return state

    def ramp_up(self, why: str) -> TrialResult:
        """One ramp-up trial now; its result goes to the record, not to the search."""
        start = self._clock()
        if self._first is None:
            self._first = start
        result = self.tg.measure(self.duration_s, self.load_pps)
        self._start, self._stop = start, self._clock()
        self.trials.append(RampUpTrial(start - self._first, why, result))
        return result

    def _ramp_up_if_due(self, duration: float) -> None:
        if self._start is None or self._stop is None:
            self.ramp_up("first trial")
            return
        now = self._clock() + DUE_MARGIN_S
        timeout = self.plan.ramp_up.state_timeout_s
        if now - self._stop < timeout * MAX_SHARE:
            return  # a ramp-up as long as the state lives must not run before every trial
        oldest = max(now - self._start, now - self._stop + duration)
        if oldest >= timeout:
            self.ramp_up(f"state may time out ({oldest:.0f} s since the last ramp-up)")

    def _refreshed_by(self, result: TrialResult, start: float) -> None:
        """A lossless trial that sent every flow in each direction refreshes the state."""
        plan = self.plan
        complete = plan.complete_count
        if complete is None:
            complete = plan.flows_sent * plan.directions
        every_flow = result.offered_count >= complete
        if every_flow and result.loss_ratio == 0.0:
            self._start, self._stop = start, self._clock()

    def to_json(self) -> dict[str, Any]:
        """The record's ``search.ramp_up``."""
        plan, state = self.plan, self.state
        return {
            "rate_pps": self.rate_pps,
            "load_pps": self.load_pps,
            "duration_s": self.duration_s,
            "state_timeout_s": plan.ramp_up.state_timeout_s,
            "flows": plan.flows,
            "flows_sent": plan.flows_sent,
            "trials": [t.to_json() for t in self.trials],
            "state": None
            if state is None
            else {
                "node": state.node,
                "what": state.what,
                "command": state.command,
                "count": state.count,
                "expected": plan.flows_sent,
            },
            "state_note": self.note(),
        }

    def note(self) -> str:
        """One line on what the ramp-up did and found (the record's and the log's)."""
        plan = self.plan
        sample = (
            ""
            if plan.flows_sent == plan.flows
            else f" (the TG sends {plan.flows_sent} of the {plan.flows} flows: a sample)"
        )
        head = (
            f"ramp-up: {len(self.trials)} trial(s), the last {self.duration_s:.3g} s at "
            f"{self.load_pps:.6g} pps{sample}"
        )
        if not self.trials:
            return f"{head}; none ran"
        if self.state is None:
            return f"{head}; state not counted: {plan.uncounted}"
        s = self.state
        return f"{head}; {s.node}: {s.count} {s.what} (expected {plan.flows_sent})"
