"""One soak search run to its record: the search, then the record, failed or not.

The run flow beside ``mrrrun``'s: whatever happens during the search (a TG
error, a Robot timeout, Ctrl-C) the traffic is stopped and the record is
built from the trials measured so far and the estimate they gave
(``ndrpdr.results.soakrecord``), handed to ``on_record`` before the error
goes on (``status`` "failed" with the error named as a search's record
names it: what the TG raised, ``ndrpdr.searchrun.failure_text``).
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

from ndrpdr.results.soakrecord import SoakSettings, SoakTraffic, build_soak_record
from ndrpdr.search.soak import SoakProgress, SoakResult, soak_search
from ndrpdr.search.soakfit import Estimate
from ndrpdr.search.trial import Measurer, TrialResult
from ndrpdr.searchrun import failure_text, measurer_cause


def run_soak(
    tg: Measurer,
    traffic: SoakTraffic,
    settings: SoakSettings,
    *,
    initial_duration: float,
    on_record: Callable[[dict[str, Any]], None],
    stop_traffic: Callable[[], None],
    on_trial: Callable[[int, TrialResult], None] | None = None,
) -> tuple[SoakResult, dict[str, Any]]:
    """Search, then return the result and the soak record (also given to ``on_record``).

    ``on_trial(number, trial)`` is called after each trial (1-based), e.g.
    for a console line; ``stop_traffic`` after the search, whatever happened.
    """
    measured: list[TrialResult] = []
    estimate: list[Estimate] = []
    started = datetime.datetime.now(datetime.timezone.utc)
    error: str | None = None
    result: SoakResult | None = None

    def progress(step: SoakProgress) -> None:
        measured.append(step.trial)
        estimate[:] = [step.estimate]
        if on_trial is not None:
            on_trial(step.trial_number, step.trial)

    try:
        result = soak_search(
            tg,
            settings.min_load_pps,
            settings.max_load_pps,
            time_budget=settings.time_budget_s,
            loss_ratio=settings.loss_ratio,
            initial_duration=initial_duration,
            progress=progress,
        )
    except BaseException as exc:  # a Robot timeout or Ctrl-C too: the record says so
        error = failure_text(measurer_cause(exc) or exc)  # as a search's record says it
        raise
    finally:
        stop_traffic()
        record = build_soak_record(
            traffic=traffic,
            settings=settings,
            trials=measured,
            estimate=estimate[0] if estimate else None,
            started=started,
            finished=datetime.datetime.now(datetime.timezone.utc),
            stopped=None if result is None else result.stopped,
            error=error,
        )
        on_record(record)
    return result, record
