"""run_mrr: trials at one load on the sim TG; on a failure the trials so far are kept, the
traffic is stopped and the record says the error as a search's does (``failure_text``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ndrpdr.families import profile_of as get_profile
from ndrpdr.mrrrun import MrrHooks, MrrRequest, MrrRun, run_mrr
from ndrpdr.results.record import RecordTraffic
from ndrpdr.results.schema import validate_record
from ndrpdr.runflow import INTERRUPTED
from ndrpdr.topology.loader import load_topology
from ndrpdr.trafficgen.base import TrafficGeneratorError
from test_searchrun import SIM, SpyTG

PROFILE = get_profile("ethip4-ip4base")


def _traffic() -> RecordTraffic:
    return RecordTraffic(load_topology(Path(SIM)), PROFILE, 64, 2)


def test_every_trial_is_measured_at_the_load_and_the_record_handed_over() -> None:
    traffic = _traffic()
    tg = SpyTG(traffic.topology)
    seen: list[int] = []
    handed: list[MrrRun] = []
    request = MrrRequest(traffic, load_pps=tg.max_load_pps, trial_duration_s=1.0, trials=4)
    run = run_mrr(
        tg,
        request,
        MrrHooks(progress=lambda step: seen.append(step.trial_number), finish=handed.append),
    )
    assert seen == [1, 2, 3, 4]
    assert tg.calls == 4 and tg.stops == 1
    assert handed == [run] and run.failure is None and run.error is None
    record = run.record
    assert [t["load_pps"] for t in record["mrr"]["trials"]] == [tg.max_load_pps] * 4
    assert record["status"] == "passed" and len(record["mrr"]["receive_rate_pps"]["values"]) == 4
    validate_record(record)


@pytest.mark.parametrize(
    ("error", "recorded"),
    [
        (RuntimeError("TG lost"), "stopped by RuntimeError: TG lost"),
        (KeyboardInterrupt(), INTERRUPTED),
    ],
)
def test_a_foreign_failure_keeps_the_trials_so_far_and_propagates(
    error: BaseException, recorded: str
) -> None:
    traffic = _traffic()
    tg = SpyTG(traffic.topology, fail_at=3, error=error)
    handed: list[MrrRun] = []
    request = MrrRequest(traffic, load_pps=1e6, trial_duration_s=1.0, trials=5)
    with pytest.raises(type(error)):
        run_mrr(tg, request, MrrHooks(finish=handed.append))
    assert tg.stops == 1
    [run] = handed
    assert run.record["status"] == "failed" and run.record["error"] == recorded
    assert len(run.record["mrr"]["trials"]) == 2
    validate_record(run.record)


def test_a_tg_failure_comes_back_in_the_run_with_the_error_as_a_search_says_it() -> None:
    traffic = _traffic()
    failure = TrafficGeneratorError("TG: gone")
    tg = SpyTG(traffic.topology, fail_at=2, error=failure)
    run = run_mrr(tg, MrrRequest(traffic, load_pps=1e6, trial_duration_s=1.0, trials=3))
    assert run.failure is failure and run.error == "TG: gone"  # not "TrafficGeneratorError: ..."
    assert len(run.record["mrr"]["trials"]) == 1 and tg.stops == 1


@pytest.mark.parametrize("fail_at", [None, 2])
def test_a_failing_stop_keeps_the_record_with_the_error_in_it(fail_at: int | None) -> None:
    traffic = _traffic()
    stuck = TrafficGeneratorError("TG: tcpreplay does not stop")
    tg = SpyTG(
        traffic.topology,
        fail_at=fail_at,
        error=TrafficGeneratorError("TG: trial failed"),
        stop_error=stuck,
    )
    handed: list[MrrRun] = []
    request = MrrRequest(traffic, load_pps=1e6, trial_duration_s=1.0, trials=3)
    run = run_mrr(tg, request, MrrHooks(finish=handed.append))
    assert handed == [run] and tg.stops == 1
    stopping = "stopping traffic: TG: tcpreplay does not stop"
    if fail_at is None:
        assert run.error == stopping and run.failure is stuck
        assert len(run.record["mrr"]["trials"]) == 3
    else:
        assert run.error == f"TG: trial failed; {stopping}"
        assert run.failure is not None and str(run.failure) == "TG: trial failed"
    assert run.record["status"] == "failed"
    validate_record(run.record)


def test_a_foreign_exception_of_the_stop_propagates_after_the_record() -> None:
    traffic = _traffic()
    tg = SpyTG(traffic.topology, stop_error=RuntimeError("a bug in stop"))
    handed: list[MrrRun] = []
    request = MrrRequest(traffic, load_pps=1e6, trial_duration_s=1.0, trials=2)
    with pytest.raises(RuntimeError, match="a bug in stop"):
        run_mrr(tg, request, MrrHooks(finish=handed.append))
    [run] = handed
    assert run.error == "stopping traffic: stopped by RuntimeError: a bug in stop"
    assert len(run.record["mrr"]["trials"]) == 2
