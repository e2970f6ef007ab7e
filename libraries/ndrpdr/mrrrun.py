"""One MRR measurement, CSIT's MRR test type: ``trials`` trials at one load, no search.

The run flow beside ``searchrun``'s: the trials run in order, and whatever
happens (a TG error, a Robot timeout, Ctrl-C) the traffic is stopped and the
record is built from the trials measured so far and handed to ``on_record``
before the error goes on (``status`` "failed" with the error named).
"""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Callable
from typing import Any

from ndrpdr.profiles import FrameSize, Profile
from ndrpdr.results.mrrrecord import build_mrr_record
from ndrpdr.search.trial import TrialResult
from ndrpdr.topology.model import Topology
from ndrpdr.trafficgen.base import TrafficGenerator


@dataclasses.dataclass(frozen=True)
class MrrSettings:
    """What one MRR measurement sends: ``trials`` trials of ``trial_duration_s`` at ``load_pps``."""

    load_pps: float
    trial_duration_s: float
    trials: int


@dataclasses.dataclass(frozen=True)
class MrrTraffic:
    """The traffic measured: on which testbed, which profile and frames, how many directions."""

    topology: Topology
    profile: Profile
    frame_size: FrameSize
    directions: int


def run_mrr(
    tg: TrafficGenerator,
    traffic: MrrTraffic,
    settings: MrrSettings,
    *,
    on_record: Callable[[dict[str, Any]], None],
    on_trial: Callable[[int, TrialResult], None] | None = None,
) -> dict[str, Any]:
    """Measure, then return the MRR record (also given to ``on_record``, failed or not).

    ``on_trial(index, trial)`` is called after each trial (1-based), e.g. for
    a console line.
    """
    measured: list[TrialResult] = []
    started = datetime.datetime.now(datetime.timezone.utc)
    error: str | None = None
    try:
        for index in range(1, settings.trials + 1):
            trial = tg.measure(settings.trial_duration_s, settings.load_pps)
            measured.append(trial)
            if on_trial is not None:
                on_trial(index, trial)
    except BaseException as exc:  # a Robot timeout or Ctrl-C too: the record says so
        error = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        raise
    finally:
        tg.stop_traffic()
        record = build_mrr_record(
            topology=traffic.topology,
            profile=traffic.profile,
            frame_size=traffic.frame_size,
            directions=traffic.directions,
            load_pps=settings.load_pps,
            trial_duration_s=settings.trial_duration_s,
            trials=measured,
            started=started,
            finished=datetime.datetime.now(datetime.timezone.utc),
            error=error,
        )
        on_record(record)
    return record
