"""``ndrpdr summary output.xml``: the bounds of every test of a Robot run, one line each."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ndrpdr.console.lines import print_to
from ndrpdr.outdir.outputxml import TestOutcome, read_outcomes

_COLUMNS = (
    ("NDR lower", "NDR_LOWER"),
    ("PDR lower", "PDR_LOWER"),
    ("MRR avg", "MRR_AVG"),
    ("Soak avg", "SOAK_AVG"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the arguments and ``run`` (the help line is in ``commands.COMMANDS``)."""
    parser.add_argument("output", type=Path, help="output.xml of a robot run")
    parser.set_defaults(run=run)


def _mpps(value: float | None) -> str:
    return "" if value is None else f"{value / 1e6:.4f} Mpps"


def summary_lines(outcomes: list[TestOutcome]) -> list[str]:
    """A table: test, status, NDR / PDR lower bounds or MRR, and why a test failed."""
    width = max([len(o.name) for o in outcomes] + [4])
    head = f"{'Test':<{width}}  Status  " + "  ".join(f"{t:>13}" for t, _ in _COLUMNS)
    lines = [head, "-" * len(head)]
    for outcome in outcomes:
        cells = "  ".join(f"{_mpps(outcome.number(key)):>13}" for _, key in _COLUMNS)
        line = f"{outcome.name:<{width}}  {outcome.status:<6}  {cells}"
        if outcome.status != "PASS":
            line += f"  {outcome.message.splitlines()[0] if outcome.message else ''}"
        lines.append(line.rstrip())
    passed = sum(o.status == "PASS" for o in outcomes)
    lines.append(f"{len(outcomes)} tests, {passed} passed; rates aggregate over directions")
    return lines


def run(args: argparse.Namespace) -> int:
    """0 when every test passed (or was skipped), 1 otherwise."""
    outcomes = read_outcomes(args.output)
    for line in summary_lines(outcomes):
        print_to(sys.stdout, line)
    return 0 if all(o.status in ("PASS", "SKIP") for o in outcomes) else 1
