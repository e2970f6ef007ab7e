"""Traffic keywords: one trial at a given rate, and MRR (maximum receive rate) trials."""

from __future__ import annotations

from typing import TypedDict

from ndrpdr.console.lines import trial_line
from ndrpdr.mrrrun import MrrHooks, MrrRequest, run_mrr
from ndrpdr.search import TrialResult
from ndrpdr.searchlimits import Given
from ndrpdr.units import format_rate
from NdrPdrLibrary import robotout
from NdrPdrLibrary.argtypes import Duration, FrameSize, Rate, TrafficProfile
from NdrPdrLibrary.keywords.component import Component, keyword
from NdrPdrLibrary.publish import record_publisher
from NdrPdrLibrary.traffic import Traffic, open_traffic, prepared_tg, trial_printer


class TrialSummary(TypedDict):
    """One trial's counts [frames] and rates [frames per second, aggregate].

    | =Key= | =Value= |
    | ``load`` | intended load |
    | ``duration`` | intended duration [s] |
    | ``offered``, ``forwarded`` | frames sent, frames received back |
    | ``lost`` | frames lost (unsent frames count as lost) |
    | ``loss_ratio`` | lost / intended |
    | ``receive_rate`` | forwarded / duration |
    | ``warnings`` | what the TG noticed (e.g. it could not send at the load) |
    """

    load: float
    duration: float
    offered: float
    forwarded: float
    lost: float
    loss_ratio: float
    receive_rate: float
    warnings: list[str]


def _forwarded(trial: TrialResult) -> float:
    """Frames forwarded (the counts are complete after construction)."""
    return float(trial.forwarded_count or 0.0)


def _summary(trial: TrialResult) -> TrialSummary:
    return TrialSummary(
        load=trial.load,
        duration=trial.duration,
        offered=trial.offered_count,
        forwarded=_forwarded(trial),
        lost=float(trial.loss_count or 0.0),
        loss_ratio=trial.loss_ratio,
        receive_rate=_forwarded(trial) / trial.duration,
        warnings=list(trial.warnings),
    )


def _measure(traffic: Traffic, duration: float, load: float) -> TrialResult:
    """One trial; traffic is stopped even when the trial fails or is interrupted."""
    try:
        return traffic.tg.measure(duration, load)
    finally:
        traffic.tg.stop_traffic()


class TrafficKeywords(Component):
    """Send Traffic At Rate For Duration, Measure MRR."""

    @keyword("Send Traffic At Rate For Duration", tags=("traffic",))
    def send_traffic_at_rate_for_duration(
        self,
        rate: Rate,
        duration: Duration,
        profile: TrafficProfile = TrafficProfile.ETHIP4_IP4BASE,
        frame_size: FrameSize = FrameSize(64),
        *,
        bidirectional: bool = True,
        flows: int | None = None,
    ) -> TrialSummary:
        """Offer ``rate`` (aggregate) for ``duration`` and return the counts of that trial.

        A trial in the RFC 2544 sense: traffic for the duration, then the
        counters are read once the last frames have arrived. Returns a
        `TrialSummary`. The TG's warnings (for example that it could not keep
        up) are logged as warnings. ``profile``, ``frame_size``,
        ``bidirectional`` and ``flows`` are as for `Find NDR And PDR`.

        Example:
        | ${trial} = | Send Traffic At Rate For Duration | 2Mpps | 10s | ethip4-ip4base | 64 |
        | Should Be Equal As Numbers | ${trial}[lost] | 0 |
        """
        traffic = open_traffic(
            self.ctx, profile, frame_size, bidirectional=bidirectional, flows=flows
        )
        trial = _measure(traffic, float(duration), traffic.rate_pps(rate, "rate"))
        line = trial_line(1, trial)
        robotout.console(line)
        robotout.info(f"{traffic.describe()}: {line}")
        for warning in trial.warnings:
            robotout.warn(warning)
        return _summary(trial)

    @keyword("Measure MRR", tags=("traffic",))
    def measure_mrr(
        self,
        profile: TrafficProfile = TrafficProfile.ETHIP4_IP4BASE,
        frame_size: FrameSize = FrameSize(64),
        *,
        trial_duration: Duration = Duration(1.0),
        trials: int = 10,
        rate: Rate = Rate("100%"),
        bidirectional: bool = True,
        flows: int | None = None,
    ) -> list[float]:
        """Maximum receive rate: ``trials`` trials at ``rate`` (default the TG's maximum).

        FD.io CSIT's MRR test type: no search, just the rate the DUT
        forwards when offered as much as the TG can send. Returns one
        receive rate per trial [frames per second, aggregate over
        directions]; the test gets their average, stdev, min and max as its
        message and metadata (``MRR_AVG``...) and a JSON record of kind
        ``mrr`` (also when a trial fails). ``trial_duration`` is each trial's
        duration; ``profile``, ``frame_size``, ``bidirectional`` and
        ``flows`` are as for `Find NDR And PDR`. Details: "Reading the
        results" in the manual (docs/results.rst).

        Example:
        | ${rates} = | Measure MRR | ethip4-ip4base | 64 | trial_duration=1s | trials=10 |
        """
        if trials < 1:
            raise Given("trials", trials).bad("Measure MRR needs a trial", "1 or more trials")
        traffic = open_traffic(
            self.ctx, profile, frame_size, bidirectional=bidirectional, flows=flows
        )
        load = traffic.rate_pps(rate, "rate")
        duration = float(trial_duration)
        robotout.console(
            f"\nMRR: {trials} trials of {duration:g} s at {format_rate(load)}, {traffic.describe()}"
        )
        run = run_mrr(
            prepared_tg(self.ctx, traffic),
            MrrRequest(traffic.setup(self.ctx).traffic, load, duration, trials),
            MrrHooks(
                progress=trial_printer(self.ctx),
                finish=record_publisher(self.ctx),  # also when it fails
            ),
        )
        if run.failure is not None:  # the record is published: the failure as raised
            raise run.failure
        stats = run.record["mrr"]["receive_rate_pps"]
        assert stats is not None  # trials >= 1 and none failed
        rates: list[float] = stats["values"]
        return rates
