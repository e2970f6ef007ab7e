"""A buffer in a soak's trials: the first excess frames of every trial hidden, whatever its
length.

A DUT with a deep queue (descriptor rings, a vSwitch or VM in the path, a
shaper's bucket) hides the first excess frames of every trial: past its
capacity ``C`` [pps] a trial of ``D`` s at load ``L`` loses
``(L - C) D - B`` frames, none while that is below its buffer ``B``
[frames]. Short trials then see a capacity above the long-run one, which
no trial of a soak's length shows directly (a 0.2 s buffer hides 0.1 % of
the capacity from a 3-minute trial), and a loss curve fitted to the
trials' loss ratios extrapolates the long-run loss too far down.

Such a DUT forwards ``C D + B`` frames in every trial that lost, whatever
its load: the capacity for the trial's duration, and the buffer. So a
least-squares line of the lossy trials' forwarded frames over their
durations (``estimate``) has the capacity for its slope and the buffer
for its intercept, and it reads the trials as that model or not at all:
it must fit every lossy trial within ``FIT_SHARE`` of its frames and tell
the buffer (of ``MIN_BUFFER_FRAMES`` or more) within ``BUFFER_SHARE`` of it,
every lossy trial must lie above the capacity, and no trial may have lost
far beyond its allowance fewer frames than the line says. Loss that comes in bursts
(a random share of the frames) fails the fit; a cliff without a buffer has
an intercept of nothing; a smooth curve loses a share that grows with the
load, not a count that grows with the time. The soak fit (``soakfit``) then
reads the trials with a curve of that shape alone (a cliff past which the
loss grows linearly with the load, less that buffer), and the search runs
each trial where the buffer no longer hides the critical load from it
(``Posterior.trial_load``).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

from ndrpdr.search.soak.soakbursty import Counted, far_beyond, least_squares_slope, lost_far_beyond

#: The line must fit every lossy trial's forwarded frames within this share of them ...
FIT_SHARE = 1e-5
#: ... and tell the buffer within this share of it (its misfit and a frame of rounding) ...
BUFFER_SHARE = 0.1
#: ... a buffer of at least this many frames (fewer hide at most the 1e-7 allowance of a trial
#: of 1e10 frames, 17 minutes at 10 Mpps: the smooth curve reads them) ...
MIN_BUFFER_FRAMES = 1000.0
#: ... from lossy trials of this many durations (each a thousandth or more from the others:
#: two durations a line always fits), their longest at least LONGER x their shortest.
MIN_DURATIONS = 3
LONGER = 1.2


@dataclasses.dataclass(frozen=True)
class Buffer:
    """The buffer the trials show [frames]: at least ``low``, at most ``high``."""

    low: float
    high: float

    def near(self, other: Buffer | None) -> bool:
        """``other`` says the same within a hundredth of this one's level."""
        if other is None:
            return False
        slack = 0.01 * self.high
        return abs(other.low - self.low) <= slack and abs(other.high - self.high) <= slack


def estimate(seen: Sequence[Counted], loss_ratio: float) -> Buffer | None:
    """The buffer the trials show (see the module), None when they show none."""
    lossy = [o for o in seen if o.frames > 0 and o.load > 0 and far_beyond(o, loss_ratio)]
    # The seconds each trial sent frames for (frames meant to be sent over the load).
    durations = [o.frames / o.load for o in lossy]
    if len({round(math.log(d), 3) for d in durations}) < MIN_DURATIONS:
        return None
    if max(durations) < LONGER * min(durations):
        return None
    forwarded = [o.frames - o.lost for o in lossy]
    capacity = least_squares_slope(durations, forwarded)
    buffer = sum(forwarded) / len(forwarded) - capacity * (sum(durations) / len(durations))
    misfit = max(abs(f - capacity * d - buffer) for d, f in zip(durations, forwarded, strict=True))
    if (
        capacity <= 0
        or misfit > FIT_SHARE * min(forwarded)
        or misfit + 1.0 > BUFFER_SHARE * buffer
        or buffer < MIN_BUFFER_FRAMES
        or any(o.load <= capacity for o in lossy)
    ):
        return None
    low, high = buffer - misfit - 1.0, buffer + misfit + 1.0
    for other in seen:  # a trial that lost far beyond its allowance fewer than the line says
        if other.frames <= 0 or other.load <= 0:
            continue
        said = other.frames - capacity * other.frames / other.load - low
        if lost_far_beyond(said - other.lost, other.frames, loss_ratio):
            return None
    return Buffer(low, high)
