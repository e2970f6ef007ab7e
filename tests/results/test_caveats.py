"""TG-limited and incomplete: the record's flags and what message, metadata, tags say."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from ndrpdr.families import profile_of as get_profile
from ndrpdr.goals import ndr_pdr_goals
from ndrpdr.report.summary import search_message, search_metadata
from ndrpdr.results.caveats import (
    INCOMPLETE_TAG,
    TG_LIMITED_TAG,
    caveat_lines,
    caveat_metadata,
    caveat_tags,
)
from ndrpdr.results.schema import validate_record
from ndrpdr.results.tglimit import (
    TG_LIMIT_TOLERANCE,
    UNSENT_REASON,
    goal_tg_limited,
    trial_tg_limited,
)
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.model import Topology
from ndrpdr.trafficgen.sim.driver import SimTrafficGenerator
from search_call import search_call

SIM = Path(__file__).resolve().parents[2] / "topologies" / "sim.yaml"
GOALS = ndr_pdr_goals(duration_sum_s=2.0, relative_width=0.02)


def _record(*, sends_pps: float | None = None, max_search_time_s: float | None = None) -> Any:
    """A real search on sim.yaml (DUT NDR about 4.4 Mpps), its TG sending at most ``sends_pps``."""
    topology: Topology = load_topology(SIM)
    if sends_pps is not None:
        tg = dataclasses.replace(
            topology.tg, options={**topology.tg.options, "max_offered_pps": sends_pps}
        )
        topology = dataclasses.replace(topology, nodes={**topology.nodes, "TG": tg})
    record = search_call(
        SimTrafficGenerator(topology),
        topology=topology,
        profile=get_profile("ethip4-ip4base"),
        frame_size=64,
        goals=GOALS,
        max_search_time_s=max_search_time_s,
    ).record.to_json()
    validate_record(record)
    return record


def _trial(intended: float, offered: float, lost: float = 0.0) -> dict[str, Any]:
    ratio = (intended - offered + lost) / intended
    return {
        "load_pps": intended,
        "duration_s": 1.0,
        "intended_count": intended,
        "offered_count": offered,
        "loss_count": lost,
        "loss_ratio": ratio,
    }


@pytest.mark.parametrize(
    ("offered_share", "limited"),
    [(1.0, False), (TG_LIMIT_TOLERANCE, False), (TG_LIMIT_TOLERANCE - 0.001, True), (0.5, True)],
)
def test_trial_tolerance(offered_share: float, limited: bool) -> None:
    assert trial_tg_limited(_trial(1e6, offered_share * 1e6)) is limited


def test_stretched_trial_is_tg_limited() -> None:
    """All frames sent, but over 1.2 s instead of 1 s: the DUT saw 17 % less than the load."""
    stretched = {**_trial(1e6, 1e6), "effective_duration_s": 1.2}
    assert trial_tg_limited(stretched) is True
    on_time = {**_trial(1e6, 1e6), "effective_duration_s": 1.01}
    assert trial_tg_limited(on_time) is False


def test_goal_limited_by_a_trial_at_its_lower_bound_only() -> None:
    goal = {"loss_ratio": 0.005, "lower_bound": 2e6, "upper_bound": 3e6}
    elsewhere = [_trial(1e6, 0.5e6), _trial(2e6, 2e6), _trial(3e6, 3e6, 1e5)]
    assert goal_tg_limited(goal, elsewhere) is False
    at_lower = [_trial(1e6, 1e6), _trial(2e6, 1.5e6), _trial(3e6, 3e6, 1e5)]
    assert goal_tg_limited(goal, at_lower) is True


def test_trials_at_a_bound_count_together() -> None:
    """One of 20 trials at the bound timed 2.3 % long (every frame sent): not the TG's limit;
    the same 20 trials each 2.1 % long, or one sent at half its rate, are."""
    goal = {"loss_ratio": 0.005, "lower_bound": 2e6, "upper_bound": 3e6}
    on_time = {**_trial(2e6, 2e6), "effective_duration_s": 1.008}
    late = {**_trial(2e6, 2e6), "effective_duration_s": 1.023}
    assert trial_tg_limited(late) is True
    assert goal_tg_limited(goal, [late] + [on_time] * 19) is False
    all_late = {**_trial(2e6, 2e6), "effective_duration_s": 1.021}
    assert goal_tg_limited(goal, [all_late] * 20) is True
    assert goal_tg_limited(goal, [_trial(2e6, 1e6)] + [on_time] * 3) is True  # 12.4 % short


def test_ndr_upper_bound_made_by_unsent_frames_only() -> None:
    """1 % unsent (within the tolerance) but no DUT loss: the NDR upper bound is the TG's."""
    ndr = {"loss_ratio": 0.0, "lower_bound": 1e6, "upper_bound": 2e6}
    assert goal_tg_limited(ndr, [_trial(1e6, 1e6), _trial(2e6, 0.99 * 2e6)]) is True
    dut_lost = [_trial(1e6, 1e6), _trial(2e6, 0.99 * 2e6, 100)]
    assert goal_tg_limited(ndr, dut_lost) is False


def test_slow_tg_record_says_tg_limited_everywhere() -> None:
    record = _record(sends_pps=1e6)
    assert record["tg_limit"]["limited"] is True
    message = search_message(record)
    assert "limited by the traffic generator: sent at most 1 Mpps" in message
    assert f"NDR, PDR: {UNSENT_REASON}" in message  # 1.02 Mpps lost 2 %, none by the DUT
    metadata = search_metadata(record)
    assert metadata["TG_LIMITED"] == "true"
    assert metadata["TG_MAX_OFFERED_PPS"] == "1000000"
    assert metadata["INCOMPLETE"] == "false"
    assert caveat_tags(record) == [TG_LIMITED_TAG, "IRREGULAR"]  # TG_LIMITED is irregular too
    assert record["status"] == "failed"
    assert record["irregular"][0]["tag"] == TG_LIMITED_TAG


def test_fast_tg_record_has_no_caveats() -> None:
    record = _record()
    assert caveat_lines(record) == []
    assert caveat_tags(record) == []
    assert caveat_metadata(record) == {"TG_LIMITED": "false", "INCOMPLETE": "false"}
    assert "limited" not in search_message(record)


def test_time_limit_record_is_incomplete_with_bounds() -> None:
    whole = _record()["search"]["search_time_s"]
    record = _record(max_search_time_s=0.8 * whole)
    assert record["incomplete"] is True and record["status"] == "failed"
    assert record["ndr"]["lower_bound"] is not None  # 80 % of the trials support a bound
    lines = search_message(record).splitlines()
    assert lines[0].startswith("search failed: irregular result: the search hit its time cap of")
    assert any(line.startswith("NDR: lower ") for line in lines)
    assert any(line.startswith("bounds incomplete:") for line in lines)
    assert search_metadata(record)["INCOMPLETE"] == "true"
    assert "NDR_LOWER" in search_metadata(record)
    assert caveat_tags(record) == [INCOMPLETE_TAG, "IRREGULAR", "TIME_CAP"]


def test_records_before_1_1_have_no_caveats() -> None:
    record = _record()
    for key in ("tg_limit", "incomplete"):
        del record[key]
    assert caveat_lines(record) == [] and caveat_metadata(record) == {}
