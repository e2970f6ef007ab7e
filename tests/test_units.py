"""ndrpdr.units: parsing and formatting rates, bit rates and durations (frame rates given
with a frame size: tests/test_rates.py)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ndrpdr.units import (
    NOT_A_SHARE,
    NOT_POSITIVE,
    UnitError,
    UnitRangeError,
    format_bitrate,
    format_rate,
    parse_bitrate,
    parse_duration,
    parse_frame_rate,
)


def test_a_bit_rate_becomes_a_frame_rate_through_the_callers_conversion() -> None:
    asked: list[float] = []

    def pps_of_bps(bps: float) -> float:
        asked.append(bps)
        return bps / 1000

    assert parse_frame_rate("10 Mbps", pps_of_bps=pps_of_bps) == 10_000.0
    assert asked == [10e6]
    assert parse_frame_rate("2kpps", pps_of_bps=pps_of_bps) == 2000.0  # frames/s: no conversion
    assert asked == [10e6]
    with pytest.raises(UnitError, match="a frame size is needed"):
        parse_frame_rate("10 Mbps")
    with pytest.raises(UnitError, match="must be finite and > 0"):
        parse_frame_rate("10 Mbps", pps_of_bps=lambda bps: 0.0)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (30, 30.0),
        (0.5, 0.5),
        ("30", 30.0),
        ("30s", 30.0),
        ("30 S", 30.0),
        ("30 sec", 30.0),
        ("2 seconds", 2.0),
        ("500ms", 0.5),
        ("250 us", 250e-6),
        ("1 min", 60.0),
        ("2m", 120.0),
        ("1.5 minutes", 90.0),
        ("1h", 3600.0),
        ("2 hours", 7200.0),
        ("1 min 30 s", 90.0),
        ("1m30s", 90.0),
        ("1h 1m 1s 1ms", 3661.001),
    ],
)
def test_parse_duration(text: str | float, expected: float) -> None:
    assert parse_duration(text) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("", "is not valid"),
        ("   ", "is not valid"),
        ("soon", "is not valid"),
        ("1 min 30", "is not valid"),
        ("1 min -30 s", "is not valid"),
        ("30 days", "unknown unit 'days'"),
        ("0s", "must be finite and > 0"),
        ("0", "must be finite and > 0"),
        ("-1", "must be finite and > 0"),
        ("1e400 s", "must be finite and > 0"),
        (0, "must be finite and > 0"),
        (math.inf, "must be finite and > 0"),
        (math.nan, "must be finite and > 0"),
        (False, "is not valid"),
        ([1], "is not valid"),
    ],
)
def test_parse_duration_errors(text: object, match: str) -> None:
    with pytest.raises(UnitError, match=match) as info:
        parse_duration(text)  # type: ignore[arg-type]
    assert repr(text) in str(info.value)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (1e10, 1e10),
        ("1000", 1000.0),
        ("10Gbps", 10e9),
        ("25G", 25e9),
        ("25 g", 25e9),
        ("100Mbps", 100e6),
        ("100 mb/s", 100e6),
        ("1 kbit/s", 1000.0),
        ("400 Gbit/s", 400e9),
        ("1Tbps", 1e12),
        ("64bps", 64.0),
    ],
)
def test_parse_bitrate(text: str | float, expected: float) -> None:
    assert parse_bitrate(text) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("", "is not valid"),
        ("fast", "is not valid"),
        ("10 Mpps", "unknown unit 'mpps'"),
        ("10 GB", "unknown unit 'gb'"),
        ("0G", "must be finite and > 0"),
        ("-1G", "must be finite and > 0"),
        (0.0, "must be finite and > 0"),
        (math.nan, "must be finite and > 0"),
        (True, "is not valid"),
    ],
)
def test_parse_bitrate_errors(text: object, match: str) -> None:
    with pytest.raises(UnitError, match=match) as info:
        parse_bitrate(text)  # type: ignore[arg-type]
    assert repr(text) in str(info.value)


@pytest.mark.parametrize(
    ("pps", "text"),
    [
        (14_880_952.38, "14.881 Mpps"),
        (250_000.0, "250 kpps"),
        (812_743.82, "812.744 kpps"),
        (999.5, "999.5 pps"),
        (0.0, "0 pps"),
        (999_999.9999, "1 Mpps"),
        (2.5e9, "2.5 Gpps"),
        (math.inf, "inf pps"),
    ],
)
def test_format_rate(pps: float, text: str) -> None:
    assert format_rate(pps) == text


@pytest.mark.parametrize(
    ("bps", "text"),
    [
        (10e9, "10.000 Gbps"),
        (812_743_823.0, "812.744 Mbps"),
        (25e3, "25.000 kbps"),
        (1e12, "1.000 Tbps"),
        (12.0, "12.000 bps"),
        (math.nan, "nan bps"),
    ],
)
def test_format_bitrate(bps: float, text: str) -> None:
    assert format_bitrate(bps) == text


@settings(deadline=None)
@given(st.floats(min_value=1.0, max_value=1e14))
def test_bitrate_round_trip(bps: float) -> None:
    assert parse_bitrate(format_bitrate(bps)) == pytest.approx(bps, rel=1e-3, abs=5e-4)


@settings(deadline=None)
@given(st.integers(0, 100), st.integers(0, 59), st.integers(0, 59), st.integers(0, 999))
def test_duration_parts_add(hours: int, minutes: int, seconds: int, millis: int) -> None:
    total = hours * 3600 + minutes * 60 + seconds + millis / 1000
    text = f"{hours}h {minutes} min {seconds}s {millis} ms"
    if total == 0:
        with pytest.raises(UnitError):
            parse_duration(text)
    else:
        assert parse_duration(text) == pytest.approx(total)


@pytest.mark.parametrize(
    ("text", "problem"),
    [("0", NOT_POSITIVE), ("-5kpps", NOT_POSITIVE), (0.0, NOT_POSITIVE), ("150%", NOT_A_SHARE)],
)
def test_a_rate_out_of_range_says_which_range_by_type(text: str | float, problem: str) -> None:
    # searchlimits tells these apart by the error's type and problem, never by its text
    with pytest.raises(UnitRangeError) as caught:
        parse_frame_rate(text, max_rate_pps=1e6)
    assert caught.value.problem == problem


def test_a_rate_that_does_not_parse_is_not_a_range_error() -> None:
    with pytest.raises(UnitError) as caught:
        parse_frame_rate("fast", max_rate_pps=1e6)
    assert not isinstance(caught.value, UnitRangeError)
