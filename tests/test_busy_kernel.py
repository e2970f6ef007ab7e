"""The real-traffic count checks (busy_kernel) pass what a busy kernel does, and no more."""

from __future__ import annotations

import pytest

from busy_kernel import BUSY_LOSS_RATIO, PortCounts, assert_forwarded, assert_offered


def test_forwarded_may_miss_what_a_busy_kernel_drops() -> None:
    assert_forwarded(10_000, 10_000)
    assert_forwarded(9_776, 10_000)  # the worst seen with a search beside the tests
    assert_forwarded(round(10_000 * (1 - BUSY_LOSS_RATIO)), 10_000)


@pytest.mark.parametrize("forwarded", [5_000, 0, 10_001], ids=["one-direction", "none", "more"])
def test_forwarded_really_wrong_fails(forwarded: int) -> None:
    with pytest.raises(AssertionError, match=f"forwarded {forwarded} of 10000"):
        assert_forwarded(forwarded, 10_000)


def test_offered_counts_refused_sends_at_most_once_more() -> None:
    ports = {"tg-if1": PortCounts(5_000, 116), "tg-if2": PortCounts(5_000, 0)}
    assert_offered(10_000, ports, 10_000)
    assert_offered(10_116, ports, 10_000)
    with pytest.raises(AssertionError, match="offered 10117"):
        assert_offered(10_117, ports, 10_000)
    with pytest.raises(AssertionError, match="offered 9999"):
        assert_offered(9_999, ports, 10_000)


def test_frames_not_sent_once_fail() -> None:
    short = {"tg-if1": PortCounts(4_968, 0), "tg-if2": PortCounts(5_000, 0)}
    with pytest.raises(AssertionError, match="sent 9968 frames, not 10000"):
        assert_offered(9_968, short, 10_000)
