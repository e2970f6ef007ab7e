"""A run on the active testbed, set up and read back as the keywords and the command line do.

``RunSetup`` is one run's traffic on a testbed (its TG, and the traffic
the record names) and what a search, an MRR run or a soak is set up with
alike there: the load range the user's rates give, checked against the
TG's maximum before any trial (``load_range``, ``soak_settings``), a
stateful family's ramp-up plan (``state_plan``) and reset before each
trial (``trial_reset``), and a search's testbed hooks (the DUTs' health
between trials, their telemetry after it, the ramp-up and the reset:
``search_hooks``). ``search_problem`` and ``allowed_irregular``
read a search's outcome the same way for both.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from ndrpdr.activebed.statecount import state_plan, trial_reset
from ndrpdr.activebed.testbed import ActiveTestbed
from ndrpdr.families import get_family
from ndrpdr.families.stateful import StatePlan
from ndrpdr.results.irregular import irregular_text
from ndrpdr.results.record import RecordTraffic
from ndrpdr.results.soakrecord import SoakSettings
from ndrpdr.searchlimits import Given, check_load_range, default_min_load
from ndrpdr.searchrun import SearchHooks, SearchRun
from ndrpdr.trafficgen.base import TrafficGenerator


@dataclasses.dataclass(frozen=True)
class RunSetup:
    """One run's traffic on ``testbed``: the TG that sends it and what the record names."""

    testbed: ActiveTestbed
    tg: TrafficGenerator
    traffic: RecordTraffic

    def load_range(
        self, min_rate: Given | None, max_rate: Given | None, *, min_percent_of_tg: bool = False
    ) -> tuple[float | None, float]:
        """(min load or None, max load) [pps] of the rates as given, checked against the
        TG's maximum (``check_load_range``: BadSettingError naming the rate)."""
        return check_load_range(
            min_rate,
            max_rate,
            tg_max_pps=self.tg.max_load_pps,
            frame_size=self.traffic.frame_size,
            min_percent_of_tg=min_percent_of_tg,
        )

    def soak_settings(
        self,
        min_rate: Given | None,
        max_rate: Given | None,
        *,
        loss_ratio: float,
        time_budget_s: float,
        min_percent_of_tg: bool = False,
    ) -> SoakSettings:
        """A soak's settings: ``load_range``, the min load ``default_min_load`` when not given."""
        low, high = self.load_range(min_rate, max_rate, min_percent_of_tg=min_percent_of_tg)
        return SoakSettings(
            loss_ratio, default_min_load(high) if low is None else low, high, time_budget_s
        )

    def state_plan(self) -> StatePlan | None:
        """A stateful family's ramp-up and state check (``ndrpdr.rampup``); None for others."""
        traffic = self.traffic
        family = get_family(traffic.profile.name)
        return state_plan(self.testbed, family, self.tg, traffic.frame_size, traffic.directions)

    def trial_reset(self) -> Callable[[], None] | None:
        """A stateful family's reset of the DUTs' state before each trial (CSIT's resetter,
        ``ndrpdr.trialreset``); None for others."""
        return trial_reset(self.testbed, get_family(self.traffic.profile.name))

    def search_hooks(self, hooks: SearchHooks) -> SearchHooks:
        """``hooks`` with the testbed's: telemetry after the search, the DUTs' health after
        each trial, a stateful family's ramp-up before it and reset before each trial."""
        return dataclasses.replace(
            hooks,
            telemetry=self.testbed.collect_telemetry,
            health=self.testbed.check_duts,
            state=self.state_plan(),
            trial_reset=self.trial_reset(),
        )


def search_problem(outcome: SearchRun) -> tuple[str, str] | None:
    """Why a search's caller fails: ("irregular", the irregularities) when they fail the
    run, ("failed", the error) when it failed; None when it passed."""
    if outcome.irregular_failed:  # with the bounds found, if any (a time cap)
        return "irregular", irregular_text(outcome.irregular)
    if outcome.error is not None:
        return "failed", outcome.error
    return None


def allowed_irregular(outcome: SearchRun, accept: str) -> list[str]:
    """``search irregular (<accept>): <message>`` for each irregularity the run passed with
    (``accept``: the setting that allowed it, ``--allow-irregular`` or ``irregular=warn``)."""
    return [f"search irregular ({accept}): {item.message}" for item in outcome.irregular]
