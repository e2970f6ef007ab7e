"""Search Goal (RFC 9971 section 4.1): what one goal asks of the search."""

from __future__ import annotations

import dataclasses

from ndrpdr.search.errors import SearchInputError
from ndrpdr.search.numbers import finite_number


def _finite(name: str, value: object) -> float:
    return finite_number(f"Goal {name}", value)


@dataclasses.dataclass(frozen=True)
class Goal:
    """One Search Goal. Defaults are RFC 9971's recommendations.

    loss_ratio: Goal Loss Ratio; a trial with a higher loss ratio is high-loss.
        0 <= x < 1.
    exceed_ratio: Goal Exceed Ratio; the share of (effective) trial seconds
        allowed to be high-loss at a lower bound. 0 <= x < 1.
    relative_width: Goal Width, relative: the search may stop once the
        relevant lower bound >= relevant upper bound * (1 - width). 0 < x < 1.
    initial_trial_duration: Goal Initial Trial Duration [s]; the shortest
        trials the controller may use for this goal. > 0.
    final_trial_duration: Goal Final Trial Duration [s]; a trial at least this
        long is full-length. >= initial_trial_duration.
    duration_sum: Goal Duration Sum [s]; full-length seconds that settle a
        load's classification. >= final_trial_duration.
    """

    loss_ratio: float = 0.0
    exceed_ratio: float = 0.5
    relative_width: float = 0.005
    initial_trial_duration: float = 1.0
    final_trial_duration: float = 1.0
    duration_sum: float = 21.0

    def __post_init__(self) -> None:
        loss = _finite("loss_ratio", self.loss_ratio)
        if not 0.0 <= loss < 1.0:
            raise SearchInputError(f"Goal loss_ratio={loss!r} must be in [0, 1)")
        exceed = _finite("exceed_ratio", self.exceed_ratio)
        if not 0.0 <= exceed < 1.0:
            raise SearchInputError(f"Goal exceed_ratio={exceed!r} must be in [0, 1)")
        width = _finite("relative_width", self.relative_width)
        if not 0.0 < width < 1.0:
            raise SearchInputError(f"Goal relative_width={width!r} must be in (0, 1)")
        initial = _finite("initial_trial_duration", self.initial_trial_duration)
        if initial <= 0.0:
            raise SearchInputError(f"Goal initial_trial_duration={initial!r} must be > 0 s")
        final = _finite("final_trial_duration", self.final_trial_duration)
        if final < initial:
            raise SearchInputError(
                f"Goal final_trial_duration={final!r} is below initial_trial_duration={initial!r}"
            )
        total = _finite("duration_sum", self.duration_sum)
        if total < final:
            raise SearchInputError(
                f"Goal duration_sum={total!r} is below final_trial_duration={final!r}"
            )

    def describe(self) -> str:
        """A one-line summary for logs and reports."""
        return (
            f"loss {self.loss_ratio:g}, exceed {self.exceed_ratio:g}, "
            f"width {self.relative_width:g}, trials {self.initial_trial_duration:g}"
            f"..{self.final_trial_duration:g} s, sum {self.duration_sum:g} s"
        )
