"""The goal sets the benchmarks search for: NDR and PDR, two ways.

strict: RFC 2544-like; exceed ratio 0, short (1 s) trials first, one final
    trial of D seconds decides (duration sum = final duration = D).
csit: FD.io CSIT production; exceed ratio 0.5, every trial 1 s, 21 s of
    trials settle a load. Its final duration is fixed at 1 s, so it is run
    once per model, whatever durations the strict set uses.
"""

from __future__ import annotations

from ndrpdr.search.goal import Goal

GOAL_SET_NAMES = ("strict", "csit")
GOAL_LABELS = ("NDR", "PDR")
NDR_LOSS_RATIO = 0.0
PDR_LOSS_RATIO = 0.005
GOAL_WIDTH = 0.005
CSIT_TRIAL_DURATION_S = 1.0
CSIT_DURATION_SUM_S = 21.0
CSIT_EXCEED_RATIO = 0.5
STRICT_INITIAL_DURATION_S = 1.0
MIN_LOAD = 1e4
MAX_LOAD = 29.76e6


def check_goal_set(name: str) -> None:
    """Raise ValueError unless ``name`` is a known goal set."""
    if name not in GOAL_SET_NAMES:
        raise ValueError(f"unknown goal set {name!r}; choose from {', '.join(GOAL_SET_NAMES)}")


def final_durations(name: str, durations_s: tuple[float, ...]) -> tuple[float, ...]:
    """The final trial durations [s] to benchmark goal set ``name`` at."""
    check_goal_set(name)
    return (CSIT_TRIAL_DURATION_S,) if name == "csit" else durations_s


def make_goals(name: str, final_duration_s: float) -> tuple[Goal, Goal]:
    """The (NDR, PDR) goals of goal set ``name`` at one final trial duration [s]."""
    check_goal_set(name)
    if name == "csit":
        return _csit_goal(NDR_LOSS_RATIO), _csit_goal(PDR_LOSS_RATIO)
    return (
        _strict_goal(NDR_LOSS_RATIO, final_duration_s),
        _strict_goal(PDR_LOSS_RATIO, final_duration_s),
    )


def _csit_goal(loss_ratio: float) -> Goal:
    return Goal(
        loss_ratio=loss_ratio,
        exceed_ratio=CSIT_EXCEED_RATIO,
        relative_width=GOAL_WIDTH,
        initial_trial_duration=CSIT_TRIAL_DURATION_S,
        final_trial_duration=CSIT_TRIAL_DURATION_S,
        duration_sum=CSIT_DURATION_SUM_S,
    )


def _strict_goal(loss_ratio: float, final_duration_s: float) -> Goal:
    return Goal(
        loss_ratio=loss_ratio,
        exceed_ratio=0.0,
        relative_width=GOAL_WIDTH,
        initial_trial_duration=min(STRICT_INITIAL_DURATION_S, final_duration_s),
        final_trial_duration=final_duration_s,
        duration_sum=final_duration_s,
    )
