"""counts.py: TRex port counters -> TrialResult, with plain data.

No TRex ran: the inputs are shaped like ``STLClient.get_stats()`` output
as TRex's client documents it (per port id ``opackets`` / ``ipackets``,
``"global"`` with ``queue_full`` / ``cpu_util``, ``"latency"`` by pg_id
with ``latency.total_min / average / total_max / histogram``).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ndrpdr.results.oneway import is_one_way
from ndrpdr.trafficgen.base import TrafficGeneratorError
from ndrpdr.trafficgen.trex.counts import (
    HIGH_CPU_UTIL_PCT,
    Latency,
    PortCounts,
    TrialCounts,
    global_counts,
    parse_latency,
    port_counts,
    trex_trial,
    trial_result,
)

BIDIR = ((0, 1), (1, 0))
UNIDIR = ((0, 1),)


def counts(
    tx0: int, rx1: int, tx1: int = 0, rx0: int = 0, *, load: float = 2e6, **kwargs: Any
) -> TrialCounts:
    """A 1 s trial: port 0 sent tx0 and received rx0, port 1 sent tx1 and received rx1."""
    return TrialCounts(
        duration=kwargs.pop("duration", 1.0),
        load=load,
        directions=kwargs.pop("directions", BIDIR),
        ports={0: PortCounts(tx0, rx0), 1: PortCounts(tx1, rx1)},
        **kwargs,
    )


def test_no_loss_bidirectional() -> None:
    result = trial_result(counts(1_000_000, 1_000_000, 1_000_000, 1_000_000))
    assert (result.offered_count, result.forwarded_count, result.loss_count) == (2e6, 2e6, 0)
    assert result.intended_count == 2_000_000
    assert result.loss_ratio == 0.0
    assert result.effective_duration == 1.0
    assert result.warnings == ()


def test_loss_is_summed_over_directions() -> None:
    # direction 0 (port 0 -> port 1) loses 10 000, direction 1 loses 5 000.
    result = trial_result(counts(1_000_000, 990_000, 1_000_000, 995_000))
    assert result.offered_count == 2_000_000
    assert result.forwarded_count == 1_985_000
    assert result.loss_count == 15_000
    assert result.loss_ratio == pytest.approx(15_000 / 2_000_000)


def test_a_direction_that_receives_nothing_while_the_other_forwards_is_named() -> None:
    result = trial_result(counts(1_000_000, 1_000_000, 1_000_000, 0))  # port 0 receives none
    assert result.loss_ratio == pytest.approx(0.5)
    (warning,) = result.warnings
    assert warning == (
        "direction 1->0: port 0 received nothing of the 1000000 frames port 1 sent while the "
        "other direction forwarded: check that direction's destination MAC and the DUT port "
        "it enters (a wrong MAC, a link down)"
    )
    assert is_one_way(warning)
    both_dead = trial_result(counts(1_000_000, 0, 1_000_000, 0))
    assert not any(is_one_way(w) for w in both_dead.warnings)  # a dead DUT: no one-way advice


def test_unsent_frames_count_as_lost() -> None:
    result = trial_result(counts(900_000, 900_000, 1_000_000, 1_000_000))
    assert result.offered_count == 1_900_000 and result.loss_count == 0
    assert result.intended_count == 2_000_000
    assert result.unsent_count == 100_000
    assert result.loss_ratio == pytest.approx(0.05)
    assert any("100000 unsent, counted as lost" in w for w in result.warnings)


def test_ten_microseconds_of_frames_may_be_missing() -> None:
    # CSIT forgives 10 us worth of frames (counting.intended_count): 2e6 pps x 10 us = 20 frames.
    short = trial_result(counts(999_990, 999_990, 999_990, 999_990))
    assert short.intended_count == 1_999_980
    assert short.loss_ratio == 0.0 and short.warnings == ()
    shorter = trial_result(counts(999_980, 999_980, 999_980, 999_979))
    assert shorter.intended_count == 2_000_000
    assert shorter.unsent_count == 40
    assert shorter.loss_ratio == pytest.approx(41 / 2_000_000)


def test_received_more_than_sent_is_no_loss_with_the_surplus_kept() -> None:
    result = trial_result(counts(1_000_000, 1_000_007, 1_000_000, 1_000_000))
    assert result.forwarded_count == 2_000_000 and result.loss_count == 0
    assert result.surplus_count == 7 and result.loss_ratio == 0.0
    assert any("received 7 frames more than were sent" in w for w in result.warnings)


def test_one_directions_surplus_does_not_hide_the_others_loss() -> None:
    result = trial_result(counts(1_000_000, 1_000_007, 1_000_000, 999_990))
    assert (result.forwarded_count, result.loss_count, result.surplus_count) == (1_999_990, 10, 7)


def test_unidirectional_counts_only_the_direction_sent() -> None:
    # port 0 receives 42 frames (e.g. the DUT's own): not part of direction 0.
    result = trial_result(counts(1_000_000, 999_000, 0, 42, load=1e6, directions=UNIDIR))
    assert result.offered_count == 1_000_000 and result.forwarded_count == 999_000
    assert result.intended_count == 1_000_000


def test_stretching_gives_the_effective_duration_and_a_warning() -> None:
    within = trial_result(
        counts(1_000_000, 1_000_000, traffic_duration_s=1.2, directions=UNIDIR, load=1e6)
    )
    assert within.effective_duration == 1.2 and within.warnings == ()
    late = trial_result(
        counts(1_000_000, 1_000_000, traffic_duration_s=1.5, directions=UNIDIR, load=1e6)
    )
    assert late.effective_duration == 1.5
    assert late.warnings == (
        "duration stretching: the traffic ran 1.500 s for a 1 s trial (+50.0%)",
    )


def test_stopped_at_the_cutoff() -> None:
    result = trial_result(
        counts(
            800_000,
            800_000,
            load=1e6,
            directions=UNIDIR,
            traffic_duration_s=1.26,
            stopped_at_cutoff=True,
        )
    )
    assert result.loss_ratio == pytest.approx(0.2)
    assert any(
        "still sending 1.260 s after the start of a 1 s trial (cut-off +1% +0.25 s); stopped" in w
        for w in result.warnings
    )
    assert not any("stretching" in w for w in result.warnings)


def test_trex_warnings_queue_full_and_cpu_are_kept() -> None:
    result = trial_result(
        counts(
            1_000_000,
            1_000_000,
            load=1e6,
            directions=UNIDIR,
            trex_warnings=("Port 0: link down",),
            queue_full=12,
            cpu_util_pct=97.5,
        )
    )
    assert result.warnings == (
        "TRex TX queue full 12 times: the TG did not keep up with 1e+06 pps",
        f"TRex CPU utilisation 97.5 % (>= {HIGH_CPU_UTIL_PCT:g} %): the TG may be the bottleneck",
        "TRex: Port 0: link down",
    )
    calm = trial_result(
        counts(1_000_000, 1_000_000, load=1e6, directions=UNIDIR, cpu_util_pct=40.0)
    )
    assert calm.warnings == ()


def test_zero_traffic_duration_falls_back_to_the_intended_one() -> None:
    result = trial_result(counts(0, 0, load=0.0, directions=UNIDIR, traffic_duration_s=0.0))
    assert result.effective_duration == 1.0 and result.loss_ratio == 0.0


def test_missing_port_counters_are_an_error() -> None:
    bad = TrialCounts(1.0, 1e6, UNIDIR, {0: PortCounts(5, 5)})
    with pytest.raises(
        TrafficGeneratorError, match=r"direction 0->1 needs counters of ports 0 and 1"
    ):
        trial_result(bad)


# -- reading get_stats() output -------------------------------------------------------


def stats(**extra: Any) -> dict[Any, Any]:
    """get_stats() output of a bidirectional 1 s trial at 2 Mpps with 1 000 frames lost."""
    out: dict[Any, Any] = {
        0: {"opackets": 1_000_000, "ipackets": 999_000, "obytes": 64_000_000, "ibytes": 0},
        1: {"opackets": 1_000_000, "ipackets": 1_000_000, "obytes": 64_000_000, "ibytes": 0},
        "global": {"queue_full": 0, "cpu_util": 12.5, "rx_drop_bps": 0.0},
        "total": {"opackets": 2_000_000, "ipackets": 1_999_000},
        "flow_stats": {},
        "latency": {},
    }
    out.update(extra)
    return out


def test_port_counts_from_stats() -> None:
    assert port_counts(stats(), [0, 1]) == {
        0: PortCounts(1_000_000, 999_000),
        1: PortCounts(1_000_000, 1_000_000),
    }
    assert port_counts({"0": {"opackets": 3, "ipackets": 2}}, [0]) == {0: PortCounts(3, 2)}
    with pytest.raises(TrafficGeneratorError, match="no counters for port 2"):
        port_counts(stats(), [2])
    with pytest.raises(TrafficGeneratorError, match=r"port 0 opackets=-1 is negative"):
        port_counts({0: {"opackets": -1, "ipackets": 0}}, [0])
    with pytest.raises(TrafficGeneratorError, match=r"port 0 ipackets=None is not a count"):
        port_counts({0: {"opackets": 1}}, [0])


def test_global_counts() -> None:
    assert global_counts(stats()) == (0, 12.5)
    assert global_counts({"global": {"queue_full": 7, "cpu_util": "N/A"}}) == (7, None)
    assert global_counts({}) == (0, None)


def test_trex_trial_from_stats() -> None:
    trial = trex_trial(
        stats(),
        duration=1.0,
        load=2e6,
        directions=BIDIR,
        traffic_duration_s=1.002,
        trex_warnings=["high CPU"],
    )
    # direction 0: port 0 -> port 1 (1 000 000 of 1 000 000); direction 1: port 1 -> port 0.
    assert trial.result.offered_count == 2_000_000
    assert trial.result.loss_count == 1_000
    assert trial.result.effective_duration == 1.002
    assert trial.result.warnings == ("TRex: high CPU",)
    assert trial.latency == {}


# -- latency ------------------------------------------------------------------------


class NotAvailable:
    """Stands for TRex's StatNotAvailable (what the client puts where a value is missing)."""

    def __repr__(self) -> str:
        return "N/A"


def test_latency_from_trex_mapping() -> None:
    latency = {
        "global": {"old_flow": 0, "bad_hdr": 0},
        0: {
            "latency": {
                "total_min": 4.0,
                "average": 7.25,
                "total_max": 31.0,
                "jitter": 1,
                "last_max": 9,
                "histogram": {"10": 9000, "20": 40, 0: 3},
                "hdrh": "HISTFAAAACx4nJNpmSzMwMDAxwABzFCaEUrLgGgAFgcBEw==",
            },
            "err_cntrs": {"dropped": 2, "out_of_order": 0, "dup": 0},
        },
        "1": {"latency": {"total_min": NotAvailable(), "average": 5.0, "total_max": 9.0}},
    }
    parsed = parse_latency(latency)
    assert sorted(parsed) == [0, 1]
    first = parsed[0]
    assert (first.min_us, first.avg_us, first.max_us, first.jitter_us) == (4.0, 7.25, 31.0, 1.0)
    assert first.histogram == {0: 3, 10: 9000, 20: 40}
    assert list(first.histogram) == [0, 10, 20]
    assert first.hdrh is not None and first.hdrh.startswith("HISTF")
    assert first.dropped == 2
    assert parsed[1] == Latency(1, None, 5.0, 9.0)
    assert str(parsed[1]) == "pg_id 1: min/avg/max n/a/5/9 us"


def test_latency_from_csit_text() -> None:
    parsed = parse_latency({0: "10/15/20/HISTFAAAA", 1: "-1/-1/-1/", 2: "5/6/7"})
    assert parsed[0] == Latency(0, 10.0, 15.0, 20.0, hdrh="HISTFAAAA")
    assert parsed[1] == Latency(1, -1.0, -1.0, -1.0)
    assert parsed[2].hdrh is None
    with pytest.raises(TrafficGeneratorError, match=r"'10/15' is not 'min/avg/max\[/hdrh\]'"):
        parse_latency({0: "10/15"})


def test_latency_errors() -> None:
    assert parse_latency(None) == {}
    with pytest.raises(TrafficGeneratorError, match="'flows' is not a pg_id"):
        parse_latency({"flows": {}})
    with pytest.raises(TrafficGeneratorError, match="histogram bucket 'x' is not a number"):
        parse_latency({0: {"latency": {"histogram": {"x": 1}}}})
    with pytest.raises(TrafficGeneratorError, match="42 is not understood"):
        parse_latency({0: 42})


def test_trex_trial_keeps_latency_alongside() -> None:
    trial = trex_trial(
        stats(latency={0: {"latency": {"total_min": 3, "average": 4, "total_max": 5}}}),
        duration=1.0,
        load=2e6,
        directions=BIDIR,
        traffic_duration_s=None,
    )
    assert trial.latency[0].max_us == 5.0
    assert trial.result.effective_duration == 1.0


# -- properties ---------------------------------------------------------------------


@settings(deadline=None, derandomize=True, max_examples=300)
@given(
    sent=st.tuples(st.integers(0, 10**7), st.integers(0, 10**7)),
    received=st.tuples(st.integers(0, 10**7), st.integers(0, 10**7)),
    load=st.floats(0, 2e7, allow_nan=False),
    duration=st.floats(0.01, 60, allow_nan=False),
)
def test_counts_invariants(
    sent: tuple[int, int], received: tuple[int, int], load: float, duration: float
) -> None:
    result = trial_result(
        TrialCounts(
            duration,
            load,
            BIDIR,
            {0: PortCounts(sent[0], received[0]), 1: PortCounts(sent[1], received[1])},
        )
    )
    assert result.offered_count == sum(sent)
    assert result.forwarded_count == min(sent[0], received[1]) + min(sent[1], received[0])
    assert result.intended_count is not None
    assert result.intended_count >= result.offered_count
    nominal = round(load * duration)
    assert result.intended_count in (nominal, result.offered_count)
    assert result.intended_count >= nominal - load * 1e-5 - 1
    assert 0.0 <= result.loss_ratio <= 1.0
