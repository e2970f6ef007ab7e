"""The NDR and PDR goals a throughput test searches for (RFC 9971 Search Goals).

Defaults follow FD.io CSIT's production goals: loss ratios 0 (NDR) and
0.005 (PDR), exceed ratio 0.5, width 0.005, 1 s initial trials, 21 s of
full-length trials to settle a load.
"""

from __future__ import annotations

from ndrpdr.search.goal import Goal

NDR_LOSS_RATIO = 0.0
PDR_LOSS_RATIO = 0.005


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
    initial = min(initial_trial_duration_s, final_trial_duration_s)
    total = max(21.0, final_trial_duration_s) if duration_sum_s is None else duration_sum_s
    common = {
        "exceed_ratio": exceed_ratio,
        "relative_width": relative_width,
        "initial_trial_duration": initial,
        "final_trial_duration": final_trial_duration_s,
        "duration_sum": total,
    }
    return (
        Goal(loss_ratio=NDR_LOSS_RATIO, **common),
        Goal(loss_ratio=pdr_loss_ratio, **common),
    )
