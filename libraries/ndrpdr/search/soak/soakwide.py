"""A bursty soak's result, read on a grid wide enough to hold both scales of its posterior.

The soak's fine grid follows the posterior: it zooms in where the mass
gathers and starts over from the coarse grid when that explains the trials
clearly better (``soakfit.Posterior``). Under the bursty model
(``soakbursty``, ``soakspells``) the posterior has two scales at once: a narrow band just
below the lowest lossy trial (a chance of a lossy trial that rises steeply
there) and a broad region far below it (one that rises slowly). A lossy
trial just above a run of clean ones makes the fine grid start over from
the coarse one's central part, whose cells (13 % wide) cannot hold a band
a fraction of a percent wide: the band's mass was lost, and the interval
ended below the truth (sim ``noisyknee``: 5 of 40 seeds; read as below,
each of them holds the truth).

So the result of a bursty soak is read on ``WIDE_POINTS`` loads spanning
the fine grid and the coarse posterior's central part, merged with the
fine grid where that one is finer. Read as spells (``soakspells.spells_on``),
the posterior has a third scale: a plateau between the clean trials and
the lowest lossy one, as narrow as they are close (0.5 % on sim ``spells``
seed 11004, which the wide grid's 1 % cells stepped over), so the
``EDGE_SHARE`` below the lowest lossy trial is read on ``EDGE_POINTS``
loads too. The Poisson model's posterior is left
as it is: it is narrow (1e-9 of the load on a cliff), and only its zoomed
grid resolves it.
"""

from __future__ import annotations

import math

from ndrpdr.search.soak import soakspells
from ndrpdr.search.soak.soakestimate import Estimate, shares, summarize
from ndrpdr.search.soak.soakfit import Posterior, less_per_trial

#: Loads of the wide grid (a step of 0.1-0.3 % over the spans bursty soaks end with).
WIDE_POINTS = 512
#: Read as spells: the share of the load below the lowest lossy trial read on
#: ``EDGE_POINTS`` loads too (a step of 0.02 %).
EDGE_SHARE = 0.05
EDGE_POINTS = 256


def cells(posterior: Posterior) -> list[tuple[float, float, float]]:
    """The merged grid's cells ``(load [pps], log mass, log-load step)``, by load: the fine
    grid's and the edge grid's (``edge``) inside their ranges where they are finer than the
    wide grid (the finer of the two where they overlap), the wide grid's elsewhere."""
    assert posterior.coarse is not None
    wide = posterior.regridded(*posterior.reach(), WIDE_POINTS)
    merged = _cells_of(wide)
    finer = [grid for grid in (posterior, edge(posterior)) if grid is not None]
    for grid in sorted(finer, key=lambda grid: -grid.step):
        if grid.step < wide.step:
            half = grid.step / 2.0
            inside_low = grid.loads[0] * math.exp(-half)
            inside_high = grid.loads[-1] * math.exp(half)
            merged = [cell for cell in merged if not inside_low <= cell[0] <= inside_high]
            merged += _cells_of(grid)
    return sorted(merged)


def edge(posterior: Posterior) -> Posterior | None:
    """The posterior on ``EDGE_POINTS`` loads over ``EDGE_SHARE`` below the lowest lossy
    trial, when it reads the bursts as spells (else None)."""
    if not soakspells.spells_on(posterior.size):
        return None
    seen = less_per_trial(posterior.observations, posterior.per_trial)
    top = soakspells.lowest_lossy(seen, posterior.target)
    if top is None:
        return None
    low = max(posterior.min_load, top * (1.0 - EDGE_SHARE))
    return posterior.regridded(low, top, EDGE_POINTS) if low < top else None


def _cells_of(posterior: Posterior) -> list[tuple[float, float, float]]:
    step = posterior.step
    return [
        (load, density + math.log(step), step)
        for load, density in zip(posterior.loads, posterior.log_densities(), strict=True)
    ]


def estimate(posterior: Posterior) -> Estimate:
    """Mean, stdev, median and 95 % interval [pps] of the critical load over the merged
    grid (``cells``), each cell's mass spread evenly over it in log-load."""
    merged = cells(posterior)
    loads, steps = [load for load, _, _ in merged], [step for _, _, step in merged]
    masses = shares([mass for _, mass, _ in merged])
    return summarize(loads, masses, steps, posterior.ends())
