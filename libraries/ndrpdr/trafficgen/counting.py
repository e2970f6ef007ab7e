"""A trial's counts -> TrialResult: the counting rules every TG that counts per port keeps.

The local TG (tcpreplay, counted at its veths) and TRex (counted by its
ports, or at its veths on a local testbed) count the same things and
judge them by these rules, so that a trial means the same on either. A
driver gives, per direction of the trial, the port it left (``tx``), the
port it came back on (``rx``: the traffic path's TG ports, numbered as
TRex numbers its ports), the frames ``tx`` sent and the frames ``rx``
received; how long the traffic ran; and which of its senders it had to
stop at the cut-off. From those (``counted_result``):

* offered = the frames sent; forwarded = per direction what came back, at
  most what that direction sent; the rest is the trial's surplus
  (``TrialResult.surplus_count``: frames the DUT made or that were not the
  TG's). Per direction, so one direction's surplus never hides another's
  loss;
* one way: a direction that received nothing while another received
  frames is named in a warning (``ndrpdr.results.oneway``, which the
  irregular judgement reads), ``direction <tx>-><rx>``;
* intended = ``round(load x duration)``, or what was offered if more; a
  shortfall of at most MISSING_TOLERANCE_S worth of frames is forgiven
  (CSIT's tolerance: then intended = offered). What is left is unsent,
  which the TrialResult counts as lost (RFC 9971), and the "sent X of Y
  intended frames" warning says so;
* the stretch cut-off: a trial lasts its duration. Traffic still running
  ``cutoff_s(duration)`` after its start is stopped (``cutoff_s``, the
  drivers' clock); a sender stopped with frames unsent gets a warning (the
  frames count as lost); traffic that ran past the cut-off yet sent every
  frame is stretched, which a warning says; the effective duration is how
  long the traffic ran (the duration when unknown).

The warnings come in that order (the likeliest cause first), before the
driver's own (tcpreplay's rate, TRex's queue and CPU figures).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence

from ndrpdr.results.oneway import one_way_warnings
from ndrpdr.search.trial import TrialResult
from ndrpdr.trafficgen.base import TrafficGeneratorError

#: Traffic still running at duration x (1 + STRETCH_TOLERANCE) + STRETCH_GRACE_S [s] after its
#: start is stopped (``cutoff_s``); frames not sent by then count as lost.
STRETCH_TOLERANCE = 0.01
STRETCH_GRACE_S = 0.25  # also covers a sender's start (e.g. tcpreplay's pcap preload)

#: Frames worth this long may be missing without counting as unsent [s] (CSIT's 1e-5).
MISSING_TOLERANCE_S = 1e-5


def cutoff_s(duration: float) -> float:
    """How long after its start a trial of ``duration`` [s] may send before it is stopped [s]."""
    return duration * (1 + STRETCH_TOLERANCE) + STRETCH_GRACE_S


def stretched(duration: float, ran_s: float) -> bool:
    """True when traffic that ran ``ran_s`` [s] went past the cut-off of a ``duration`` trial."""
    return ran_s > cutoff_s(duration)


def intended_count(load: float, duration: float, offered: int = 0) -> int:
    """Frames the trial should have sent: ``round(load * duration)``, or ``offered`` if more.

    A shortfall within MISSING_TOLERANCE_S worth of frames (CSIT's 10 us)
    is forgiven: then the intended count is what was offered.
    """
    nominal = round(load * duration)
    tolerated = math.ceil(load * max(0.0, duration - MISSING_TOLERANCE_S) - 1e-9)
    return offered if offered >= min(tolerated, nominal) else nominal


@dataclasses.dataclass(frozen=True)
class DirectionCount:
    """One direction of a trial: ``sent`` frames left port ``tx``, ``received`` came to ``rx``."""

    tx: int
    rx: int
    sent: int
    received: int


@dataclasses.dataclass(frozen=True)
class TrialCounts:
    """What a TG driver counted in one trial (the inputs of ``counted_result``).

    ``duration`` [s] and ``load`` [pps, aggregate] are the intended ones;
    ``sender`` names the TG in the unsent warning ("TRex", "TG");
    ``ran_s`` is how long the traffic ran [s] (None: unknown, the
    duration counts); ``stopped`` names each sender the driver stopped at
    the cut-off, with how long after the start it still ran [s].
    """

    duration: float
    load: float
    directions: Sequence[DirectionCount]
    sender: str = "TG"
    ran_s: float | None = None
    stopped: Mapping[str, float] = dataclasses.field(default_factory=dict)


def unsent_warning(sender: str, offered: int, intended: int, duration: float, load: float) -> str:
    """The warning of a trial whose TG offered ``offered`` of ``intended`` frames."""
    return (
        f"{sender} sent {offered} of {intended} intended frames ({intended - offered} unsent, "
        f"counted as lost): achieved {offered / duration:.0f} pps of {load:g} pps"
    )


def cut_off_warning(sender: str, duration: float, ran_s: float) -> str:
    """The warning for ``sender``, stopped ``ran_s`` [s] into a ``duration`` [s] trial."""
    return (
        f"{sender} was still sending {ran_s:.3f} s after the start of a {duration:g} s trial "
        f"(cut-off +{STRETCH_TOLERANCE:.0%} +{STRETCH_GRACE_S:g} s); stopped, frames not sent "
        "count as lost"
    )


def stretch_warning(duration: float, ran_s: float) -> str:
    """The warning of traffic that ran ``ran_s`` [s] for a ``duration`` [s] trial."""
    return (
        f"duration stretching: the traffic ran {ran_s:.3f} s for a {duration:g} s trial "
        f"(+{ran_s / duration - 1:.1%})"
    )


def _check(counts: TrialCounts) -> None:
    for direction in counts.directions:
        for what in ("sent", "received"):
            value = getattr(direction, what)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise TrafficGeneratorError(
                    f"direction {direction.tx}->{direction.rx}: {what}={value!r} is not a count"
                )
    ran = counts.ran_s
    if ran is not None and (not math.isfinite(ran) or ran < 0):
        raise TrafficGeneratorError(f"traffic duration {ran!r} s is not a duration")


def counted_result(counts: TrialCounts, warnings: Sequence[str] = ()) -> TrialResult:
    """The TrialResult of ``counts`` by the rules above, the driver's own ``warnings`` last."""
    _check(counts)
    offered = sum(d.sent for d in counts.directions)
    forwarded = sum(min(d.received, d.sent) for d in counts.directions)
    surplus = sum(max(0, d.received - d.sent) for d in counts.directions)
    notes = one_way_warnings({(d.tx, d.rx): (d.sent, d.received) for d in counts.directions})
    intended = intended_count(counts.load, counts.duration, offered)
    ran = counts.ran_s
    if intended > offered:
        notes.append(unsent_warning(counts.sender, offered, intended, counts.duration, counts.load))
    if intended > offered and counts.stopped:  # what it did not send is lost, not late
        notes.extend(cut_off_warning(who, counts.duration, s) for who, s in counts.stopped.items())
    elif ran is not None and stretched(counts.duration, ran):  # late, the frames all sent
        notes.append(stretch_warning(counts.duration, ran))
    return TrialResult(
        duration=counts.duration,
        load=counts.load,
        offered_count=offered,
        forwarded_count=forwarded,
        intended_count=intended,
        effective_duration=ran if ran is not None and ran > 0 else counts.duration,
        surplus_count=surplus,
        warnings=(*notes, *warnings),
    )
