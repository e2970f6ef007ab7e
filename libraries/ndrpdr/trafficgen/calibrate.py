"""Max-load calibration: before a search, learn what the TG can really send.

A TG often declares a maximum load (its ports' line rate) far above what it
gets out (tcpreplay on veths sends some 0.4 Mpps of 64 B frames while the
veth "speed" allows 29 Mpps). A search up to the declared maximum then
spends its trials at loads the TG never offers, and every one of them is
"lossy" with frames never sent. ``calibrate_max_load`` runs one short trial
at the max load and reads how many frames the TG got out per second it
was sending (``offered_rate_pps``), whatever the DUT did with them; when
that is below the max load (beyond ``TG_LIMIT_TOLERANCE``), the search's
max load is capped at it, less ``CALIBRATION_MARGIN``. A user-given max
rate above what the TG can send is capped the same way, with a warning.
The calibration trial is kept in the record (``search.max_load_cap``), not
as a search trial.
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

#: How the record names the method.
METHOD = "calibration trial at the max load: offered frames / max(duration, effective duration)"


@dataclasses.dataclass(frozen=True)
class MaxLoadCap:
    """The outcome of a calibration [aggregate pps].

    ``requested_pps``: the max load asked for; ``capable_pps``: what the TG
    sent per second in the calibration ``trial``; ``capped_pps``: the max
    load to search up to instead, None when the TG kept up (no cap).
    """

    requested_pps: float
    capable_pps: float
    capped_pps: float | None
    trial: TrialResult
    margin: float = CALIBRATION_MARGIN
    method: str = METHOD

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
        return (
            f"max load capped at {format_rate(self.capped_pps)}: the TG sent only "
            f"{format_rate(self.capable_pps)} in a {self.trial.duration:g} s calibration trial "
            f"at the requested {format_rate(self.requested_pps)} "
            f"(cap = {1 - self.margin:.0%} of what it sent)"
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
        }


def calibrate_max_load(
    tg: Measurer,
    max_load_pps: float,
    duration_s: float,
    *,
    min_load_pps: float | None = None,
    margin: float = CALIBRATION_MARGIN,
) -> MaxLoadCap:
    """Run one ``duration_s`` trial at ``max_load_pps`` on ``tg``; cap the max load if needed.

    The cap is ``(1 - margin)`` x the offered rate, applied when the TG sent
    less than TG_LIMIT_TOLERANCE of the max load. Raises
    TrafficGeneratorError when the TG sent nothing, or when the cap would
    fall to or below a given ``min_load_pps``.
    """
    if not 0 <= margin < 1:
        raise ValueError(f"calibrate_max_load: margin={margin!r} must be in [0, 1)")
    trial = tg.measure(duration_s, max_load_pps)
    capable = offered_rate_pps(trial_entry(0, trial))
    if capable <= 0:
        raise TrafficGeneratorError(
            f"max-load calibration: the TG sent no frames in a {duration_s:g} s trial at "
            f"{format_rate(max_load_pps)}; check the TG's ports and links"
        )
    capped: float | None = None
    if capable < TG_LIMIT_TOLERANCE * max_load_pps:
        capped = capable * (1 - margin)
        if min_load_pps is not None and capped <= min_load_pps:
            raise TrafficGeneratorError(
                f"max-load calibration: the TG sends at most {format_rate(capable)}, not above "
                f"the min load {format_rate(min_load_pps)}; give a lower min_rate"
            )
    return MaxLoadCap(
        requested_pps=max_load_pps, capable_pps=capable, capped_pps=capped, trial=trial,
        margin=margin,
    )  # fmt: skip
