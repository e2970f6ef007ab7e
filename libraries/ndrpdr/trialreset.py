"""A DUT's state reset before every trial: CSIT's ``${resetter}``, as a wrapper of the TG.

CSIT's cps suites of stateful families (NAT44-ED, SFDP) set a resetter
that ``TrafficGenerator.measure`` calls before each trial, so that every
trial creates its sessions anew instead of meeting the last trial's: the
NAT44-ED outside pool deleted and added again, SFDP's sessions killed and
their table waited for empty. CSIT sets it only where a suite has no
ramp-up rate; where both were set, the reset would come first and the
ramp-up (``ndrpdr.rampup``) after it, as CSIT orders them.

``ResetTraffic`` wraps the TG (or the ramped TG): each trial (the search's,
a calibration's, a latency trial) is preceded by one call of ``reset``
(``ndrpdr.activebed.statecount.trial_reset`` builds it from the family's
VPP set-up; a DutError it raises fails the run as a DUT failure does).
The trials, their count and the record are the wrapped TG's; ``resets``
counts the calls, for the log.
"""

from __future__ import annotations

from collections.abc import Callable

from ndrpdr.search.trial import TrialResult
from ndrpdr.trafficgen.base import TrafficGenerator, latency_measurer
from ndrpdr.trafficgen.latency import LatencyResult


class ResetTraffic:
    """A TG whose every trial is preceded by ``reset()`` (module docstring)."""

    def __init__(self, tg: TrafficGenerator, reset: Callable[[], None]) -> None:
        """Wrap ``tg``; nothing runs before the first trial."""
        self.tg, self.reset = tg, reset
        self.resets = 0

    @property
    def max_load_pps(self) -> float:
        """The wrapped TG's maximum [pps]."""
        return self.tg.max_load_pps

    @property
    def sends_frame_list(self) -> bool:
        """Whether the wrapped TG sends a frame list."""
        return self.tg.sends_frame_list

    def _reset(self) -> None:
        self.reset()
        self.resets += 1

    def measure(self, duration: float, load: float) -> TrialResult:
        """The DUT's state reset, then one trial of the wrapped TG."""
        self._reset()
        return self.tg.measure(duration, load)

    def measure_latency(self, duration_s: float, load_pps: float) -> LatencyResult | None:
        """The wrapped TG's latency trial after a reset; None (no reset) if it has none."""
        measurer = latency_measurer(self.tg)
        if measurer is None:
            return None
        self._reset()
        return measurer.measure_latency(duration_s, load_pps)

    def stop_traffic(self) -> None:
        """Stop the wrapped TG's traffic."""
        self.tg.stop_traffic()

    def close(self) -> None:
        """Close the wrapped TG."""
        self.tg.close()
