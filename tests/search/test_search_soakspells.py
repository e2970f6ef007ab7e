"""The bursty soak fit's reading of spells of a slower capacity (``soakspells.spell_row``)."""

from __future__ import annotations

import math

import pytest

from ndrpdr.search.soak import soakbursty, soakspells, soakwide
from ndrpdr.search.soak.soakfit import Observation, Posterior
from ndrpdr.search.trial import TrialResult

TARGET = 1e-7
SLOW = 1e6  # [pps]: the capacity during a spell in the trials below
RATES = tuple(0.05 for _ in soakspells.SPELL_LEADS)


def _trial(duration: float, load: float, lost: float) -> TrialResult:
    frames = duration * load
    return TrialResult(duration, load, frames, frames - lost, lost)


def test_below_the_critical_load_no_trial_loses() -> None:
    clean = soakspells.spell_row(Observation(0.9e6, 9e7, 0.0, 100.0), 100.0, False, SLOW, RATES)
    lossy = soakspells.spell_row(Observation(0.9e6, 9e7, 1e3, 100.0), 100.0, True, SLOW, RATES)
    assert clean == [0.0] * len(soakspells.SPELL_LEADS)
    assert lossy == [-30.0] * len(soakspells.SPELL_LEADS)


def test_a_spell_loses_at_most_the_excess_over_the_critical_load() -> None:
    """At 1.1 Mpps a spell forwarding 1 Mpps loses 1/11 of the frames it covers: a 2 s
    trial that lost 1/11 of its frames spent all of it in a spell; one that lost more than
    that is none a spell gives."""
    load, duration = 1.1e6, 2.0
    frames = load * duration
    whole = Observation(load, frames, frames / 11.0, duration)
    more = Observation(load, frames, frames / 10.0, duration)
    row = soakspells.spell_row(whole, duration, True, SLOW, RATES)
    for lead, value in zip(soakspells.SPELL_LEADS, row, strict=True):
        assert value == pytest.approx(math.log(1.0 - math.exp(-0.05 * (duration + lead))))
    assert soakspells.spell_row(more, duration, True, SLOW, RATES) == [-30.0] * len(row)


def test_a_clean_trial_above_costs_the_chance_that_no_spell_met_it() -> None:
    row = soakspells.spell_row(Observation(1.1e6, 1.1e8, 0.0, 100.0), 100.0, False, SLOW, RATES)
    assert row == pytest.approx([-0.05 * (100.0 + lead) for lead in soakspells.SPELL_LEADS])


def test_spell_rates_are_read_at_and_above_the_lowest_lossy_trial() -> None:
    """Four 10 s trials at and above the lowest lossy one, two lossy: a spell met each with
    chance 1/2, so ``r (10 + lead) = ln 2``; the clean trials below it count for nothing."""
    seen = [
        Observation(1.05e6, 1.05e7, 5e4, 10.0),
        Observation(1.05e6, 1.05e7, 0.0, 10.0),
        Observation(1.2e6, 1.2e7, 1e5, 10.0),
        Observation(1.2e6, 1.2e7, 0.0, 10.0),
        *(Observation(0.99e6, 9.9e7, 0.0, 100.0) for _ in range(5)),
    ]
    rates = soakspells.spell_rates(seen, TARGET)
    for lead, rate in zip(soakspells.SPELL_LEADS, rates, strict=True):
        assert rate * (10.0 + lead) == pytest.approx(math.log(2.0), rel=1e-6)
    assert soakspells.spell_rates(seen[1::3], TARGET) == (1.0,) * len(rates)  # none lossy


def test_spells_join_only_once_bursts_shrink_steeply() -> None:
    """Below ``SPELL_SLOPE`` the spells' columns have no prior mass; at it they hold
    ``SPELL_SHARE`` of it, the per-trial reading's widths the rest."""
    widths = len(soakbursty.WIDTHS)
    flat = soakspells.log_prior(soakbursty.BurstSize(0.0, soakspells.SPELL_SLOPE * 0.99, 0.0))
    steep = soakspells.log_prior(soakbursty.BurstSize(0.0, soakspells.SPELL_SLOPE, 0.0))
    assert len(flat) == len(steep) == soakspells.columns()
    assert flat[:widths] == steep[:widths] == soakbursty.LOG_PRIOR
    assert all(value == -math.inf for value in flat[widths:])
    spells = sum(math.exp(value) for value in steep[widths:])
    total = spells + sum(math.exp(value) for value in soakbursty.LOG_PRIOR)
    assert spells / total == pytest.approx(soakspells.SPELL_SHARE)


def _spells_soak() -> Posterior:
    """A soak's trials on a DUT whose spells forward ``SLOW``: 2 s trials at 1.05 ``SLOW`` of
    which a quarter spent all their time in a spell, clean long trials up to 0.1 % below it,
    and a 100 s trial 0.2 % above it that spent a fifth of its time in spells."""
    posterior = Posterior(TARGET, 1e4, 3e7)
    high = 1.05 * SLOW
    for index in range(20):
        posterior.add(_trial(2.0, high, 0.0 if index % 4 else (1.0 - SLOW / high) * 2.0 * high))
    for share, duration in ((0.95, 30.0), (0.98, 60.0), (0.99, 80.0), (0.995, 90.0)):
        posterior.add(_trial(duration, share * SLOW, 0.0))
    posterior.add(_trial(100.0, 0.999 * SLOW, 0.0))
    near = 1.002 * SLOW
    posterior.add(_trial(100.0, near, 0.2 * (1.0 - SLOW / near) * 100.0 * near))
    return posterior


def test_spells_put_the_critical_load_at_the_slower_capacity() -> None:
    """Read as spells the median lies within 0.5 % of the truth, between the clean trials
    (up to 0.1 % below it) and the lowest lossy one, and the interval holds it (the
    per-trial reading keeps a tail far below; these bursts are events, their lost frames no
    more in 100 s than in 2 s, and the events' wider prior makes that tail longer: the
    median is 0.4 % below the truth, 0.1 % before)."""
    posterior = _spells_soak()
    assert posterior.bursty and soakspells.spells_on(posterior.size)
    estimate = soakwide.estimate(posterior)
    assert estimate.low <= SLOW <= estimate.high < 1.002 * SLOW
    assert estimate.median == pytest.approx(SLOW, rel=5e-3)


def test_per_trial_alone_the_same_trials_end_below_the_truth(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The chance of a lossy trial falls as a power of the load below the lossy ones: the
    interval ends below the slower capacity (sim ``spells``' misses)."""
    monkeypatch.setattr(soakspells, "SPELL_SLOPE", math.inf)
    estimate = soakwide.estimate(_spells_soak())
    assert estimate.high < 0.99 * SLOW
    assert estimate.median < 0.9 * SLOW


def test_read_as_spells_the_edge_below_the_lowest_lossy_trial_is_fine() -> None:
    """The plateau between the clean trials and the lowest lossy one is 0.3 % wide here:
    the edge grid reads it on ``EDGE_POINTS`` loads up to that trial."""
    posterior = _spells_soak()
    edge = soakwide.edge(posterior)
    assert edge is not None and len(edge.loads) == soakwide.EDGE_POINTS
    assert edge.loads[-1] == pytest.approx(1.002 * SLOW)
    assert edge.loads[0] == pytest.approx(1.002 * SLOW * (1.0 - soakwide.EDGE_SHARE))
    inside = [cell for cell in soakwide.cells(posterior) if 0.999 * SLOW < cell[0] < 1.002 * SLOW]
    assert len(inside) >= 10


def test_not_read_as_spells_there_is_no_edge(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(soakspells, "SPELL_SLOPE", math.inf)
    assert soakwide.edge(_spells_soak()) is None


def test_unread_spells_columns_count_for_no_best_point(monkeypatch: pytest.MonkeyPatch) -> None:
    """Off (``spells_on`` false), the spells' columns have no prior mass and are left at 0
    (not worked out), and the best point the fit compares its grids by
    (``Posterior.best``) ignores them too: read, they moved where transient soaks ran their
    trials with spells never read (24 of 40 seeds)."""
    monkeypatch.setattr(soakspells, "SPELL_SLOPE", math.inf)
    posterior = _spells_soak().regridded(0.9995 * SLOW, 1.0015 * SLOW, 16)  # spells fit here
    widths = len(soakbursty.WIDTHS)
    assert max(max(row[widths:]) for row in posterior._log) > posterior.best()
    assert posterior.best() == max(max(row[:widths]) for row in posterior._log)


def test_a_spells_rate_that_moves_by_half_again_rebuilds() -> None:
    rates = (0.1, 0.2)
    assert not soakspells.rates_moved((0.1, 0.29), rates)
    assert soakspells.rates_moved((0.1, 0.31), rates)
    assert soakspells.rates_moved((0.066, 0.2), rates)
