"""Frame sizes, the IMIX, line rates and bandwidths."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ndrpdr.errors import NdrPdrError
from ndrpdr.profiles import (
    IMIX,
    IMIX_MIX,
    IMIX_SEQUENCE,
    MAX_FRAME_SIZE,
    MIN_FRAME_SIZE,
    ProfileError,
    average_frame_size,
    bandwidth_bps,
    frame_sizes,
    max_load_pps,
    parse_frame_size,
)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (64, 64),
        ("64", 64),
        (" 1518 ", 1518),
        ("9000B", 9000),
        ("128 bytes", 128),
        (9018, 9018),
        ("IMIX", IMIX),
        ("imix", IMIX),
        (" Imix ", IMIX),
    ],
)
def test_parse_frame_size(value: str | int, expected: object) -> None:
    assert parse_frame_size(value) == expected


@pytest.mark.parametrize(
    "value", [63, 9019, 0, -64, "63", "9019", "", "abc", "64.5", True, 64.0, None]
)
def test_parse_frame_size_rejects(value: object) -> None:
    with pytest.raises(ProfileError, match="frame size") as info:
        parse_frame_size(value)  # type: ignore[arg-type]
    assert repr(value) in str(info.value)
    assert isinstance(info.value, ValueError)
    assert isinstance(info.value, NdrPdrError)


@settings(deadline=None)
@given(st.integers(MIN_FRAME_SIZE, MAX_FRAME_SIZE))
def test_parse_frame_size_round_trip(size: int) -> None:
    assert parse_frame_size(str(size)) == size
    assert average_frame_size(size) == size
    assert frame_sizes(size) == (size,)


def test_imix_mix() -> None:
    assert Counter(IMIX_SEQUENCE) == dict(IMIX_MIX) == {64: 7, 570: 4, 1518: 1}
    assert frame_sizes(IMIX) == IMIX_SEQUENCE
    assert average_frame_size(IMIX) == pytest.approx(353.8333, abs=1e-4)
    # interleaved: no more than two 64 B frames in a row, 1518 not at either end
    text = ",".join(map(str, IMIX_SEQUENCE))
    assert "64,64,64" not in text
    assert IMIX_SEQUENCE[0] != 1518 and IMIX_SEQUENCE[-1] != 1518


@pytest.mark.parametrize(
    ("speed", "size", "expected"),
    [
        (10e9, 64, 14_880_952.38),
        (10e9, 1518, 812_743.82),
        (100e9, 64, 148_809_523.8),
        (10e9, IMIX, 10e9 / ((4246 / 12 + 20) * 8)),
        (0.0, 64, 0.0),
    ],
)
def test_max_load_pps(speed: float, size: int | str, expected: float) -> None:
    assert max_load_pps(speed, size) == pytest.approx(expected, rel=1e-9, abs=0.01)  # type: ignore[arg-type]


@settings(deadline=None)
@given(
    st.floats(1.0, 1e9),
    st.one_of(st.integers(MIN_FRAME_SIZE, MAX_FRAME_SIZE), st.just(IMIX)),
)
def test_bandwidth_inverts_max_load(pps: float, size: int | str) -> None:
    bps = bandwidth_bps(pps, size)  # type: ignore[arg-type]
    assert max_load_pps(bps, size) == pytest.approx(pps, rel=1e-12)  # type: ignore[arg-type]


def test_bandwidth_counts_l1_overhead() -> None:
    assert bandwidth_bps(14_880_952.380952381, 64) == pytest.approx(10e9)
    assert bandwidth_bps(1.0, 64) == 84 * 8


@pytest.mark.parametrize("bad", [-1.0, float("nan"), float("inf"), "10", True])
def test_rate_functions_reject(bad: object) -> None:
    with pytest.raises(ProfileError, match="link speed"):
        max_load_pps(bad, 64)  # type: ignore[arg-type]
    with pytest.raises(ProfileError, match="frame rate"):
        bandwidth_bps(bad, 64)  # type: ignore[arg-type]


def test_rate_functions_reject_bad_frame_size() -> None:
    with pytest.raises(ProfileError, match="frame size 10"):
        max_load_pps(10e9, 10)
