"""Which per-night estimate and which detector could meet both targets of ``benchmarks.trend``?

Run: ``PYTHONPATH=libraries:. python -m benchmarks.trendestimators [--seed 1] [--cache FILE]``.

The same nights as ``benchmarks.trend`` part (b) (the noise year with seed
S, the 5 % steps with seed S + 1, real searches on the simulated testbed,
the noisy model), but every record's trials are kept, so other per-night
estimates can be tried with the detector (``ndrpdr.trend.changepoint``):

- ``NDR lower``: what the trend report follows (PDR lower and both
  conditional throughputs are the same number on this model, night by night);
- ``overload rx``: the receive rate [pps] of the search's trials at its
  highest load (its first trial, at the maximum load: what an MRR trial
  measures);
- ``pass/fail fit``: the load where a logistic curve of P(trial loses
  frames) against ln(load), fitted by maximum likelihood to all the
  search's trials, crosses 0.5 (the goals' exceed ratio);
- ``MRR mean``: the MRR tests' own value (for the totals).

Each is scored on both false-alarm rules (the year's page; every night's
page) and on the steps found at their night within 2 nights, by three
detectors: MDL with 1.5 ln n nats a cut (the report's before its
horizon), the report's (1.5 ln max(n, 365): a nightly page has looked at
a year of places a change could hide), the same with 2 ln max(n, 365), and a
recent-change test (the last 2 nights against all before, |z| above the
two-sided 5 % / 365 Gaussian quantile, 3.81). The Cramer-Rao bound of the
capacity from the trials' pass/fail outcomes (the model's own loss
probability curve, which the detector does not know) is printed per test:
no estimate made of those outcomes alone can have less night-to-night noise.

Generating the nights costs about 3 min of CPU, scoring them about 4;
``--cache FILE`` keeps the nights (JSON) for the next run. Not a target:
figures for the argument in docs/trends.rst.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import statistics
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any
from unittest import mock

from benchmarks.trend import STEP_NIGHTS
from benchmarks.trendgen import TESTS, TestPlan, _Night, run_id
from ndrpdr.trend import changepoint
from ndrpdr.trend.changepoint import MIN_SEGMENT, noise_sigma, segments
from ndrpdr.trend.history import sample_from_record

#: One night of one test: {"value": sample value, "noise": its noise, "trials": [[load, loss]]}.
Night = dict[str, Any]
#: The recent-change test: the last this many nights against all before.
RECENT = 2
#: Its threshold: two-sided 5 % spread over a year of nightly looks (Bonferroni).
RECENT_Z = statistics.NormalDist().inv_cdf(1.0 - 0.05 / 365 / 2)


def _night(runner: _Night, night: int, factor: float, seed: int) -> Night:
    record = runner.record(night, factor, seed, False)
    sample = sample_from_record(runner.test.name, record, run_id=run_id(night))
    value = sample.metrics["MRR mean" if runner.test.kind == "mrr" else "NDR lower"]
    return {
        "value": value.value_pps,
        "noise": value.noise_pps,
        "trials": [[t["load_pps"], t["loss_ratio"]] for t in record.get("trials", [])],
        "params": runner.base.parameters(),
    }


def generate(seed: int) -> dict[str, Any]:
    """Every test's noise year (seed) and step nights (seed + 1), one process."""
    out: dict[str, Any] = {}
    for test in TESTS:
        runner = _Night(test)
        out[test.name] = {
            "kind": test.kind,
            "noise": [_night(runner, night, 1.0, seed) for night in range(365)],
            "steps": {
                str(step): [
                    _night(runner, night, 0.95, seed + 1)
                    for night in range(step, step + MIN_SEGMENT)
                ]
                for step in STEP_NIGHTS
            },
        }
        print(f"    generated {test.name}", file=sys.stderr, flush=True)
    return out


def overload_rx(night: Night) -> float:
    """Mean receive rate [pps] of the trials at the search's highest load."""
    top = max(load for load, _ in night["trials"])
    return statistics.fmean(
        load * (1.0 - loss) for load, loss in night["trials"] if load >= 0.999 * top
    )


def pass_fail_fit(night: Night) -> float:
    """Load [pps] where the ML logistic fit of P(loss > 0) against ln(load) is 0.5."""
    xs = [math.log(load) for load, _ in night["trials"]]
    ys = [1.0 if loss > 0.0 else 0.0 for _, loss in night["trials"]]
    passed = [x for x, y in zip(xs, ys, strict=True) if not y]
    failed = [x for x, y in zip(xs, ys, strict=True) if y]
    middle = (max(passed) + min(failed)) / 2 if passed and failed else statistics.fmean(xs)
    slope, offset = 100.0, -100.0 * middle
    for _ in range(100):  # Newton's method on the log-likelihood
        g0 = g1 = h00 = h01 = h11 = 0.0
        for x, y in zip(xs, ys, strict=True):
            z = slope * x + offset
            p = 1.0 / (1.0 + math.exp(-z)) if z > -700 else 0.0
            w = p * (1.0 - p)
            g0, g1 = g0 + (y - p) * x, g1 + (y - p)
            h00, h01, h11 = h00 + w * x * x, h01 + w * x, h11 + w
        det = h00 * h11 - h01 * h01
        if det <= 1e-300:
            break
        d_slope, d_offset = (h11 * g0 - h01 * g1) / det, (h00 * g1 - h01 * g0) / det
        slope, offset = slope + d_slope, offset + d_offset
        if abs(d_slope) < 1e-9 * abs(slope) and abs(d_offset) < 1e-9 * abs(offset):
            break
    return math.exp(-offset / slope)


def cramer_rao_pct(night: Night) -> float:
    """Least night-to-night sd [% of capacity] of an unbiased estimate from pass/fail alone."""
    params = night["params"]
    capacity, band, top = (
        params["capacity_pps"],
        params["band_fraction"],
        params["max_loss_probability"],
    )
    info = 0.0
    for load, _ in night["trials"]:
        if (1.0 - band) * capacity < load < capacity:
            p = top * (load / capacity - (1.0 - band)) / band
            info += (top * load / (band * capacity)) ** 2 / (p * (1.0 - p))
    return 100.0 / math.sqrt(info) if info else math.inf


ESTIMATES: dict[str, Callable[[Night], float]] = {
    "NDR lower": lambda night: float(night["value"]),
    "overload rx": overload_rx,
    "pass/fail fit": pass_fail_fit,
}


def _mdl_flags(values: Sequence[float], noises: Sequence[float], step: int | None) -> bool:
    """MDL: a change at all (step None), or a drop at ``step``."""
    found = segments(values, noises).changes
    if step is None:
        return bool(found)
    return any(c.index == step and c.relative < 0 for c in found)


def _recent_z(values: Sequence[float], noises: Sequence[float]) -> float:
    if len(values) < RECENT + 2 * MIN_SEGMENT:
        return 0.0
    history, recent = values[:-RECENT], values[-RECENT:]
    sigma = noise_sigma(history, noises[:-RECENT])
    spread = sigma * math.sqrt(1.0 / RECENT + 1.0 / len(history))
    return (statistics.fmean(recent) - statistics.fmean(history)) / spread


def _recent_flags(values: Sequence[float], noises: Sequence[float], step: int | None) -> bool:
    z = _recent_z(values, noises)
    return abs(z) > RECENT_Z if step is None else z < -RECENT_Z


@contextlib.contextmanager
def _penalty(per_ln_n: float, horizon: int) -> Iterator[None]:
    """The detector with ``per_ln_n`` x ln(max(n, horizon)) nats a cut."""

    def penalty(count: int) -> float:
        return 2.0 * per_ln_n * math.log(max(count, horizon, 2))

    with mock.patch.object(changepoint, "penalty", penalty):
        yield


#: Detector name -> (flags, nats per ln n, horizon [runs]); 0 nats: no penalty (recent test).
DETECTORS: dict[
    str, tuple[Callable[[Sequence[float], Sequence[float], int | None], bool], float, int]
] = {
    "MDL 1.5 ln n (no horizon)": (_mdl_flags, 1.5, 0),
    "MDL 1.5 ln max(n,365) (ships)": (_mdl_flags, 1.5, 365),
    "MDL 2 ln max(n,365)": (_mdl_flags, 2.0, 365),
    "recent 2 nights, |z|>3.81": (_recent_flags, 0.0, 0),
}


#: Quiet on the year's page, quiet on every night's page, each step case found.
Score = tuple[bool, bool, list[bool]]


def score(test: dict[str, Any], estimate: Callable[[Night], float], detector: str) -> Score:
    """How ``detector`` does on ``test``'s nights with ``estimate`` as its series."""
    flags, per_ln_n, horizon = DETECTORS[detector]
    with _penalty(per_ln_n, horizon) if per_ln_n else contextlib.nullcontext():
        values = [estimate(night) for night in test["noise"]]
        noises = [night["noise"] for night in test["noise"]]
        if estimate is not ESTIMATES["NDR lower"] and test["kind"] == "ndrpdr":
            noises = []  # the search's width bounds only its own result
        year = not flags(values, noises, None)
        every = year and not any(
            flags(values[:count], noises[:count], None)
            for count in range(2 * MIN_SEGMENT, len(values))
        )
        found = []
        for step, after in test["steps"].items():
            night = int(step)
            stepped = values[:night] + [estimate(n) for n in after]
            stepped_noises = noises[:night] + [n["noise"] for n in after] if noises else []
            found.append(flags(stepped, stepped_noises, night))
    return year, every, found


def main(argv: Sequence[str] | None = None) -> int:
    """Print the table; always exit 0 (no target here)."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.trendestimators")
    parser.add_argument("--seed", type=int, default=1, help="noise seed; steps seed + 1")
    parser.add_argument("--cache", type=Path, help="JSON file keeping the generated nights")
    args = parser.parse_args(argv)
    if args.cache and args.cache.exists():
        data = json.loads(args.cache.read_text(encoding="utf-8"))
    else:
        data = generate(args.seed)
        if args.cache:
            args.cache.write_text(json.dumps(data), encoding="utf-8")
    tests: list[TestPlan] = list(TESTS)
    ndrpdr = [data[t.name] for t in tests if t.kind == "ndrpdr"]
    mrr = [data[t.name] for t in tests if t.kind == "mrr"]
    print(f"seed {args.seed} (steps {args.seed + 1}); per test: quiet on the year's page, "
          "on every night's page, steps found within 2 nights")  # fmt: skip
    for t, test in zip([t for t in tests if t.kind == "ndrpdr"], ndrpdr, strict=True):
        bound = statistics.median(cramer_rao_pct(night) for night in test["noise"])
        values = [night["value"] for night in test["noise"]]
        sigma = 100 * noise_sigma(values) / statistics.median(values)
        print(f"    {t.name:<34} NDR sigma {sigma:.2f} %, pass/fail bound {bound:.2f} %")
    print(f"{'detector':<27} {'estimate':<26} {'year':>6} {'nightly':>8} {'steps':>7}")
    for detector in DETECTORS:
        mrr_scores = [score(test, ESTIMATES["NDR lower"], detector) for test in mrr]
        rows = {
            name: [score(test, f, detector) for test in ndrpdr] for name, f in ESTIMATES.items()
        }
        # NDR lower or overload rx: a test flags when either of its two series does.
        rows["NDR lower | overload rx"] = [
            (a[0] and b[0], a[1] and b[1], [x or y for x, y in zip(a[2], b[2], strict=True)])
            for a, b in zip(rows["NDR lower"], rows["overload rx"], strict=True)
        ]
        rows["MRR mean (MRR tests)"] = mrr_scores
        for name, found in rows.items():
            _row(detector, name, found)
    return 0


def _row(detector: str, name: str, scores: Sequence[Score]) -> None:
    year = sum(s[0] for s in scores)
    every = sum(s[1] for s in scores)
    steps = sum(sum(s[2]) for s in scores)
    count = len(scores)
    print(f"{detector:<27} {name:<26} {year:>3}/{count:<2} {every:>5}/{count:<2} "
          f"{steps:>4}/{6 * count}")  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
