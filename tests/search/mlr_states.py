"""Hand-made mlr controller states for testing one strategy at a time.

The grid runs from 1e5 to 1e6 fps in 10 % steps (index 0 .. 22); a goal
is 3 steps wide unless a test says otherwise, so "one width above" and
"one step above" differ.
"""

from __future__ import annotations

from ndrpdr.search import Goal, TrialResult
from ndrpdr.search.classify import Criterion
from ndrpdr.search.grid import LoadGrid
from ndrpdr.search.mlr.names import Stage
from ndrpdr.search.mlr.plan import Plan
from ndrpdr.search.mlr.state import MlrState
from ndrpdr.search.mlr.strategy import Nomination
from ndrpdr.search.mlr.track import Track
from ndrpdr.search.mlr.view import BoundsView, ScoutView
from ndrpdr.search.session import Limits, Session

MIN_LOAD, MAX_LOAD = 1e5, 1e6
TOP = 22
WIDTH = 3
GOAL = Goal(
    loss_ratio=0.01,
    exceed_ratio=0.0,
    relative_width=0.1,
    initial_trial_duration=1.0,
    final_trial_duration=10.0,
    duration_sum=50.0,
)


class _Unused:
    def measure(self, duration: float, load: float) -> TrialResult:
        raise AssertionError("strategies only nominate; nothing is measured")


def state() -> MlrState:
    """No trials yet; short trials trusted."""
    session = Session(_Unused(), [GOAL], MIN_LOAD, MAX_LOAD, "mlr", Limits(), lambda: 0.0)
    grid = LoadGrid(MIN_LOAD, MAX_LOAD, [GOAL.relative_width])
    assert grid.top == TOP
    return MlrState(session, grid)


def track(mlr: MlrState, stage: Stage = Stage.FINAL, **fields: object) -> Track:
    """Goal 0's track in ``stage``, with a short and a scout criterion."""
    db = mlr.session.db
    short = db.add_criterion(Criterion(0.01, 0.0, 1.0, 1.0))
    scout = db.add_criterion(Criterion(0.01, 0.0, 10.0, 20.0))
    made = Track(0, GOAL, short, WIDTH, stage, scout_criterion=scout)
    for name, value in fields.items():
        setattr(made, name, value)
    return made


def measured(mlr: MlrState, index: int, loss_ratio: float, duration: float = 10.0) -> None:
    """Record a trial at grid ``index`` as if the controller had measured it."""
    load = mlr.grid.load(index)
    offered = load * duration
    trial = TrialResult(duration, load, offered_count=offered, loss_count=loss_ratio * offered)
    mlr.session.trials.append(trial)
    mlr.session.db.add(trial)
    mlr.index_of[load] = index


def bounds(
    mlr: MlrState,
    made: Track,
    low: int,
    high: int,
    hint: int | None = None,
    short: bool = False,
) -> BoundsView:
    """A short / final stage view with bounds at grid ``low`` / ``high`` (-1 / TOP + 1: none)."""
    threshold = None if hint is None else mlr.grid.load(hint)
    return BoundsView(
        mlr,
        made,
        short,
        low,
        high,
        threshold,
        hint,
    )


def scout(
    mlr: MlrState,
    made: Track,
    scout_low: int,
    scout_high: int,
    low: int = -1,
    high: int = TOP + 1,
    hint: int | None = None,
) -> ScoutView:
    """A scout stage view: the goal's bounds ``low`` / ``high``, the scout's between."""
    threshold = None if hint is None else mlr.grid.load(hint)
    return ScoutView(mlr, made, low, high, scout_low, scout_high, threshold)


def planned(nomination: Nomination) -> Plan:
    """The nomination, which the test expects to be a plan."""
    assert isinstance(nomination, Plan), nomination
    return nomination
