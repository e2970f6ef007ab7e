"""A bursty soak's result is read on a grid that holds both scales of its posterior
(``soakwide``)."""

from __future__ import annotations

import pytest

from ndrpdr.search.soak import SOAK_LOSS_RATIO, SoakResult, soak_search, soakwide
from ndrpdr.search.soak.soakestimate import Estimate
from ndrpdr.search.soak.soakfit import Posterior
from ndrpdr.simdut.models import make_model
from ndrpdr.simdut.soaktruth import critical_load
from ndrpdr.trafficgen.sim.measurer import SimulatedMeasurer

MIN_LOAD, MAX_LOAD = 1e4, 29.76e6


def _soak(
    model: str, seed: int, monkeypatch: pytest.MonkeyPatch
) -> tuple[float, Posterior, SoakResult]:
    """The truth of ``model``'s seed, the posterior its soak ended with, and its result."""
    ended: list[Posterior] = []
    wide = soakwide.estimate

    def spy(posterior: Posterior) -> Estimate:
        ended.append(posterior)
        return wide(posterior)

    monkeypatch.setattr(soakwide, "estimate", spy)
    dut = make_model(model, seed)
    result = soak_search(SimulatedMeasurer(dut, overhead_s=0.5, seed=seed), MIN_LOAD, MAX_LOAD)
    (posterior,) = ended
    return critical_load(dut, SOAK_LOSS_RATIO), posterior, result


def test_a_lossy_trial_above_clean_ones_keeps_the_band_below_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Sim jitter seed 11038: the fine grid's own interval ends 10 % below the truth; read
    on the wide grid the result holds it. (Noisyknee seed 11031 showed why first: its trials
    climbed clean to 1 % above the truth until one at +1.7 % lost, and the fine grid started
    over from the coarse one, whose 13 % cells cannot hold the band between them; the spells
    reading has since moved its trials.)"""
    truth, posterior, result = _soak("jitter", 11038, monkeypatch)
    assert posterior.bursty
    assert posterior.estimate().high < truth * 0.97  # the band is lost on the fine grid
    assert result.low <= truth <= result.high < truth * 1.05  # the result reads the wide one


def test_the_merged_grid_keeps_the_fine_cells_where_they_are_finer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Inside the fine grid's range the cells are its own (no wide cell there); outside, the
    wide grid's; all in load order."""
    _, posterior, _ = _soak("transient", 11000, monkeypatch)
    cells = soakwide.cells(posterior)
    loads = [load for load, _, _ in cells]
    assert loads == sorted(loads)
    steps = {step for _, _, step in cells}
    inside = [cell for cell in cells if posterior.loads[0] <= cell[0] <= posterior.loads[-1]]
    if posterior.step < max(steps):  # the fine grid is the finer: its cells inside
        assert [load for load, _, _ in inside] == posterior.loads
        assert {step for _, _, step in inside} == {posterior.step}
    else:  # the wide grid is the finer: its cells everywhere
        assert steps == {max(steps)} and len(cells) == soakwide.WIDE_POINTS
