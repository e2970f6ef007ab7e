"""result_so_far: the bounds a search's trials support, whatever stopped it."""

from __future__ import annotations

import pytest
from tests.search.search_duts import CapacityDut, StepDut

from ndrpdr.goals import ndr_pdr_goals
from ndrpdr.search import SearchTimeLimitError, result_so_far, search

GOALS = ndr_pdr_goals(duration_sum_s=3.0, relative_width=0.01)
LOW, HIGH = 1e4, 1e7


@pytest.mark.parametrize("dut", [CapacityDut(2.5e6), StepDut(4e6, 0.003)], ids=repr)
def test_all_trials_give_the_searchs_own_result(dut: CapacityDut | StepDut) -> None:
    finished = search(dut, GOALS, LOW, HIGH)
    replayed = result_so_far(GOALS, finished.trials, LOW, HIGH)
    assert replayed.goal_results == finished.goal_results
    assert replayed.search_time == pytest.approx(finished.search_time)
    assert replayed.trials == finished.trials


@pytest.mark.parametrize("share", [0.2, 0.5, 0.8, 0.95])
def test_time_limit_partial_is_what_the_trials_support(share: float) -> None:
    dut = CapacityDut(2.5e6)
    whole = search(dut, GOALS, LOW, HIGH).search_time
    with pytest.raises(SearchTimeLimitError) as caught:
        search(dut, GOALS, LOW, HIGH, max_search_time=share * whole)
    partial = caught.value.partial
    replayed = result_so_far(GOALS, partial.trials, LOW, HIGH)
    assert replayed.goal_results == partial.goal_results


def test_bounds_appear_as_trials_accumulate() -> None:
    """Prefixes of a finished search: every bound found lies on its true side of the cliff."""
    capacity = 2.5e6
    finished = search(CapacityDut(capacity), GOALS, LOW, HIGH)
    seen_lower = False
    for count in range(len(finished.trials) + 1):
        result = result_so_far(GOALS, finished.trials[:count], LOW, HIGH)
        for goal_result in result.goal_results:
            edge = capacity / (1 - goal_result.goal.loss_ratio)  # highest load within the ratio
            if goal_result.lower_bound is not None:
                seen_lower = True
                assert goal_result.lower_bound <= edge
            if goal_result.upper_bound is not None:
                assert goal_result.upper_bound > edge
    assert seen_lower


def test_no_trials_no_bounds() -> None:
    result = result_so_far(GOALS, [], LOW, HIGH, algorithm="binary", wall_time=1.5)
    assert result.algorithm == "binary" and result.wall_time == 1.5
    assert all(r.lower_bound is None and r.upper_bound is None for r in result.goal_results)
    assert all(r.irregular_reason == "no bounds found" for r in result.goal_results)
