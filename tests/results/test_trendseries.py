"""Samples become per-test series with levels and change points; the last good run is found."""

from __future__ import annotations

import datetime
import random

import pytest

from ndrpdr.trend.compare import TestKey, Value
from ndrpdr.trend.history import Sample
from ndrpdr.trend.trendseries import (
    PROGRESSION,
    REGRESSION,
    build_trend,
    latency_of_record,
)

UTC = datetime.timezone.utc
START = datetime.datetime(2026, 1, 1, 22, tzinfo=UTC)


def _sample(
    name: str,
    night: int,
    ndr: float | None,
    *,
    status: str = "passed",
    caveat: bool = False,
    testbed: str = "sim",
) -> Sample:
    metrics = {} if ndr is None else {"NDR lower": Value(ndr, ndr * 0.005)}
    return Sample(
        key=TestKey(name, "64", "ethip4-ip4base"),
        run_id=f"n{night:03d}",
        started=START + datetime.timedelta(days=night),
        testbed=testbed,
        kind="ndrpdr",
        status=status,
        caveat=caveat,
        metrics=metrics,
    )


def _noisy(level: float, rng: random.Random) -> float:
    return level * (1 + rng.gauss(0, 0.01))


def test_a_step_is_a_regression_from_its_first_run_and_noise_alone_has_none() -> None:
    rng = random.Random(1)
    samples = [_sample("stepped", n, _noisy(1e7 if n < 30 else 0.93e7, rng)) for n in range(40)]
    samples += [_sample("flat", n, _noisy(5e6, rng)) for n in range(40)]
    rng.shuffle(samples)  # any order in
    trend = build_trend(samples)
    assert [t.key.name for t in trend.tests] == ["flat", "stepped"]
    flat, stepped = trend.tests
    assert flat.series[0].changes == () and len(flat.series[0].levels) == 1
    (change,) = stepped.series[0].changes
    assert change.run_id == "n030" and change.previous_run_id == "n029"
    assert change.kind == REGRESSION and change.relative == pytest.approx(-0.07, abs=0.01)
    assert change.z < -8
    assert trend.last_good == "n029"  # the run before the regression still in effect
    assert trend.last_good_why.endswith("still in effect (stepped (sim), NDR lower)")
    assert [(t.key.name, c.run_id) for t, c in trend.changes_since_last_good()] == [
        ("stepped", "n030")
    ]


def test_runs_with_caveats_are_plotted_but_never_move_a_level() -> None:
    rng = random.Random(2)
    samples = [_sample("t", n, _noisy(1e7, rng)) for n in range(30)]
    samples[10] = _sample("t", 10, 0.6e7, caveat=True)
    samples[11] = _sample("t", 11, 0.6e7, status="failed")
    samples[12] = _sample("t", 12, None, status="failed")
    trend = build_trend(samples)
    (test,) = trend.tests
    (series,) = test.series
    assert series.changes == ()
    assert [p.run_id for p in series.points if not p.clean] == ["n010", "n011"]
    assert [(run, status) for run, _, status in test.failed] == [("n012", "failed")]
    assert len(test.runs) == 30
    assert trend.last_good == "n029"  # no regression: the newest clean run
    assert "the newest run that passed cleanly" in trend.last_good_why


def test_a_regression_undone_by_a_progression_is_no_longer_in_effect() -> None:
    rng = random.Random(3)
    levels = [1e7] * 20 + [0.9e7] * 10 + [1e7] * 10
    trend = build_trend([_sample("t", n, _noisy(v, rng)) for n, v in enumerate(levels)])
    kinds = [(c.run_id, c.kind) for c in trend.tests[0].series[0].changes]
    assert kinds == [("n020", REGRESSION), ("n030", PROGRESSION)]
    assert trend.last_good == "n039"
    assert trend.changes_since_last_good() == []
    since = build_trend(
        [_sample("t", n, _noisy(v, rng)) for n, v in enumerate(levels)], since="n010"
    )
    assert since.last_good_given and since.last_good_why == "given"
    assert [c.run_id for _, c in since.changes_since_last_good()] == ["n030", "n020"]


def test_the_same_test_on_two_testbeds_is_two_series_and_a_repeated_run_counts_once() -> None:
    samples = [_sample("t", n, 1e7, testbed=bed) for n in range(5) for bed in ("a", "b")]
    samples.append(_sample("t", 4, 2e7, testbed="a"))
    trend = build_trend(samples)
    assert [(t.testbed, len(t.runs)) for t in trend.tests] == [("a", 5), ("b", 5)]
    assert trend.tests[0].series[0].points[-1].value_pps == 2e7
    with pytest.raises(ValueError, match="--since 'zzz' is not a run"):
        build_trend(samples, since="zzz")
    assert build_trend([]).last_good is None


def test_latency_is_read_at_the_highest_load_point_worst_direction() -> None:
    record = {
        "latency": {
            "points": [
                {"percent_of_pdr": 10, "directions": [{"p50_us": 1.0, "p99_us": 2.0}]},
                {
                    "percent_of_pdr": 90,
                    "directions": [
                        {"p50_us": 10.0, "p99_us": 30.0},
                        {"p50_us": 12.0, "p99_us": 25.0},
                    ],
                },
            ]
        }
    }
    found = latency_of_record(record)
    assert found is not None
    assert (found.percent_of_pdr, found.p50_us, found.p99_us) == (90.0, 12.0, 30.0)
    assert latency_of_record({"latency": {"status": "not measured", "points": []}}) is None
    assert latency_of_record({}) is None
