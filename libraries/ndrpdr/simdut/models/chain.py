"""DUT models in a chain (3-node: TG - DUT1 - DUT2 - TG): what one forwards, the next receives."""

from __future__ import annotations

import random
from collections.abc import Sequence

from ndrpdr.search.errors import SearchInputError
from ndrpdr.simdut.models.base import check_fraction, check_non_negative, check_positive
from ndrpdr.simdut.models.protocol import DutModel


class ChainModel:
    """Several DUT models crossed in order, as frames cross DUT1 then DUT2.

    A trial offers ``round(load * duration)`` frames to the first model; each
    next model receives what the previous one forwarded, at the rate that
    many frames make over the trial's duration. The chain is deterministic
    when every member is. Its true throughput for a goal is the lowest of
    the members' (a chain is as fast as its slowest DUT); with members of
    similar speed, losses add up and the chain's own knee lies a little
    lower, so that truth is an upper bound then.
    """

    def __init__(self, models: Sequence[DutModel]) -> None:
        """``models``: the DUTs in the order frames cross them (at least one)."""
        if not models:
            raise SearchInputError("a chain needs at least one DUT model")
        self.models = tuple(models)

    @property
    def name(self) -> str:
        """The members' kinds joined by ``+`` ("sharp+gradual")."""
        return "+".join(m.name for m in self.models)

    @property
    def deterministic(self) -> bool:
        """True when every member is."""
        return all(m.deterministic for m in self.models)

    def true_throughput(self, duration_s: float, loss_ratio: float) -> float:
        """The lowest member's true throughput [pps] for that goal."""
        check_positive("duration_s", duration_s)
        check_fraction("loss_ratio", loss_ratio)
        return min(m.true_throughput(duration_s, loss_ratio) for m in self.models)

    def true_ndr(self, duration_s: float) -> float:
        """``true_throughput(duration_s, 0.0)`` [pps]."""
        return self.true_throughput(duration_s, 0.0)

    def true_pdr(self, duration_s: float, loss_ratio: float = 0.005) -> float:
        """``true_throughput(duration_s, loss_ratio)`` [pps]."""
        return self.true_throughput(duration_s, loss_ratio)

    def parameters(self) -> dict[str, float]:
        """Every member's parameters, prefixed ``dut1_``, ``dut2_``..."""
        return {
            f"dut{index}_{key}": value
            for index, model in enumerate(self.models, start=1)
            for key, value in model.parameters().items()
        }

    def trial(self, duration_s: float, load_pps: float, rng: random.Random) -> tuple[int, int]:
        """``(offered_count, forwarded_count)`` of the whole chain [frames]."""
        check_positive("duration_s", duration_s)
        check_non_negative("load_pps", load_pps)
        offered, forwarded = self.models[0].trial(duration_s, load_pps, rng)
        for model in self.models[1:]:
            if forwarded == 0:
                break
            _, forwarded = model.trial(duration_s, forwarded / duration_s, rng)
        return offered, forwarded  # above offered: a DUT that duplicates

    def __repr__(self) -> str:
        return f"ChainModel({list(self.models)!r})"
