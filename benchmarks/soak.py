"""Soak benchmark: the soak search's estimate against the sim models' true critical load.

For every DUT model and seed, one soak search (``ndrpdr.search.soak``) on
the simulator; the truth is ``model.true_throughput(budget, loss_ratio)``:
the load whose trial of the whole soak's length meets the loss ratio.
Printed per model: mean and worst relative error, the mean relative
stdev, how often the truth lies within avg +/- 1 stdev, avg +/- 2 stdev
and the 95 % interval, and the mean error against the truth for the
soak's longest trial (what its trials could see: it differs from the
whole soak's truth only where loss depends on the trial duration), and the
share of soaks whose result says that loss came in bursts
(``ndrpdr.results.soakbursts``). For the deterministic models (sharp,
gradual, duration, overload) the truth is the long-run critical load the
soak estimates; for the noisy ones (transient, sporadic, noisyknee,
spells, jitter) it is the load where the *median* trial meets the goal, a
different question, and their rows show how far a Poisson loss model
stays from it (bursty loss is outside the model: the bursts column says
how often the result warned of it).

    python -m benchmarks.soak [--quick] [--models sharp,gradual] [--seeds 20] [--first-seed 0]
                              [--budget 1800]
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Sequence

from benchmarks.cli import DEFAULT_MODELS, names
from ndrpdr.results.soakbursts import find_bursts
from ndrpdr.search.soak import SOAK_LOSS_RATIO, SOAK_TIME_S, soak_search
from ndrpdr.simdut.models import make_model
from ndrpdr.trafficgen.sim import MODEL_NAMES
from ndrpdr.trafficgen.sim.measurer import SimulatedMeasurer

MIN_LOAD_PPS = 1e5
MAX_LOAD_PPS = 29.76e6


def run_model(
    model: str, seeds: int, budget_s: float, overhead_s: float, first_seed: int = 0
) -> dict[str, float]:
    """Errors and coverage of ``seeds`` soaks on ``model`` (seeds ``first_seed`` on)."""
    errors, spreads, longest_errors, within1, within2, within95 = [], [], [], 0, 0, 0
    bursty = 0
    for seed in range(first_seed, first_seed + seeds):
        dut = make_model(model, seed)
        result = soak_search(
            SimulatedMeasurer(dut, overhead_s=overhead_s, seed=seed),
            MIN_LOAD_PPS,
            MAX_LOAD_PPS,
            time_budget=budget_s,
        )
        truth = min(dut.true_throughput(budget_s, SOAK_LOSS_RATIO), MAX_LOAD_PPS)
        errors.append(result.critical_load / truth - 1.0)
        longest = max(t.duration for t in result.trials)
        seen = min(dut.true_throughput(longest, SOAK_LOSS_RATIO), MAX_LOAD_PPS)
        longest_errors.append(abs(result.critical_load / seen - 1.0))
        spreads.append(result.stdev / truth)
        distance = abs(result.critical_load - truth)
        within1 += distance <= result.stdev
        within2 += distance <= 2 * result.stdev
        within95 += result.low <= truth <= result.high
        bursty += find_bursts(result.trials, SOAK_LOSS_RATIO) is not None
    return {
        "mean_abs_error": statistics.fmean(abs(e) for e in errors),
        "worst_error": max(errors, key=abs),
        "mean_rel_stdev": statistics.fmean(spreads),
        "mean_abs_error_longest": statistics.fmean(longest_errors),
        "within_1sd": within1 / seeds,
        "within_2sd": within2 / seeds,
        "within_95": within95 / seeds,
        "bursty": bursty / seeds,
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Print one row per model."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.soak", description=__doc__)
    parser.add_argument(
        "--models", type=names, default=DEFAULT_MODELS, help="comma list (default: DUT behaviours)"
    )
    parser.add_argument("--seeds", type=int, help="seeds per model (default 20)")
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
    args.seeds = args.seeds or (3 if args.quick else 20)
    args.budget = args.budget or (300.0 if args.quick else SOAK_TIME_S)
    for model in args.models:
        if model not in MODEL_NAMES:
            parser.error(f"unknown model {model!r}; choose from {', '.join(MODEL_NAMES)}")
    print(
        f"soak: loss ratio {SOAK_LOSS_RATIO:g}, {args.budget:g} s, {args.seeds} seeds per model"
        + (f" from {args.first_seed}" if args.first_seed else "")
    )
    print(
        f"{'model':<10} {'mean|err|':>10} {'worst err':>10} {'mean sd':>9} "
        f"{'in 1sd':>7} {'in 2sd':>7} {'in 95%':>7} {'|err| longest':>13} {'bursts':>7}"
    )
    for model in args.models:
        row = run_model(model, args.seeds, args.budget, args.overhead, args.first_seed)
        print(
            f"{model:<10} {row['mean_abs_error']:>10.2e} {row['worst_error']:>+10.2e} "
            f"{row['mean_rel_stdev']:>9.2e} {row['within_1sd']:>7.0%} {row['within_2sd']:>7.0%} "
            f"{row['within_95']:>7.0%} {row['mean_abs_error_longest']:>13.2e} {row['bursty']:>7.0%}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
