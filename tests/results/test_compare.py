"""The comparison of two runs (ndrpdr.trend.compare) on records of real sim searches.

Each NDRPDR record comes from a real ``run_search`` on sim.yaml: seed 1 is a
DUT of capacity 4.419 Mpps, seed 2303 one of 4.189 Mpps (5.2 % less; the
sim's ``make_model`` draws the capacity from the seed). MRR records are
built by ``build_mrr_record`` from real simulator trials whose receive
rates the test then sets (a stand-in for a DUT of that rate, as said).
"""

from __future__ import annotations

import copy
import dataclasses
import datetime
import json
import re
import statistics
from pathlib import Path
from typing import Any

import pytest
from record_helpers import SIM, sim_mrr_record, sim_record

from ndrpdr.goals import ndr_pdr_goals
from ndrpdr.outdir.runfiles import RunFilesError, read_run
from ndrpdr.results.schema import validate_record
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.model import Topology
from ndrpdr.trend.compare import compare_runs, mrr_value

NAME = "64B-1c-ethip4-ip4base-ndrpdr"
GOALS = ndr_pdr_goals(duration_sum_s=2.0)  # goal width 0.5 % each
WIDE = ndr_pdr_goals(duration_sum_s=2.0, relative_width=0.1)

START = datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc)


def _dut(seed: int) -> Topology:
    topology = load_topology(SIM)
    dut = topology.nodes["DUT1"]
    dut = dataclasses.replace(dut, options={**dut.options, "seed": seed})
    return dataclasses.replace(topology, nodes={**topology.nodes, "DUT1": dut})


@pytest.fixture(scope="module")
def fast() -> dict[str, Any]:
    return sim_record(_dut(1), goals=GOALS)


@pytest.fixture(scope="module")
def slow() -> dict[str, Any]:
    return sim_record(_dut(2303), goals=GOALS)


def _rows(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    comparison = compare_runs({NAME: a}, {NAME: b})
    return {row.metric: row for row in comparison.rows}


def test_the_same_dut_twice_is_within_noise(fast: dict[str, Any]) -> None:
    again = sim_record(_dut(1), goals=GOALS)
    rows = _rows(fast, again)
    assert set(rows) == {"NDR lower", "NDR cond", "PDR lower", "PDR cond"}
    for row in rows.values():
        assert row.verdict == "within noise"
        assert abs(row.change_pct) <= row.noise_pct
        assert 0.9 <= row.noise_pct <= 1.1  # 0.5 % goal width per search, two searches
    assert compare_runs({NAME: fast}, {NAME: again}).regressions(0.0) == ()


def test_a_five_percent_slower_dut_is_worse_beyond_noise(
    fast: dict[str, Any], slow: dict[str, Any]
) -> None:
    rows = _rows(fast, slow)
    for metric in ("NDR lower", "PDR lower"):
        row = rows[metric]
        assert row.verdict == "worse"
        assert -6.0 < row.change_pct < -4.5  # the capacities differ by 5.2 %
        assert row.a_pps == pytest.approx(fast[metric[:3].lower()]["lower_bound"])
        assert row.b_pps == pytest.approx(slow[metric[:3].lower()]["lower_bound"])
        assert row.regressed(3.0) and not row.regressed(6.0)
    comparison = compare_runs({NAME: fast}, {NAME: slow})
    assert {row.metric for row in comparison.regressions(3.0)} == {"NDR lower", "PDR lower"}
    assert comparison.regressions(6.0) == ()


def test_a_faster_dut_is_better_and_no_regression(
    fast: dict[str, Any], slow: dict[str, Any]
) -> None:
    rows = _rows(slow, fast)
    assert rows["NDR lower"].verdict == rows["PDR lower"].verdict == "better"
    assert rows["NDR lower"].change_pct > 4.5
    assert compare_runs({NAME: slow}, {NAME: fast}).regressions(0.0) == ()


def test_a_change_smaller_than_both_widths_is_noise(fast: dict[str, Any]) -> None:
    """Searches to a 10 % goal width cannot tell a 5 % step: 10 % + 10 % of noise."""
    wide_fast = sim_record(_dut(1), goals=WIDE)
    wide_slow = sim_record(_dut(2303), goals=WIDE)
    rows = _rows(wide_fast, wide_slow)
    for metric in ("NDR lower", "PDR lower"):
        assert rows[metric].verdict == "within noise"
        assert rows[metric].noise_pct >= 22.0  # 2 x 0.1 / (1 - 0.1): [lower, upper] of each
        assert -6.0 < rows[metric].change_pct <= 0.0  # both may even land on one bound
        assert not rows[metric].regressed(0.0)


def test_a_result_wider_than_its_goal_counts_its_own_width(fast: dict[str, Any]) -> None:
    """A capped search ends wider than its goal; the record's bounds are widened here
    to 4 % (the simulator's searches all reach their goal width)."""
    wider = copy.deepcopy(fast)
    wider["ndr"]["upper_bound"] = wider["ndr"]["lower_bound"] * 1.04
    rows = _rows(fast, wider)
    # the goal's span (0.5 % / 0.995) for A, the record's own 4 % for B
    assert rows["NDR lower"].noise_pct == pytest.approx(0.5 / 0.995 + 4.0, rel=1e-6)


def test_a_bound_lost_in_b_is_a_regression(fast: dict[str, Any]) -> None:
    """A search in B that failed before finding an NDR (its bounds set to null here: the
    simulator's searches do not fail on their own) fails the gate at any threshold."""
    failed = copy.deepcopy(fast)
    failed["status"], failed["incomplete"] = "failed", True
    failed["ndr"] = dict.fromkeys(failed["ndr"])
    comparison = compare_runs({NAME: fast}, {NAME: failed})
    rows = {row.metric: row for row in comparison.rows}
    assert rows["NDR lower"].verdict == "lost in B" and rows["NDR lower"].b_pps is None
    assert rows["NDR lower"].note == "B failed"
    assert rows["PDR lower"].verdict == "within noise"
    assert [row.metric for row in comparison.regressions(100.0)] == ["NDR lower"]


def test_tests_in_one_run_only_are_listed(fast: dict[str, Any], slow: dict[str, Any]) -> None:
    other_size = copy.deepcopy(slow)
    other_size["profile"]["frame_size"] = 1518  # same name, other frame size: no match
    comparison = compare_runs({NAME: fast, "only-a": fast}, {NAME: other_size, "only-b": slow})
    assert comparison.rows == ()
    assert [(k.name, k.frame_size) for k in comparison.only_a] == [(NAME, "64"), ("only-a", "64")]
    assert [(k.name, k.frame_size) for k in comparison.only_b] == [
        (NAME, "1518"),
        ("only-b", "64"),
    ]


def _mrr(*rates: float) -> dict[str, Any]:
    """A real MRR record of sim trials, its receive rates then set to ``rates`` [pps]."""
    record = sim_mrr_record(load_topology(SIM), len(rates), trial_s=0.01, started=START)
    stats = record["mrr"]["receive_rate_pps"]
    stats.update(
        values=list(rates),
        mean=statistics.fmean(rates),
        stdev=statistics.stdev(rates) if len(rates) > 1 else 0.0,
        min=min(rates),
        max=max(rates),
    )
    validate_record(record)
    return record


def test_mrr_is_compared_by_mean_with_twice_the_standard_error() -> None:
    a = _mrr(4.40e6, 4.42e6, 4.41e6, 4.43e6)
    value = mrr_value(a)
    assert value is not None
    assert value.value_pps == pytest.approx(4.415e6)
    # stdev of the four = 12 910 pps; 2 x stdev / sqrt(4) = 12 910 pps
    assert value.noise_pps == pytest.approx(12909.9, rel=1e-4)
    close = compare_runs({"m": a}, {"m": _mrr(4.39e6, 4.41e6, 4.40e6, 4.42e6)})
    (row,) = close.rows
    assert row.metric == "MRR mean" and row.verdict == "within noise"
    far = compare_runs({"m": a}, {"m": _mrr(4.18e6, 4.20e6, 4.19e6, 4.21e6)})
    (row,) = far.rows
    assert row.verdict == "worse" and row.regressed(3.0) and not row.regressed(6.0)


def test_mrr_without_values_uses_mean_and_stdev() -> None:
    record = _mrr(1e6, 1e6)
    stats = record["mrr"]["receive_rate_pps"]
    stats.update(values=[], mean=1e6, stdev=1e3)
    value = mrr_value(record)
    assert value is not None and value.value_pps == 1e6 and value.noise_pps == 2e3
    record["mrr"]["receive_rate_pps"] = None  # no trial measured
    assert mrr_value(record) is None


def test_read_run_takes_records_and_skips_other_json(tmp_path: Path, fast: dict[str, Any]) -> None:
    (tmp_path / f"{NAME}.json").write_text(json.dumps(fast))
    (tmp_path / "other.json").write_text('{"not": "a record"}')
    (tmp_path / "broken.json").write_text("{")
    (tmp_path / "64B-1c-ethip4-ip4base-mrr.json").write_text(json.dumps(_mrr(1e6, 1.1e6)))
    run = read_run(tmp_path)
    assert sorted(run) == ["64B-1c-ethip4-ip4base-mrr", NAME]
    assert run[NAME] == fast


def test_read_run_names_a_path_without_records(tmp_path: Path) -> None:
    with pytest.raises(RunFilesError, match=re.escape(f"{tmp_path}: not a results directory")):
        read_run(tmp_path)
    with pytest.raises(RunFilesError, match="nowhere: no such file or directory"):
        read_run(tmp_path / "nowhere")
    (tmp_path / "output.xml").write_text("<robot><suite name='s'/></robot>")
    with pytest.raises(RunFilesError, match=re.escape("output.xml: not an output.xml linking")):
        read_run(tmp_path / "output.xml")
