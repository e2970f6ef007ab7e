"""``ndrpdr compare A B``: two runs' NDR / PDR / MRR per test, the change, and whether it is noise.

A and B are each a results directory (one JSON record per test) or an
output.xml linking the records. Exit 0, or 1 with ``--fail-on-regression
PCT`` when a test got worse beyond noise and by more than PCT %; exit 2 for
a path that is not a run's results (the message names it).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from ndrpdr.console.lines import print_to
from ndrpdr.outdir.runfiles import RunFilesError, read_run
from ndrpdr.trend.compare import Comparison, TestKey, compare_runs

_HEAD = ("Test", "Metric", "A [Mpps]", "B [Mpps]", "Change", "Noise", "Verdict")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the arguments and ``run`` (the help line is in ``commands.COMMANDS``)."""
    parser.add_argument("a", type=Path, help="run A (reference): results directory or output.xml")
    parser.add_argument("b", type=Path, help="run B (new run): results directory or output.xml")
    parser.add_argument(
        "--fail-on-regression",
        type=_percent,
        metavar="PCT",
        help="exit 1 when a test's NDR/PDR lower bound, MRR mean or soak critical load got worse"
        " beyond noise and by more than PCT %%",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.set_defaults(run=run)


def _percent(text: str) -> float:
    try:
        value = float(text.rstrip("%"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a percentage: {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"a percentage >= 0, not {text!r}")
    return value


def _key_text(key: TestKey) -> str:
    return f"{key.name} [{key.frame_size}, {key.profile}]"


def table_lines(comparison: Comparison, threshold_pct: float | None) -> list[str]:
    """The aligned table, the tests only in one run, and the regressions (if gated)."""
    cells = [
        (
            row.key.name,
            row.metric,
            f"{row.a_pps / 1e6:.4f}",
            "-" if row.b_pps is None else f"{row.b_pps / 1e6:.4f}",
            "-" if row.change_pct is None else f"{row.change_pct:+.2f} %",
            "-" if row.noise_pct is None else f"±{row.noise_pct:.2f} %",
            row.verdict
            + (" REGRESSION" if threshold_pct is not None and row.regressed(threshold_pct) else "")
            + (f" ({row.note})" if row.note else ""),
        )
        for row in comparison.rows
    ]
    widths = [max(len(c[i]) for c in [_HEAD, *cells]) for i in range(len(_HEAD))]
    left = {0, 1, 6}

    def line(values: tuple[str, ...]) -> str:
        return "  ".join(
            v.ljust(w) if i in left else v.rjust(w)
            for i, (v, w) in enumerate(zip(values, widths, strict=True))
        ).rstrip()

    lines = [line(_HEAD), "-" * len(line(_HEAD))] + [line(c) for c in cells]
    for run, keys in (("A", comparison.only_a), ("B", comparison.only_b)):
        if keys:
            lines.append(f"only in {run}: " + ", ".join(_key_text(k) for k in keys))
    lines.append(
        f"{len({r.key for r in comparison.rows})} tests in both runs, matched by test name, "
        "frame size and profile; rates aggregate over directions; noise = both searches' "
        "widths (MRR: 2 x stdev / sqrt(n) of each run)"
    )
    if threshold_pct is not None:
        count = len({r.key for r in comparison.regressions(threshold_pct)})
        lines.append(f"{count} tests regressed beyond noise by more than {threshold_pct:g} %")
    return lines


def run(args: argparse.Namespace) -> int:
    """0, or 1 when gated and a test regressed; 2 when A or B is not a run's results."""
    try:
        comparison = compare_runs(read_run(args.a), read_run(args.b))
    except RunFilesError as exc:
        print(f"ndrpdr compare: {exc}", file=sys.stderr)
        return 2
    threshold: float | None = args.fail_on_regression
    if args.json:
        document = {
            "a": str(args.a),
            "b": str(args.b),
            "fail_on_regression_pct": threshold,
            "rows": [row.to_json() for row in comparison.rows],
            "only_a": [k.name for k in comparison.only_a],
            "only_b": [k.name for k in comparison.only_b],
            "regressions": []
            if threshold is None
            else [r.to_json() for r in comparison.regressions(threshold)],
        }
        print_to(sys.stdout, json.dumps(document, indent=2))
    else:
        for text in table_lines(comparison, threshold):
            print_to(sys.stdout, text)
    if threshold is not None and comparison.regressions(threshold):
        return 1
    return 0
