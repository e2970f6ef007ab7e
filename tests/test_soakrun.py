"""run_soak: the soak search's record comes back however the run ends, also when stopping
traffic fails, with the error said as a search's record says it."""

from __future__ import annotations

import pytest

from ndrpdr.families import profile_of as get_profile
from ndrpdr.results.record import RecordTraffic
from ndrpdr.results.schema import validate_record
from ndrpdr.results.soakrecord import SoakSettings
from ndrpdr.search import MeasurerFailedError
from ndrpdr.soakrun import SoakHooks, SoakRequest, SoakRun, run_soak
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.model import Topology
from ndrpdr.trafficgen.base import TrafficGeneratorError
from test_searchrun import SIM, SpyTG

PROFILE = get_profile("ethip4-ip4base")


@pytest.fixture(scope="module")
def topology() -> Topology:
    return load_topology(SIM)


def _request(topology: Topology, tg: SpyTG) -> SoakRequest:
    high = tg.max_load_pps
    return SoakRequest(
        RecordTraffic(topology, PROFILE, 64, 2),
        SoakSettings(1e-7, high / 1000.0, high, 60.0),
        initial_duration_s=1.0,
    )


def test_a_passing_soak_hears_every_trial_and_comes_back_with_its_record(
    topology: Topology,
) -> None:
    tg = SpyTG(topology)
    seen: list[int] = []
    handed: list[SoakRun] = []
    hooks = SoakHooks(progress=lambda step: seen.append(step.trial_number), finish=handed.append)
    run = run_soak(tg, _request(topology, tg), hooks)
    assert handed == [run] and run.failure is None and run.result is not None
    assert seen == list(range(1, tg.calls + 1)) and tg.stops == 1
    assert run.record["soak"]["trial_count"] == tg.calls and run.record["status"] == "passed"
    validate_record(run.record)


def test_a_tg_failure_comes_back_as_raised_with_the_tgs_error_in_the_record(
    topology: Topology,
) -> None:
    tg = SpyTG(topology, fail_at=3, error=TrafficGeneratorError("TG: gone"))
    run = run_soak(tg, _request(topology, tg))
    assert isinstance(run.failure, MeasurerFailedError)  # its message names the trial
    assert run.error == "TG: gone" and run.result is None
    assert run.record["soak"]["trial_count"] == 2 and tg.stops == 1
    validate_record(run.record)


@pytest.mark.parametrize("fail_at", [None, 3])
def test_a_failing_stop_keeps_the_record_with_the_error_in_it(
    topology: Topology, fail_at: int | None
) -> None:
    stuck = TrafficGeneratorError("TG: tcpreplay does not stop")
    tg = SpyTG(topology, fail_at=fail_at, error=TrafficGeneratorError("TG: gone"), stop_error=stuck)
    handed: list[SoakRun] = []
    run = run_soak(tg, _request(topology, tg), SoakHooks(finish=handed.append))
    assert handed == [run] and tg.stops == 1
    stopping = "stopping traffic: TG: tcpreplay does not stop"
    if fail_at is None:
        assert run.error == stopping and run.failure is stuck and run.result is not None
    else:
        assert run.error == f"TG: gone; {stopping}"
        assert isinstance(run.failure, MeasurerFailedError)
        assert run.record["soak"]["trial_count"] == 2
    assert run.record["status"] == "failed"
    validate_record(run.record)


def test_a_ctrl_c_propagates_after_the_record(topology: Topology) -> None:
    tg = SpyTG(topology, fail_at=2, error=KeyboardInterrupt())
    handed: list[SoakRun] = []
    with pytest.raises(KeyboardInterrupt):
        run_soak(tg, _request(topology, tg), SoakHooks(finish=handed.append))
    [run] = handed
    assert run.error == "interrupted (Ctrl-C or SIGTERM)" and tg.stops == 1
    assert run.record["soak"]["trial_count"] == 1
