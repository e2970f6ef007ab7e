"""The goals a throughput test searches for (RFC 9971 Search Goals), and their names.

Defaults follow FD.io CSIT's production goals: loss ratios 0 (NDR) and
0.005 (PDR), exceed ratio 0.5, width 0.005, 1 s initial trials, 21 s of
full-length trials to settle a load. One search may hold more loss ratios
(``loss_ratio_goals``); ``goal_label`` and ``goal_key`` are the one place
a goal's name for people and for metadata keys is made.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence

from ndrpdr.search.errors import SearchInputError
from ndrpdr.search.goal import Goal
from ndrpdr.units import format_percent

NDR_LOSS_RATIO = 0.0
PDR_LOSS_RATIO = 0.005

_SEPARATORS = re.compile(r"[,\s]+")


def goal_label(loss_ratio: float, pdr_loss_ratio: float = PDR_LOSS_RATIO) -> str:
    """A goal's name for people: "NDR" (loss 0), "PDR" (``pdr_loss_ratio``), else "loss ≤ 2 %"."""
    if loss_ratio == NDR_LOSS_RATIO:
        return "NDR"
    if loss_ratio == pdr_loss_ratio:
        return "PDR"
    return f"loss \u2264 {format_percent(loss_ratio)} %"


def goal_key(loss_ratio: float, pdr_loss_ratio: float = PDR_LOSS_RATIO) -> str:
    """A goal's prefix of metadata keys: "NDR", "PDR", else "LOSS_<percent>PCT".

    The percent is written as by ``format_percent`` with the decimal point
    as ``P``: 0.02 gives "LOSS_2PCT", 0.001 "LOSS_0P1PCT", 0.0025
    "LOSS_0P25PCT" (letters, digits and ``_`` only, so any tool reading
    output.xml can take it as a name).
    """
    if loss_ratio == NDR_LOSS_RATIO:
        return "NDR"
    if loss_ratio == pdr_loss_ratio:
        return "PDR"
    return f"LOSS_{format_percent(loss_ratio).replace('.', 'P')}PCT"


def parse_loss_ratios(
    value: str | Iterable[object], name: str = "loss_ratios"
) -> tuple[float, ...]:
    """Loss ratios from ``"0, 0.005, 0.02"`` (commas or spaces) or a list of numbers.

    Each must be in [0, 1) and appear once; SearchInputError names ``name``
    and the bad item otherwise. Order is kept (it is the order of goals).
    """
    items: list[object] = (
        [part for part in _SEPARATORS.split(value.strip()) if part]
        if isinstance(value, str)
        else list(value)
    )
    if not items:
        raise SearchInputError(f"{name}={value!r} is empty: give at least one loss ratio")
    ratios: list[float] = []
    for item in items:
        try:
            ratio = float(item)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            raise SearchInputError(
                f"{name}: {item!r} is not a number (loss ratios are fractions: 0.005 is 0.5 %)"
            ) from None
        if not math.isfinite(ratio) or not 0.0 <= ratio < 1.0:
            raise SearchInputError(f"{name}: {item!r} must be in [0, 1) (0.005 is 0.5 %)")
        clash = [r for r in ratios if goal_key(r) == goal_key(ratio)]
        if clash:
            same = "is given twice" if clash[0] == ratio else f"has the same name as {clash[0]!r}"
            raise SearchInputError(f"{name}: {item!r} {same} (3 significant digits of percent)")
        ratios.append(ratio)
    return tuple(ratios)


def loss_ratio_goals(
    loss_ratios: Sequence[float],
    *,
    final_trial_duration_s: float = 1.0,
    initial_trial_duration_s: float = 1.0,
    duration_sum_s: float | None = None,
    relative_width: float = 0.005,
    exceed_ratio: float = 0.5,
) -> tuple[Goal, ...]:
    """One goal per loss ratio, in order, sharing the other settings.

    ``duration_sum_s`` defaults to max(21 s, the final duration); the
    initial duration is capped by the final one.
    """
    initial = min(initial_trial_duration_s, final_trial_duration_s)
    total = max(21.0, final_trial_duration_s) if duration_sum_s is None else duration_sum_s
    return tuple(
        Goal(
            loss_ratio=ratio,
            exceed_ratio=exceed_ratio,
            relative_width=relative_width,
            initial_trial_duration=initial,
            final_trial_duration=final_trial_duration_s,
            duration_sum=total,
        )
        for ratio in loss_ratios
    )


def ndr_pdr_goals(
    *,
    final_trial_duration_s: float = 1.0,
    initial_trial_duration_s: float = 1.0,
    duration_sum_s: float | None = None,
    relative_width: float = 0.005,
    exceed_ratio: float = 0.5,
    pdr_loss_ratio: float = PDR_LOSS_RATIO,
) -> tuple[Goal, Goal]:
    """(NDR goal, PDR goal); ``duration_sum_s`` defaults to max(21 s, the final duration)."""
    ndr, pdr = loss_ratio_goals(
        (NDR_LOSS_RATIO, pdr_loss_ratio),
        final_trial_duration_s=final_trial_duration_s,
        initial_trial_duration_s=initial_trial_duration_s,
        duration_sum_s=duration_sum_s,
        relative_width=relative_width,
        exceed_ratio=exceed_ratio,
    )
    return ndr, pdr
