"""Max-load calibration: before a search, learn what the TG can really send.

A TG often declares a maximum load (its ports' line rate) far above what it
gets out (tcpreplay on veths sends some 0.5 Mpps of 64 B frames while the
veth "speed" allows 29 Mpps). A search up to the declared maximum then
spends its trials at loads the TG never offers, and every one of them is
"lossy" with frames never sent. ``calibrate_max_load`` runs a short trial
at the max load and reads how many frames the TG got out per second it
was sending (``offered_rate_pps``), whatever the DUT did with them. When
that is below the max load (beyond ``TG_LIMIT_TOLERANCE``), the TG's
flat-out rate is measured ``CALIBRATION_TRIALS`` times in all and the
search's max load is capped at the slowest of them, less
``CALIBRATION_MARGIN``: a software TG's flat-out rate wobbles from trial to
trial (tcpreplay on a 2-core VM: 0.47 to 0.60 Mpps), and a cap at one lucky
trial gives a max load the TG cannot hold (its trials there stretch) and a
bound that moves by the wobble from run to run. A trial far below the
median of the trials (under ``STARVED_FRACTION`` of it: a TG starved for a
second on a loaded machine, which once capped a whole search at 16 kpps
where its neighbours sent 330 kpps) is no measure of the TG: it is kept in
the record but not used, and ``EXTRA_TRIALS`` more trials run so that the
median rests on enough. A user-given max rate above
what the TG can send is capped the same way, with a warning. The
calibration trials are kept in the record (``search.max_load_cap``), not as
search trials.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ndrpdr.results.record import trial_entry
from ndrpdr.results.tglimit import TG_LIMIT_TOLERANCE, offered_rate_pps
from ndrpdr.search.trial import Measurer, TrialResult
from ndrpdr.trafficgen.base import TrafficGeneratorError
from ndrpdr.units import format_rate

#: The capped max load is this much below what the calibration trial sent (1 %), so
#: trials at the cap stay within TG_LIMIT_TOLERANCE on a TG whose rate wobbles a little.
CALIBRATION_MARGIN = 0.01

#: Calibration trials in all when the first one shows the TG falling short (the cap is the slowest).
CALIBRATION_TRIALS = 3

#: A calibration trial that sent less than this fraction of the trials' median is a starved
#: one: kept in the record, not used for the cap.
STARVED_FRACTION = 0.75

#: Trials added once when a calibration trial was starved.
EXTRA_TRIALS = 2

#: How the record names the method.
METHOD = (
    f"calibration trials at the max load ({CALIBRATION_TRIALS} when the first falls short, "
    f"{EXTRA_TRIALS} more when one is starved): the slowest offered frames / max(duration, "
    f"effective duration) among the trials that sent at least {STARVED_FRACTION:.0%} of "
    "their median"
)


def _usable(rates: list[float]) -> list[int]:
    """Indexes of the rates not starved (at least STARVED_FRACTION of the median)."""
    ordered = sorted(rates)
    middle = len(ordered) // 2
    median = ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2
    return [i for i, rate in enumerate(rates) if rate >= STARVED_FRACTION * median]


@dataclasses.dataclass(frozen=True)
class MaxLoadCap:
    """The outcome of a calibration [aggregate pps].

    ``requested_pps``: the max load asked for; ``capable_pps``: what the TG
    sent per second in its slowest calibration trial, ``trial``;
    ``highest_pps``: in its fastest; ``capped_pps``: the max load to search
    up to instead, None when the TG kept up (no cap); ``trials``: every
    calibration trial in the order they ran; ``starved``: how many of them
    were starved (far below the median) and not used.
    """

    requested_pps: float
    capable_pps: float
    capped_pps: float | None
    trial: TrialResult
    margin: float = CALIBRATION_MARGIN
    method: str = METHOD
    highest_pps: float | None = None
    trials: tuple[TrialResult, ...] = ()
    starved: int = 0

    @property
    def max_load_pps(self) -> float:
        """The max load the search should use."""
        return self.requested_pps if self.capped_pps is None else self.capped_pps

    def describe(self) -> str:
        """One line for the console and the log."""
        if self.capped_pps is None:
            return (
                f"max load {format_rate(self.requested_pps)}: the TG sent "
                f"{format_rate(self.capable_pps)} in a {self.trial.duration:g} s calibration trial"
            )
        count = max(len(self.trials), 1)
        sent = format_rate(self.capable_pps)
        if count > 1 and self.highest_pps is not None:
            sent = (
                f"{format_rate(self.capable_pps)} to {format_rate(self.highest_pps)} "
                f"in {count} {self.trial.duration:g} s calibration trials"
            )
        else:
            sent = f"{sent} in a {self.trial.duration:g} s calibration trial"
        dropped = (
            f", {self.starved} starved trial(s) far below the others not used"
            if self.starved
            else ""
        )
        return (
            f"max load capped at {format_rate(self.capped_pps)}: the TG sent only {sent} "
            f"at the requested {format_rate(self.requested_pps)} "
            f"(cap = {1 - self.margin:.0%} of the slowest{dropped})"
        )

    def to_json(self) -> dict[str, Any]:
        """The record's ``search.max_load_cap`` object."""
        return {
            "requested_pps": self.requested_pps,
            "capped_pps": self.capped_pps,
            "capable_pps": self.capable_pps,
            "margin": self.margin,
            "method": self.method,
            "trial": trial_entry(0, self.trial),
            "highest_pps": self.capable_pps if self.highest_pps is None else self.highest_pps,
            "trials": [trial_entry(i, t) for i, t in enumerate(self.trials or (self.trial,))],
        }


def calibrate_max_load(
    tg: Measurer,
    max_load_pps: float,
    duration_s: float,
    *,
    min_load_pps: float | None = None,
    margin: float = CALIBRATION_MARGIN,
    trials: int = CALIBRATION_TRIALS,
) -> MaxLoadCap:
    """Run a ``duration_s`` trial at ``max_load_pps`` on ``tg``; cap the max load if needed.

    When the TG sent less than TG_LIMIT_TOLERANCE of the max load, ``trials``
    trials run in all and the cap is ``(1 - margin)`` x the slowest one's
    offered rate. Raises TrafficGeneratorError when the TG sent nothing, or
    when the cap would fall to or below a given ``min_load_pps``.
    """
    if not 0 <= margin < 1:
        raise ValueError(f"calibrate_max_load: margin={margin!r} must be in [0, 1)")
    if trials < 1:
        raise ValueError(f"calibrate_max_load: trials={trials!r} must be >= 1")
    measured = [tg.measure(duration_s, max_load_pps)]
    rates = [offered_rate_pps(trial_entry(0, measured[0]))]
    if rates[0] <= 0:
        raise TrafficGeneratorError(
            f"max-load calibration: the TG sent no frames in a {duration_s:g} s trial at "
            f"{format_rate(max_load_pps)}; check the TG's ports and links"
        )
    capped: float | None = None
    usable = [0]
    if rates[0] < TG_LIMIT_TOLERANCE * max_load_pps:

        def measure(count: int) -> None:
            for _ in range(count):
                measured.append(tg.measure(duration_s, max_load_pps))
                rates.append(offered_rate_pps(trial_entry(0, measured[-1])))

        measure(trials - 1)
        if len(_usable(rates)) < len(rates):  # a starved trial: the median needs more
            measure(EXTRA_TRIALS)
        usable = _usable(rates)
        lowest = min(rates[i] for i in usable)
        capped = lowest * (1 - margin)
        if capped <= 0 or (min_load_pps is not None and capped <= min_load_pps):
            raise TrafficGeneratorError(
                f"max-load calibration: the TG sends at most {format_rate(lowest)} in its "
                f"slowest of {len(rates)} trials at {format_rate(max_load_pps)}, not above the "
                f"min load {format_rate(min_load_pps or 0.0)}; give a lower min_rate"
            )
    slowest = min(usable, key=lambda i: rates[i])
    return MaxLoadCap(
        requested_pps=max_load_pps, capable_pps=rates[slowest], capped_pps=capped,
        trial=measured[slowest], margin=margin, highest_pps=max(rates), trials=tuple(measured),
        starved=len(rates) - len(usable),
    )  # fmt: skip
