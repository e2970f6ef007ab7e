"""ndrpdr.searchlimits: every setting's accepted range, named as the user typed it."""

from __future__ import annotations

import pytest

from ndrpdr.rates import LOAD_SLACK, above_max
from ndrpdr.searchlimits import (
    DEFAULT_MAX_SEARCH_TIME_S,
    DURATION_SUM_MAX_S,
    BadSettingError,
    CheckedSettings,
    Given,
    check_below_tg_max,
    check_load_range,
    check_search_settings,
)


def _check(**values: object) -> CheckedSettings:
    return check_search_settings(
        {k: Given(f"--{k.replace('_', '-')}", v) for k, v in values.items()}
    )


def test_defaults() -> None:
    checked = check_search_settings({})
    assert checked.final_trial_duration_s == 1.0
    assert checked.initial_trial_duration_s == 1.0
    assert checked.duration_sum_s == 21.0
    assert checked.max_search_time_s is None  # the CLI's default comes from its option
    assert (checked.goal_width, checked.exceed_ratio) == (0.005, 0.5)
    assert DEFAULT_MAX_SEARCH_TIME_S == 1200.0


def test_initial_defaults_to_a_shorter_final_duration() -> None:
    checked = _check(final_trial_duration="500ms")
    assert checked.initial_trial_duration_s == 0.5
    assert checked.duration_sum_s == 21.0


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"final_trial_duration": "601s"}, "--final-trial-duration 601s: 601 s is above the limit"),
        ({"final_trial_duration": "0"}, "--final-trial-duration 0: not a duration"),
        ({"initial_trial_duration": "3s", "final_trial_duration": "2s"}, "is above the final"),
        ({"duration_sum": "0.5s"}, "--duration-sum 0.5s: 0.5 s is out of range"),
        ({"duration_sum": "1001s"}, "at most 1000 s (1000 full-length trials"),
        ({"duration_sum": "3601s", "final_trial_duration": "10s"}, "at most 3600 s"),
        ({"max_search_time": "0.5s"}, "shorter than one full-length trial"),
        ({"max_search_time": "2 days"}, "--max-search-time 2 days: not a duration"),
        ({"max_search_time": "25h"}, "90000 s is above the limit"),
        ({"goal_width": "0"}, "--goal-width 0: out of range"),
        ({"goal_width": "wide"}, "--goal-width wide: not a number"),
        ({"exceed_ratio": "1"}, "--exceed-ratio 1: out of range"),
        ({"pdr_loss_ratio": "1"}, "--pdr-loss-ratio 1: out of range"),
        ({"loss_ratios": "0, 2"}, "--loss-ratios: '2' must be in [0, 1)"),
        ({"min_rate": "-1Mpps"}, "--min-rate -1Mpps: must be more than 0"),
        ({"max_rate": "fast"}, "--max-rate fast: not a rate"),
        ({"max_rate": "200%"}, "--max-rate 200%: a share must be more than 0 % and at most 100 %"),
        ({"min_rate": "10Gbps", "max_rate": "5Gbps"}, "--min-rate 10Gbps: not below --max-rate"),
        ({"latency_duration": "11min"}, "--latency-duration 11min: 660 s is above the limit"),
    ],
)
def test_bad_values_name_the_option(values: dict[str, object], message: str) -> None:
    with pytest.raises(BadSettingError, match=r"accepted: |must be in") as info:
        _check(**values)
    assert message in str(info.value)


def test_rates_of_different_kinds_wait_for_the_tg() -> None:
    checked = _check(min_rate="10Mpps", max_rate="10%")  # 10 % of what? known with the TG
    assert checked.min_rate is not None


def test_a_min_percentage_is_of_the_max_rate_on_the_cli_and_of_the_tg_in_robot() -> None:
    given = {"min_rate": Given("--min-rate", "60%"), "max_rate": Given("--max-rate", "50%")}
    assert check_search_settings(given).min_rate is not None  # 60 % of the 50 %: fine
    with pytest.raises(BadSettingError, match="--min-rate 60%: not below --max-rate 50%"):
        check_search_settings(given, min_percent_of_tg=True)


def test_the_largest_accepted_values() -> None:
    checked = _check(final_trial_duration="600s", duration_sum=f"{DURATION_SUM_MAX_S:g}")
    assert checked.duration_sum_s == DURATION_SUM_MAX_S


def test_variables_are_named_with_equals() -> None:
    with pytest.raises(BadSettingError, match=r"^\$\{MIN_RATE\}=0: must be more than 0"):
        check_search_settings({"min_rate": Given("${MIN_RATE}", "0")})
    with pytest.raises(BadSettingError, match=r"^final_trial_duration=1000.0: "):
        check_search_settings({"final_trial_duration": Given("final_trial_duration", 1000.0)})


def test_load_range_against_the_tg() -> None:
    low, high = check_load_range(
        Given("--min-rate", "10%"), Given("--max-rate", "50%"), tg_max_pps=1e6, frame_size=64
    )
    assert (low, high) == (50e3, 500e3)  # the CLI's min % is of the max load
    low, high = check_load_range(
        Given("min_rate", "10%"),
        Given("max_rate", "50%"),
        tg_max_pps=1e6,
        frame_size=64,
        min_percent_of_tg=True,
    )
    assert (low, high) == (100e3, 500e3)
    assert check_load_range(None, None, tg_max_pps=1e6, frame_size=64) == (None, 1e6)
    with pytest.raises(BadSettingError, match="--max-rate 2Mpps: 2 Mpps is above the traffic"):
        check_load_range(None, Given("--max-rate", "2Mpps"), tg_max_pps=1e6, frame_size=64)
    with pytest.raises(BadSettingError, match="not below the max load 1 Mpps"):
        check_load_range(Given("--min-rate", "1Mpps"), None, tg_max_pps=1e6, frame_size=64)


@pytest.mark.parametrize(
    ("load", "refused"),
    [(1e6, False), (1e6 * (1 + LOAD_SLACK / 2), False), (1e6 * (1 + 10 * LOAD_SLACK), True)],
)
def test_one_check_of_a_rate_against_the_tgs_maximum(load: float, refused: bool) -> None:
    """The keywords' rates, the CLI's and each trial's load (``checked_trial``) are compared
    by one function with one slack: float rounding passes, more does not."""
    assert above_max(load, 1e6) is refused
    given = Given("rate", "x")
    if not refused:
        assert check_below_tg_max(given, load, tg_max_pps=1e6, frame_size="IMIX") == load
        return
    with pytest.raises(BadSettingError) as caught:
        check_below_tg_max(given, load, tg_max_pps=1e6, frame_size="IMIX")
    assert str(caught.value) == (
        "rate=x: 1 Mpps is above the traffic generator's maximum for IMIX frames; "
        "accepted: a rate up to 1 Mpps"
    )
