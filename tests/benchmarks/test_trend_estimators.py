"""The trend benchmarks' own parts: the nightly false-alarm rule and the estimates tried.

The nights are real searches on the simulated testbed (``benchmarks.trendgen``);
the estimates' inputs are hand-made trials with a known answer.
"""

from __future__ import annotations

import math

from benchmarks.trend import _first_alarm
from benchmarks.trendestimators import cramer_rao_pct, overload_rx, pass_fail_fit
from benchmarks.trendgen import TESTS, Plan, generate


def test_first_alarm_is_the_first_night_whose_page_shows_the_step() -> None:
    mrr = next(t for t in TESTS if t.kind == "mrr")
    steady = generate(Plan("noise", range(8), noise_seed=3), [mrr], jobs=1).samples
    assert _first_alarm(list(steady)) is None
    halved = Plan("step", range(8), noise_seed=3, step_night=4, step_factor=0.5)
    stepped = sorted(generate(halved, [mrr], jobs=1).samples, key=lambda s: s.run_id)
    # No page before the step's night (5 runs) shows a change; night 5's page (6 runs,
    # two at the new level) does at the latest.
    first = _first_alarm(stepped)
    assert first is not None
    assert 5 <= first <= 6


def test_overload_rx_averages_the_receive_rate_at_the_highest_load() -> None:
    trials = [[10e6, 0.5], [10e6, 0.6], [4e6, 0.0], [6e6, 0.01]]
    assert math.isclose(overload_rx({"trials": trials}), (5e6 + 4e6) / 2)


def test_pass_fail_fit_finds_where_half_the_trials_fail() -> None:
    # Below 1 Mpps every trial passes, above 2 Mpps every one fails, and at
    # 1.2 / 1.5 / 1.8 Mpps a quarter / a half / three quarters fail.
    trials = [[0.5e6, 0.0]] * 4 + [[2.5e6, 0.1]] * 4
    for load, failing in ((1.2e6, 1), (1.5e6, 2), (1.8e6, 3)):
        trials += [[load, 0.02]] * failing + [[load, 0.0]] * (4 - failing)
    assert 1.4e6 < pass_fail_fit({"trials": trials}) < 1.6e6


def test_cramer_rao_bound_falls_with_more_trials_in_the_band() -> None:
    params = {"capacity_pps": 1e6, "band_fraction": 0.2, "max_loss_probability": 0.8}
    few = cramer_rao_pct({"params": params, "trials": [[0.9e6, 0.0]] * 10})
    many = cramer_rao_pct({"params": params, "trials": [[0.9e6, 0.0]] * 40})
    assert math.isclose(few / many, 2.0)
    assert cramer_rao_pct({"params": params, "trials": [[0.5e6, 0.0]]}) == math.inf
