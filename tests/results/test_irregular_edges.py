"""What the judgement says of DUTs at the edges, on records of real sim searches: a dead DUT,
a min load that sends no frame, a flapping DUT, a duplicating one, and the flapping rule itself."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from record_helpers import SIM, sim_search

from ndrpdr.goals import ndr_pdr_goals
from ndrpdr.results.flapping import FLAP_LOSS_RATIO, MIN_FRAMES, TrialView, find_flapping
from ndrpdr.results.irregular import ROBOT_NAMES, IrregularReason, find_irregularities
from ndrpdr.results.schema import validate_record
from ndrpdr.results.searchrecord import SearchRecord
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.model import Topology

GOALS = ndr_pdr_goals(duration_sum_s=2.0, relative_width=0.02)


def _topology(model: str, seed: int = 1) -> Topology:
    topology = load_topology(SIM)
    dut = topology.nodes["DUT1"]
    dut = dataclasses.replace(dut, options={**dut.options, "model": model, "seed": seed})
    return dataclasses.replace(topology, nodes={**topology.nodes, "DUT1": dut})


def _messages(record: SearchRecord, reason: IrregularReason) -> list[str]:
    return [i.message for i in find_irregularities(record, ROBOT_NAMES) if i.reason is reason]


def _searched(topology: Topology, **options: Any) -> tuple[SearchRecord, dict[str, Any]]:
    """A sim search's typed record and its document (checked against the schema)."""
    record = sim_search(topology, **options).record
    document = record.to_json()
    validate_record(document)
    return record, document


def test_a_dead_dut_is_said_to_forward_nothing() -> None:
    typed, record = _searched(_topology("dead"), goals=GOALS)
    assert record["status"] == "failed"
    [message] = _messages(typed, IrregularReason.MIN_LOAD_LOSSY)
    count = len(record["trials"])
    offered = sum(t["offered_count"] for t in record["trials"])
    assert f"the DUT forwarded nothing: 0 of {offered:.0f} frames in all {count} trials" in message
    assert "a lower min_rate (${MIN_RATE}) will not help" in message
    assert "give a lower" not in message
    assert "the DUT forwarded nothing" in record["error"]


def test_a_min_load_below_one_frame_per_trial_says_it_sent_nothing() -> None:
    typed, record = _searched(_topology("dead"), goals=GOALS, min_load_pps=0.4)
    [message] = _messages(typed, IrregularReason.MIN_LOAD_LOSSY)
    assert "is less than one frame per trial" in message and "the DUT lost nothing" in message
    assert message.endswith("so there is no lower bound; give a higher min_rate (${MIN_RATE})")
    assert "loses too much" not in message
    assert [i.reason for i in find_irregularities(typed)] == [IrregularReason.MIN_LOAD_LOSSY]
    at_min = [t for t in record["trials"] if t["load_pps"] <= 0.4]
    assert at_min and all(t["offered_count"] == 0 for t in at_min)
    assert all("sent no frame" in t["warnings"][0] for t in at_min)


def test_a_lossy_min_load_on_a_live_dut_keeps_its_advice() -> None:
    typed, _ = _searched(_topology("sharp"), goals=GOALS, min_load_pps=10e6)
    [message] = _messages(typed, IrregularReason.MIN_LOAD_LOSSY)
    assert "already loses too much" in message and "give a lower min_rate" in message
    assert "forwarded nothing" not in message


def test_a_flapping_dut_is_irregular_with_the_evidence() -> None:
    typed, record = _searched(_topology("flapping", seed=2))
    [message] = _messages(typed, IrregularReason.DUT_FLAPPING)
    assert record["status"] == "failed" and "DUT flapping" in [
        i["reason"] for i in record["irregular"]
    ]
    assert "the DUT's capacity jumped between trials: trial " in message
    assert "irregular=warn (${IRREGULAR})" in message
    trials = {t["index"] + 1: t for t in record["trials"]}
    lossy_number = int(message.split("trials: trial ")[1].split(" ")[0])
    assert (
        trials[lossy_number]["loss_count"]
        >= FLAP_LOSS_RATIO * trials[lossy_number]["offered_count"]
    )


def test_a_duplicating_dut_keeps_its_surplus_and_its_bounds() -> None:
    _, record = _searched(_topology("duplicating", seed=3))
    assert record["status"] == "passed", record["error"]
    surplus = [t for t in record["trials"] if t["surplus_count"] > 0]
    assert surplus, "no trial received duplicates"
    assert all(t["loss_count"] == 0 or t["forwarded_count"] == t["offered_count"] for t in surplus)
    assert all(any("duplicates" in w for w in t["warnings"]) for t in surplus)
    assert record["ndr"]["lower_bound"] is not None


# -- the flapping rule on hand-made trials -------------------------------------------------


def _view(number: int, load: float, lost_share: float, duration: float = 1.0) -> TrialView:
    offered = load * duration
    return TrialView(number, duration, load, offered, offered * lost_share)


def test_rare_contradictions_among_many_passing_trials_are_not_flapping() -> None:
    """Two heavy losses among 40 trials in their band (the wireguard bar run on the lab
    in a box: 2 of 199) are interrupts the exceed ratio absorbs; five of them are not."""
    passing = [_view(n, 0.8e6 + n * 5e3, 0.0) for n in range(3, 41)]
    rare = [_view(1, 0.8e6, 0.12), _view(2, 0.9e6, 0.2), *passing]
    assert find_flapping(rare, 0.005) is None
    more = [*rare, _view(41, 0.85e6, 0.3), _view(42, 0.95e6, 0.15), _view(43, 0.9e6, 0.4)]
    evidence = find_flapping(more, 0.005)
    assert evidence is not None and len(evidence.contradictions) == 5
    assert "5 of 43 trials" in evidence.describe()


def test_two_contradictions_are_glitches_three_are_flapping() -> None:
    two = [_view(1, 1e6, 0.3), _view(2, 1e6, 0.0), _view(3, 0.9e6, 0.25)]
    assert find_flapping(two, 0.005) is None
    three = [*two, _view(4, 0.95e6, 0.2)]
    evidence = find_flapping(three, 0.005)
    assert evidence is not None and len(evidence.contradictions) == 3
    assert evidence.widest.lossy.number == 1 and evidence.widest.passing.number == 2
    assert "trial 1 (1 s at 1 Mpps) lost 30 %" in evidence.describe()
    assert "while trial 2 (1 s at the same load) lost 0 %" in evidence.describe()
    assert "3 of 4 trials" in evidence.describe()


@pytest.mark.parametrize(
    "trials",
    [
        # noise: lossy trials lose less than FLAP_LOSS_RATIO
        [_view(1, 1e6, 0.05), _view(2, 1e6, 0.0), _view(3, 1e6, 0.06), _view(4, 1.1e6, 0.0)],
        # a cliff: the heavy losses are above every passing load
        [_view(1, 2e6, 0.5), _view(2, 1.5e6, 0.3), _view(3, 1e6, 0.0), _view(4, 1e6, 0.0)],
        # longer trials lose more (a buffer): only trials as long contradict
        [_view(1, 1e6, 0.2, 10.0), _view(2, 1e6, 0.0), _view(3, 1e6, 0.3, 10.0)],
        # too few frames for a share to mean anything
        [_view(1, MIN_FRAMES - 1, 0.5), _view(2, MIN_FRAMES - 1, 0.4), _view(3, 2e3, 0.0)],
    ],
    ids=["noise", "cliff", "durations", "few-frames"],
)
def test_what_is_not_flapping(trials: list[TrialView]) -> None:
    assert find_flapping(trials, 0.005) is None
