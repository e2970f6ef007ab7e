"""run_mrr: trials at one load on the sim TG; on a failure the trials so far are kept and the
traffic is stopped."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ndrpdr.families import profile_of as get_profile
from ndrpdr.mrrrun import MrrSettings, MrrTraffic, run_mrr
from ndrpdr.results.schema import validate_record
from ndrpdr.topology.loader import load_topology
from test_searchrun import SIM, SpyTG

PROFILE = get_profile("ethip4-ip4base")


def _traffic() -> MrrTraffic:
    return MrrTraffic(load_topology(Path(SIM)), PROFILE, 64, 2)


def test_every_trial_is_measured_at_the_load_and_the_record_handed_over() -> None:
    traffic = _traffic()
    tg = SpyTG(traffic.topology)
    seen: list[int] = []
    handed: list[dict[str, Any]] = []
    settings = MrrSettings(load_pps=tg.max_load_pps, trial_duration_s=1.0, trials=4)
    record = run_mrr(
        tg,
        traffic,
        settings,
        on_record=handed.append,
        on_trial=lambda i, _t: seen.append(i),
    )
    assert seen == [1, 2, 3, 4]
    assert tg.calls == 4 and tg.stops == 1
    assert handed == [record]
    assert [t["load_pps"] for t in record["mrr"]["trials"]] == [tg.max_load_pps] * 4
    assert record["status"] == "passed" and len(record["mrr"]["receive_rate_pps"]["values"]) == 4
    validate_record(record)


@pytest.mark.parametrize("error", [RuntimeError("TG lost"), KeyboardInterrupt()])
def test_a_failure_keeps_the_trials_so_far_and_stops_the_traffic(error: BaseException) -> None:
    traffic = _traffic()
    tg = SpyTG(traffic.topology, fail_at=3, error=error)
    handed: list[dict[str, Any]] = []
    settings = MrrSettings(load_pps=1e6, trial_duration_s=1.0, trials=5)
    with pytest.raises(type(error)):
        run_mrr(tg, traffic, settings, on_record=handed.append)
    assert tg.stops == 1
    [record] = handed
    assert record["status"] == "failed"
    assert type(error).__name__ in record["error"]
    assert len(record["mrr"]["trials"]) == 2
    validate_record(record)
