"""Command-line options both benchmarks share (DUT models, seeds, overhead, goal sets)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from benchmarks.goalsets import GOAL_SET_NAMES, check_goal_set
from ndrpdr.simdut.models.edge import EDGE_FACTORIES
from ndrpdr.trafficgen.sim import MODEL_NAMES

FAMILY_MODELS = ("randomized",)
"""Models that are a family of DUTs rather than one behaviour: run by
``benchmarks/heldout.py`` in a tuning and a held-out part of seeds."""

DEFAULT_MODELS = tuple(
    name for name in MODEL_NAMES if name not in EDGE_FACTORIES and name not in FAMILY_MODELS
)
"""The models benchmarks run unless told: DUT behaviours. The edge models
(dead, flapping, duplicating) have targets of their own (a dead DUT ends
as fast as MLRsearch's, a duplicating one gets bounds, a flapping one is
flagged), checked by tests; the family (``FAMILY_MODELS``) has its own
benchmark; ``--models`` still takes them all."""


def names(text: str) -> tuple[str, ...]:
    """A comma list as a tuple of stripped, non-empty names."""
    return tuple(part.strip() for part in text.split(",") if part.strip())


def add_simulation_options(
    parser: argparse.ArgumentParser, *, default_seeds: int, default_overhead_s: float
) -> None:
    """--models, --seeds, --overhead and --goal-sets."""
    parser.add_argument(
        "--models",
        type=names,
        help=f"comma list of {', '.join(MODEL_NAMES)} (default: {', '.join(DEFAULT_MODELS)})",
    )
    parser.add_argument("--seeds", type=int, help=f"seeds per model (default {default_seeds})")
    parser.add_argument(
        "--first-seed",
        type=int,
        default=0,
        help="the first seed (default 0): seeds first .. first + seeds - 1; "
        "check targets on seeds the controller was not tuned on",
    )
    parser.add_argument(
        "--overhead",
        type=float,
        default=default_overhead_s,
        help=f"simulated per-trial overhead [s] (default {default_overhead_s})",
    )
    parser.add_argument(
        "--goal-sets",
        type=names,
        default=GOAL_SET_NAMES,
        help=f"comma list of {', '.join(GOAL_SET_NAMES)} (default: both)",
    )


def resolve_simulation_options(
    parser: argparse.ArgumentParser,
    args: argparse.Namespace,
    *,
    quick_models: Sequence[str],
    quick_seeds: int,
    default_seeds: int,
) -> None:
    """Fill in --models / --seeds (from --quick when given) and reject unknown names."""
    if args.models is None:
        args.models = tuple(quick_models) if args.quick else DEFAULT_MODELS
    if args.seeds is None:
        args.seeds = quick_seeds if args.quick else default_seeds
    for model in args.models:
        if model not in MODEL_NAMES:
            parser.error(f"unknown model {model!r}; choose from {', '.join(MODEL_NAMES)}")
    for name in args.goal_sets:
        try:
            check_goal_set(name)
        except ValueError as error:
            parser.error(str(error))
