"""ndrpdr.rates: frame rates as users give them (frames/s, bit rates for a frame size, shares)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ndrpdr.errors import NdrPdrError
from ndrpdr.profiles import ProfileError
from ndrpdr.rates import parse_rate
from ndrpdr.units import UnitError, format_rate


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (1000, 1000.0),
        (2.5, 2.5),
        ("250000", 250_000.0),
        ("250000pps", 250_000.0),
        ("100kpps", 100_000.0),
        ("100 KPPS", 100_000.0),
        ("10Mpps", 10e6),
        ("1.5 Mpps", 1.5e6),
        (" 1.5  mpps ", 1.5e6),
        ("1e6pps", 1e6),
        (".5Mpps", 5e5),
        ("2Gpps", 2e9),
    ],
)
def test_parse_rate(text: str | float, expected: float) -> None:
    assert parse_rate(text) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("text", "size", "expected"),
    [
        ("10Gbps", 64, 14_880_952.38),
        ("10 gbps", 1518, 812_743.82),
        ("100Mbps", 64, 148_809.52),
        ("1Gbps", 64, 1_488_095.24),
        ("10000 Mb/s", 64, 14_880_952.38),
        ("10Gbps", "IMIX", 10e9 / ((4246 / 12 + 20) * 8)),
    ],
)
def test_parse_rate_bits(text: str, size: int | str, expected: float) -> None:
    assert parse_rate(text, frame_size=size) == pytest.approx(expected, abs=0.01)  # type: ignore[arg-type]


def test_parse_rate_percent() -> None:
    assert parse_rate("50%", max_rate_pps=14_880_952.0) == pytest.approx(7_440_476.0)
    assert parse_rate("100 %", max_rate_pps=1e6) == 1e6
    assert parse_rate("0.1%", max_rate_pps=1e6) == pytest.approx(1000.0)


@pytest.mark.parametrize(
    ("text", "kwargs", "match"),
    [
        ("", {}, "is not valid"),
        ("fast", {}, "is not valid"),
        ("Mpps", {}, "is not valid"),
        ("10 Mpps 5", {}, "is not valid"),
        ("10 furlongs", {}, "unknown unit 'furlongs'"),
        ("10 mps", {}, "unknown unit 'mps'"),
        ("10Gbps", {}, "a frame size is needed"),
        ("50%", {}, "the maximum rate is needed"),
        ("150%", {"max_rate_pps": 1e6}, "at most 100 %"),
        ("0%", {"max_rate_pps": 1e6}, "more than 0 %"),
        ("50%", {"max_rate_pps": 0.0}, "maximum rate"),
        ("0", {}, "must be finite and > 0"),
        ("-5kpps", {}, "must be finite and > 0"),
        ("0 Gbps", {"frame_size": 64}, "must be finite and > 0"),
        ("1e400pps", {}, "must be finite and > 0"),
        (0, {}, "must be finite and > 0"),
        (-1.0, {}, "must be finite and > 0"),
        (math.nan, {}, "must be finite and > 0"),
        (math.inf, {}, "must be finite and > 0"),
        (True, {}, "is not valid"),
        (None, {}, "is not valid"),
    ],
)
def test_parse_rate_errors(text: object, kwargs: dict[str, object], match: str) -> None:
    with pytest.raises(UnitError, match=match) as info:
        parse_rate(text, **kwargs)  # type: ignore[arg-type]
    assert repr(text) in str(info.value)
    assert isinstance(info.value, ValueError) and isinstance(info.value, NdrPdrError)


def test_parse_rate_bad_frame_size() -> None:
    with pytest.raises(ProfileError, match="frame size 10"):
        parse_rate("10Gbps", frame_size=10)


def test_parse_rate_error_says_what_is_accepted() -> None:
    with pytest.raises(UnitError, match=r"kpps.*Gbps.*%"):
        parse_rate("lots")


@settings(deadline=None)
@given(st.floats(min_value=1e-3, max_value=1e11))
def test_rate_round_trip(pps: float) -> None:
    text = format_rate(pps)
    assert parse_rate(text) == pytest.approx(pps, rel=1e-3, abs=5e-4)
    number, unit = text.split()
    assert unit in ("pps", "kpps", "Mpps", "Gpps")
    assert float(number) < 1000
