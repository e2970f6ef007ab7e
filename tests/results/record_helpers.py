"""Shared pieces of the result tests: real records of searches on the simulator."""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ndrpdr.families import profile_of as get_profile
from ndrpdr.goals import ndr_pdr_goals
from ndrpdr.profiles import FrameSize
from ndrpdr.results.mrrrecord import build_mrr_record
from ndrpdr.results.record import RecordTraffic
from ndrpdr.results.schema import validate_record
from ndrpdr.results.soakrecord import SoakSettings
from ndrpdr.search import Goal, TrialResult
from ndrpdr.searchrun import SearchRun
from ndrpdr.soakrun import SoakRequest, run_soak
from ndrpdr.topology.model import Topology
from ndrpdr.trafficgen.base import TrafficGeneratorError
from ndrpdr.trafficgen.sim.driver import SimTrafficGenerator
from search_call import search_call

SIM = Path(__file__).resolve().parents[2] / "topologies" / "sim.yaml"
PROFILE = get_profile("ethip4-ip4base")


class FailingTG:
    """The sim TG, raising TrafficGeneratorError(``message``) on trial ``fail_at`` (1-based)."""

    def __init__(
        self, topology: Topology, fail_at: int, message: str, frame_size: FrameSize = 64
    ) -> None:
        self.sim = SimTrafficGenerator(topology, frame_size)
        self.fail_at = fail_at
        self.message = message
        self.calls = 0

    @property
    def max_load_pps(self) -> float:
        return self.sim.max_load_pps

    def measure(self, duration: float, load: float) -> TrialResult:
        self.calls += 1
        if self.calls == self.fail_at:
            raise TrafficGeneratorError(self.message)
        return self.sim.measure(duration, load)

    def stop_traffic(self) -> None:
        """Nothing runs between trials."""

    def close(self) -> None:
        """Nothing to release."""


def sim_search(
    topology: Topology,
    *,
    frame_size: FrameSize = 64,
    goals: Sequence[Goal] | None = None,
    fail_at: int | None = None,
    message: str = "TG: gone",
    **options: Any,
) -> SearchRun:
    """A real search of PROFILE on the simulator (``ndr_pdr_goals()`` unless ``goals``).

    With ``fail_at``, the TG raises TrafficGeneratorError(``message``) on that trial.
    ``options`` go to ``run_search`` as they are (``algorithm``, ...).
    """
    tg: Any = (
        SimTrafficGenerator(topology, frame_size)
        if fail_at is None
        else FailingTG(topology, fail_at, message, frame_size)
    )
    return search_call(
        tg,
        topology=topology,
        profile=PROFILE,
        frame_size=frame_size,
        goals=ndr_pdr_goals() if goals is None else goals,
        **options,
    )


def sim_record(topology: Topology, **kwargs: Any) -> dict[str, Any]:
    """The record of ``sim_search(topology, **kwargs)``, validated against the schema."""
    record = sim_search(topology, **kwargs).record.to_json()
    validate_record(record)
    return record


def sim_mrr_record(
    topology: Topology,
    count: int,
    *,
    trial_s: float = 1.0,
    started: datetime.datetime | None = None,
    error: str | None = None,
) -> dict[str, Any]:
    """A real MRR record: ``count`` sim trials of ``trial_s`` [s] at the TG's max load (64 B).

    ``started`` defaults to now (UTC); the record ends ``count x trial_s`` later.
    """
    tg = SimTrafficGenerator(topology, 64)
    trials = [tg.measure(trial_s, tg.max_load_pps) for _ in range(count)]
    start = started or datetime.datetime.now(datetime.timezone.utc)
    return build_mrr_record(
        traffic=RecordTraffic(topology, PROFILE, 64, 2),
        load_pps=tg.max_load_pps,
        trial_duration_s=trial_s,
        trials=trials,
        started=start,
        finished=start + datetime.timedelta(seconds=count * trial_s),
        error=error,
    )


def sim_soak_record(
    topology: Topology,
    *,
    soak_time_s: float = 120.0,
    fail_at: int | None = None,
    message: str = "TG: gone",
) -> dict[str, Any]:
    """A real soak record: a ``soak_time_s`` soak search of PROFILE (64 B) on the simulator.

    With ``fail_at`` the TG raises TrafficGeneratorError(``message``) on that
    trial: the record (failed, with the trials before) is returned all the same.
    """
    tg: Any = (
        SimTrafficGenerator(topology, 64)
        if fail_at is None
        else FailingTG(topology, fail_at, message)
    )
    run = run_soak(
        tg,
        SoakRequest(
            RecordTraffic(topology, PROFILE, 64, 2),
            SoakSettings(1e-7, tg.max_load_pps / 1000.0, tg.max_load_pps, soak_time_s),
            initial_duration_s=1.0,
        ),
    )
    assert (run.failure is None) == (fail_at is None)
    return run.record
