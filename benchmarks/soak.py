"""Soak benchmark: the soak search's estimate against the sim models' average-loss truth.

For every DUT model and seed, one soak search (``ndrpdr.search.soak``) on
the simulator. The truth is the model's long-run average-loss critical
load (``ndrpdr.simdut.soaktruth.critical_load``): the load at which lost
frames over sent frames, over a long time, meet the target ratio (CSIT's
PLRsearch's definition). Printed per model: how often the 95 % interval
holds the truth, the median and worst relative error, the median relative
stdev, the median over seeds of the long-run loss ratio at the estimate
over the target (``loss@est``: 1 is exact, above 10 loses too much; an
estimate below a cliff loses nothing: 0), and the share of soaks whose
result says that loss came in bursts (``ndrpdr.results.soakbursts``).

    python -m benchmarks.soak [--quick] [--models sharp,gradual] [--seeds 40] [--first-seed 0]
                              [--budget 1800]
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
from collections.abc import Sequence

from benchmarks.cli import DEFAULT_MODELS, names
from ndrpdr.results.soakbursts import find_bursts
from ndrpdr.search.soak import SOAK_LOSS_RATIO, SOAK_TIME_S, soak_search
from ndrpdr.simdut.models import make_model
from ndrpdr.simdut.soaktruth import critical_load, mean_loss_ratio
from ndrpdr.trafficgen.sim import MODEL_NAMES
from ndrpdr.trafficgen.sim.measurer import SimulatedMeasurer

#: The load range of every soak [pps]: transient's truth lies near 6 % of its capacity (>= 2 Mpps).
MIN_LOAD_PPS = 1e4
MAX_LOAD_PPS = 29.76e6


@dataclasses.dataclass(frozen=True)
class Outcome:
    """One soak's estimate against its truth: estimate, stdev and 95 % interval [pps]."""

    truth: float
    estimate: float
    stdev: float
    low: float
    high: float
    loss_at_estimate: float  # the model's long-run loss ratio at the estimate
    bursty: bool = False

    @property
    def error(self) -> float:
        """Relative error of the estimate."""
        return self.estimate / self.truth - 1.0

    @property
    def covered(self) -> bool:
        """The truth lies in the 95 % interval."""
        return self.low <= self.truth <= self.high


def truth_of(model: str, seed: int) -> float:
    """The average-loss critical load [pps] of ``model`` drawn from ``seed``, within the range."""
    return min(
        max(critical_load(make_model(model, seed), SOAK_LOSS_RATIO), MIN_LOAD_PPS), MAX_LOAD_PPS
    )


def outcome(
    model: str,
    seed: int,
    estimate: float,
    stdev: float,
    low: float,
    high: float,
    bursty: bool = False,
) -> Outcome:
    """The ``Outcome`` of an estimate on ``model``'s seed ``seed``."""
    loss = mean_loss_ratio(make_model(model, seed), estimate)
    return Outcome(truth_of(model, seed), estimate, stdev, low, high, loss, bursty)


def run_soak(model: str, seed: int, budget_s: float, overhead_s: float) -> Outcome:
    """One soak search of ``budget_s`` trial seconds on ``model``'s seed ``seed``."""
    dut = make_model(model, seed)
    result = soak_search(
        SimulatedMeasurer(dut, overhead_s=overhead_s, seed=seed),
        MIN_LOAD_PPS,
        MAX_LOAD_PPS,
        time_budget=budget_s,
    )
    bursty = find_bursts(result.trials, SOAK_LOSS_RATIO) is not None
    return outcome(model, seed, result.critical_load, result.stdev, result.low, result.high, bursty)


def summary(outcomes: Sequence[Outcome]) -> dict[str, float]:
    """Coverage, median and worst error, median relative stdev, median loss at the estimate
    over the target, share of bursty results."""
    count = len(outcomes)
    return {
        "within_95": sum(o.covered for o in outcomes) / count,
        "median_abs_error": statistics.median(abs(o.error) for o in outcomes),
        "worst_error": max((o.error for o in outcomes), key=abs),
        "median_rel_stdev": statistics.median(o.stdev / o.truth for o in outcomes),
        "loss_at_estimate": statistics.median(o.loss_at_estimate for o in outcomes)
        / SOAK_LOSS_RATIO,
        "bursty": sum(o.bursty for o in outcomes) / count,
    }


def run_model(
    model: str, seeds: int, budget_s: float, overhead_s: float, first_seed: int = 0
) -> dict[str, float]:
    """The ``summary`` of ``seeds`` soaks on ``model`` (seeds ``first_seed`` on)."""
    return summary(
        [
            run_soak(model, seed, budget_s, overhead_s)
            for seed in range(first_seed, first_seed + seeds)
        ]
    )


HEADER = (
    f"{'model':<10} {'in 95%':>7} {'med|err|':>9} {'worst err':>10} {'med sd':>8} "
    f"{'loss@est':>9} {'bursts':>7}"
)


def row_text(model: str, row: dict[str, float]) -> str:
    """One printed row of a ``summary``."""
    return (
        f"{model:<10} {row['within_95']:>7.0%} {row['median_abs_error']:>9.2e} "
        f"{row['worst_error']:>+10.2e} {row['median_rel_stdev']:>8.1e} "
        f"{row['loss_at_estimate']:>9.2g} {row['bursty']:>7.0%}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Print one row per model."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.soak", description=__doc__)
    parser.add_argument(
        "--models", type=names, default=DEFAULT_MODELS, help="comma list (default: DUT behaviours)"
    )
    parser.add_argument("--seeds", type=int, help="seeds per model (default 40)")
    parser.add_argument(
        "--first-seed",
        type=int,
        default=0,
        help="the first seed (default 0): check on seeds the fit was not tuned on",
    )
    parser.add_argument("--budget", type=float, help=f"trial seconds (default {SOAK_TIME_S:g})")
    parser.add_argument("--overhead", type=float, default=0.5, help="per-trial overhead [s]")
    parser.add_argument("--quick", action="store_true", help="sharp, gradual, 3 seeds, 300 s")
    args = parser.parse_args(argv)
    if args.quick and args.models == DEFAULT_MODELS:
        args.models = ("sharp", "gradual")
    args.seeds = args.seeds or (3 if args.quick else 40)
    args.budget = args.budget or (300.0 if args.quick else SOAK_TIME_S)
    for model in args.models:
        if model not in MODEL_NAMES:
            parser.error(f"unknown model {model!r}; choose from {', '.join(MODEL_NAMES)}")
    print(
        f"soak: loss ratio {SOAK_LOSS_RATIO:g}, {args.budget:g} s, {args.seeds} seeds per model"
        + (f" from {args.first_seed}" if args.first_seed else "")
    )
    print(HEADER)
    for model in args.models:
        row = run_model(model, args.seeds, args.budget, args.overhead, args.first_seed)
        print(row_text(model, row))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
