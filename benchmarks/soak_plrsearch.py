"""The soak beside CSIT's PLRsearch: same sim models, same simulated budget, same seeds.

CSIT's own PLRsearch is read from a CSIT git directory at run time
(``NDRPDR_CSIT_GIT``, else the project machine's mirror; never copied into
the project): ``git archive`` extracts its package to a temporary
directory, imported from there. It needs scipy, numpy and dill (the
project's ``bench`` extras). PLRsearch runs with CSIT's settings (trial
``k`` lasts ``0.1 * (50 + k)`` s, loss ratio 1e-7) against our sim DUT
through ``SimMeasurer``, an adapter that answers in simulated time: the
module's clock is replaced by the simulated one (trial durations plus the
per-trial overhead our soak is charged too), so its ``timeout`` is the
simulated budget. Its numeric integration runs in worker processes for as
long as a trial lasts; here a trial lasts ``--compute`` wall seconds (CSIT
gives it the trial's real seconds, so this handicaps it; the wall time is
printed apart).

Printed per budget and model, for PLRsearch and ours: the median |error|
against the average-loss truth (``ndrpdr.simdut.soaktruth``), how often the
truth lies within avg +/- 2 stdev (PLRsearch gives no interval; ours: its
95 % interval), the median long-run loss ratio at the estimate over the
target, the share of runs within 5 % of the truth, and the wall time.

    python -m benchmarks.soak_plrsearch [--models sharp,jitter] [--seeds 5] [--first-seed 1000]
                                        [--budgets 1800,600,300] [--compute 0.5]
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from benchmarks import soak
from benchmarks.cli import names
from ndrpdr.search.soak import SOAK_LOSS_RATIO
from ndrpdr.simdut.models import make_model
from ndrpdr.trafficgen.sim.measurer import SimulatedMeasurer

#: The bare mirror of FDio/csit on the project's machine.
MIRROR = Path("/work/.mirror/FDio+csit/repo")
PACKAGE = "resources/libraries/python/PLRsearch"
#: CSIT's soak settings (performance_utils.robot): trial k lasts TDPT * (OFFSET + k) s.
TDPT = 0.1
INITIAL_COUNT = 50


def csit_git() -> Path | None:
    """The CSIT git directory: ``NDRPDR_CSIT_GIT``, else the mirror, else None."""
    given = os.environ.get("NDRPDR_CSIT_GIT")
    if given:
        return Path(given)
    return MIRROR if MIRROR.is_dir() else None


def load_plrsearch(git_dir: Path, into: Path) -> ModuleType:
    """CSIT's ``PLRsearch`` module, extracted from ``git_dir`` at HEAD into ``into``."""
    archive = into / "plrsearch.tar"
    subprocess.run(
        ["git", "-C", str(git_dir), "archive", "-o", str(archive), "HEAD", PACKAGE],
        check=True,
        timeout=60,
    )
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")
    sys.path.insert(0, str(into / "resources/libraries/python"))
    return importlib.import_module("PLRsearch.PLRsearch")


@dataclasses.dataclass
class PlrResult:
    """What PLRsearch reads of a trial (the fields of CSIT's MeasurementResult it uses)."""

    intended_duration: float
    intended_load: float
    offered_count: float
    loss_count: float
    intended_count: float
    plr_loss_count: int = 0

    @property
    def loss_ratio(self) -> float:
        """Lost (unsent included) over intended frames."""
        return self.loss_count / self.intended_count if self.intended_count else 0.0

    @property
    def relative_forwarding_rate(self) -> float:
        """The intended load times the share forwarded [pps]."""
        return self.intended_load * (1.0 - self.loss_ratio)


class SimClock:
    """The simulated clock PLRsearch's module reads as ``time.time()``."""

    def __init__(self) -> None:
        self.now = 0.0

    def time(self) -> float:
        """Simulated seconds so far."""
        return self.now


class SimMeasurer:
    """PLRsearch's measurer over our sim DUT: each trial advances the simulated clock by its
    duration and the overhead, and lasts ``compute_s`` wall seconds (PLRsearch computes
    meanwhile)."""

    def __init__(
        self, model: str, seed: int, clock: SimClock, overhead_s: float, compute_s: float
    ) -> None:
        self.sim = SimulatedMeasurer(make_model(model, seed), overhead_s=0.0, seed=seed)
        self.clock, self.overhead_s, self.compute_s = clock, overhead_s, compute_s

    def measure(self, intended_duration: float, intended_load: float) -> PlrResult:
        """One simulated trial."""
        trial = self.sim.measure(intended_duration, intended_load)
        time.sleep(self.compute_s)
        self.clock.now += intended_duration + self.overhead_s
        intended = max(trial.offered_count, trial.intended_count or 0.0)
        return PlrResult(
            intended_duration,
            intended_load,
            trial.offered_count,
            trial.loss_ratio * intended,
            intended,
        )


def run_plrsearch(
    module: ModuleType, model: str, seed: int, budget_s: float, overhead_s: float, compute_s: float
) -> soak.Outcome:
    """One PLRsearch soak of ``budget_s`` simulated seconds."""
    clock = SimClock()
    module.time = clock  # type: ignore[attr-defined]  # its stop time, in simulated seconds
    search: Any = module.PLRsearch(
        measurer=SimMeasurer(model, seed, clock, overhead_s, compute_s),
        trial_duration_per_trial=TDPT,
        packet_loss_ratio_target=SOAK_LOSS_RATIO,
        trial_number_offset=INITIAL_COUNT,
        timeout=budget_s,
    )
    average, stdev = search.search(soak.MIN_LOAD_PPS, soak.MAX_LOAD_PPS)
    return soak.outcome(model, seed, average, stdev, average - 2 * stdev, average + 2 * stdev)


def table_row(
    label: str, model: str, outcomes: Sequence[soak.Outcome], failed: int, wall: float
) -> str:
    """One printed row (``failed``: runs that ended in an error, left out of the figures)."""
    runs = len(outcomes) + failed
    if not outcomes:
        dashes = f"{'-':>9} {'-':>7} {'-':>9} {'-':>7}"
        return f"{label:<10} {model:<10} {dashes} {failed:>6} {wall / runs:>7.1f}"
    row = soak.summary(outcomes)
    near = sum(abs(o.error) <= 0.05 for o in outcomes) / len(outcomes)
    return (
        f"{label:<10} {model:<10} {row['median_abs_error']:>9.2e} {row['within_95']:>7.0%} "
        f"{row['loss_at_estimate']:>9.2g} {near:>7.0%} {failed:>6} {wall / runs:>7.1f}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Print PLRsearch's and our rows per budget and model."""
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.soak_plrsearch", description=__doc__
    )
    parser.add_argument(
        "--models",
        type=names,
        default=("sharp", "gradual", "jitter", "noisyknee", "spells", "transient"),
    )
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--first-seed", type=int, default=1000)
    parser.add_argument("--budgets", default="1800,600,300", help="simulated seconds, comma list")
    parser.add_argument("--overhead", type=float, default=0.5, help="per-trial overhead [s]")
    parser.add_argument(
        "--compute", type=float, default=0.5, help="wall seconds PLRsearch computes per trial"
    )
    parser.add_argument(
        "--only", choices=("plrsearch", "ours"), help="run one of the two (default: both)"
    )
    args = parser.parse_args(argv)
    git_dir = csit_git()
    if git_dir is None:
        print("CSIT not found: set NDRPDR_CSIT_GIT to a CSIT clone")
        return 2
    seeds = range(args.first_seed, args.first_seed + args.seeds)
    with tempfile.TemporaryDirectory(prefix="plrsearch-") as temp:
        module = load_plrsearch(git_dir, Path(temp))
        print(
            f"soak vs PLRsearch: loss ratio {SOAK_LOSS_RATIO:g}, "
            f"seeds {seeds.start}..{seeds.stop - 1}"
            f", {args.compute:g} s of PLRsearch computing per trial"
        )
        print(
            f"{'search':<10} {'model':<10} {'med|err|':>9} {'in int':>7} {'loss@est':>9} "
            f"{'in 5%':>7} {'failed':>6} {'wall s':>7}"
        )
        for budget in (float(b) for b in args.budgets.split(",")):
            print(f"-- budget {budget:g} s")
            for model in args.models:
                started = time.monotonic()
                theirs, failed = [], 0
                for s in seeds if args.only != "ours" else ():
                    try:
                        theirs.append(
                            run_plrsearch(module, model, s, budget, args.overhead, args.compute)
                        )
                    except RuntimeError as exc:  # a worker's numeric failure
                        failed += 1
                        print(f"PLRsearch {model} seed {s}: {str(exc).splitlines()[0]}")
                middle = time.monotonic()
                ours = [
                    soak.run_soak(model, s, budget, args.overhead)
                    for s in (seeds if args.only != "plrsearch" else ())
                ]
                done = time.monotonic()
                if args.only != "ours":
                    print(table_row("PLRsearch", model, theirs, failed, middle - started))
                if args.only != "plrsearch":
                    print(table_row("ours", model, ours, 0, done - middle), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
