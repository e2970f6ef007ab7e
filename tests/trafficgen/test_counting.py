"""counting.py: the counting rules the local TG and TRex share, with plain data.

The same rules hold for real in ``test_tg_conformance.py`` (each TG on a
real testbed); here their edges: the tolerance, per-direction surplus, the
order of the warnings, stretched but whole.
"""

from __future__ import annotations

import math

import pytest

from ndrpdr.results.oneway import is_one_way, one_way_warning
from ndrpdr.search.trialnotes import is_surplus_note
from ndrpdr.trafficgen.base import TrafficGeneratorError
from ndrpdr.trafficgen.counting import (
    DirectionCount,
    TrialCounts,
    counted_result,
    cutoff_s,
    intended_count,
    stretched,
)


def both(sent0: int, received0: int, sent1: int, received1: int) -> list[DirectionCount]:
    """Direction 0 (port 0 -> 1) and direction 1 (port 1 -> 0)."""
    return [DirectionCount(0, 1, sent0, received0), DirectionCount(1, 0, sent1, received1)]


def test_forwarded_is_what_came_back_summed_over_directions() -> None:
    result = counted_result(TrialCounts(1.0, 2000.0, both(1000, 990, 1000, 995)))
    assert (result.offered_count, result.forwarded_count, result.loss_count) == (2000, 1985, 15)
    assert result.intended_count == 2000 and result.warnings == ()
    assert result.effective_duration == 1.0


def test_one_directions_surplus_does_not_hide_the_others_loss() -> None:
    result = counted_result(TrialCounts(1.0, 2000.0, both(1000, 1007, 1000, 990)))
    assert (result.forwarded_count, result.loss_count, result.surplus_count) == (1990, 10, 7)
    (note,) = result.warnings
    assert is_surplus_note(note) and "received 7 frames more than were sent (2000)" in note


def test_the_silent_direction_is_named_by_its_ports_first() -> None:
    result = counted_result(
        TrialCounts(1.0, 2000.0, both(1000, 0, 900, 900), sender="TG"), ["tcpreplay: slow"]
    )
    assert result.warnings == (
        one_way_warning(0, 1, 1000),
        "TG sent 1900 of 2000 intended frames (100 unsent, counted as lost): achieved 1900 pps "
        "of 2000 pps",
        "tcpreplay: slow",
    )
    assert is_one_way(result.warnings[0])
    dead = counted_result(TrialCounts(1.0, 2000.0, both(1000, 0, 1000, 0)))
    assert not any(is_one_way(w) for w in dead.warnings)  # all dead: a dead DUT, not one way


def test_ten_microseconds_of_frames_may_be_missing() -> None:
    # CSIT forgives 10 us worth of frames: 2e6 pps x 10 us = 20 frames.
    assert intended_count(2e6, 1.0) == 2_000_000
    assert intended_count(2e6, 1.0, offered=1_999_980) == 1_999_980
    assert intended_count(2e6, 1.0, offered=1_999_979) == 2_000_000
    assert intended_count(2e6, 1.0, offered=2_000_003) == 2_000_003
    assert intended_count(1000.0, 0.3 * 3) == 900  # 0.9 s: no float fuzz giving 901
    assert intended_count(0.0, 5.0) == 0
    short = counted_result(TrialCounts(1.0, 2e6, both(999_990, 999_990, 999_990, 999_990)))
    assert short.intended_count == 1_999_980 and short.warnings == ()
    shorter = counted_result(TrialCounts(1.0, 2e6, both(999_980, 999_980, 999_980, 999_979)))
    assert shorter.unsent_count == 40
    assert shorter.loss_ratio == pytest.approx(41 / 2_000_000)


def test_the_cut_off_is_one_percent_and_a_quarter_second_late() -> None:
    assert cutoff_s(1.0) == pytest.approx(1.26)
    assert cutoff_s(10.0) == pytest.approx(10.35)
    assert not stretched(1.0, 1.26) and stretched(1.0, 1.27)


def test_a_sender_stopped_with_frames_unsent_says_they_count_as_lost() -> None:
    counts = TrialCounts(
        1.0,
        1000.0,
        [DirectionCount(0, 1, 800, 800)],
        sender="TRex",
        ran_s=1.26,
        stopped={"TRex": 1.26},
    )
    result = counted_result(counts)
    assert result.loss_ratio == pytest.approx(0.2)
    assert result.warnings == (
        "TRex sent 800 of 1000 intended frames (200 unsent, counted as lost): achieved 800 pps "
        "of 1000 pps",
        "TRex was still sending 1.260 s after the start of a 1 s trial (cut-off +1% +0.25 s); "
        "stopped, frames not sent count as lost",
    )


def test_traffic_late_but_whole_is_stretched_not_cut() -> None:
    late = [DirectionCount(0, 1, 1000, 1000)]
    whole = counted_result(TrialCounts(1.0, 1000.0, late, ran_s=1.5, stopped={"TG": 1.5}))
    assert whole.effective_duration == 1.5 and whole.loss_ratio == 0.0
    assert whole.warnings == (
        "duration stretching: the traffic ran 1.500 s for a 1 s trial (+50.0%)",
    )
    within = counted_result(TrialCounts(1.0, 1000.0, late, ran_s=1.2))
    assert within.effective_duration == 1.2 and within.warnings == ()
    short = counted_result(TrialCounts(1.0, 1000.0, [DirectionCount(0, 1, 900, 900)], ran_s=1.5))
    assert short.warnings[1].startswith("duration stretching")  # short and late, not cut


def test_unknown_or_zero_run_time_counts_the_duration() -> None:
    nothing = counted_result(TrialCounts(2.0, 0.0, [DirectionCount(0, 1, 0, 0)], ran_s=0.0))
    assert nothing.effective_duration == 2.0 and nothing.loss_ratio == 0.0


@pytest.mark.parametrize(
    ("direction", "ran_s", "match"),
    [
        (DirectionCount(0, 1, -1, 0), None, "sent=-1 is not a count"),
        (DirectionCount(0, 1, 5, True), None, "received=True is not a count"),  # type: ignore[arg-type]
        (DirectionCount(0, 1, 5, 5), math.nan, "nan s is not a duration"),
        (DirectionCount(0, 1, 5, 5), -1.0, "-1.0 s is not a duration"),
    ],
)
def test_counts_that_are_not_counts_are_refused(
    direction: DirectionCount, ran_s: float | None, match: str
) -> None:
    with pytest.raises(TrafficGeneratorError, match=match):
        counted_result(TrialCounts(1.0, 5.0, [direction], ran_s=ran_s))
