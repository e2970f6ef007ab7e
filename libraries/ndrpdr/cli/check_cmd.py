"""``ndrpdr check --topology FILE``: a testbed's smoke test before a night's run.

One line per step on stdout (``ndrpdr.labcheck``): ``PASS <step>: ...``,
``FAIL <step>: ... — fix: ...``, ``SKIP <step>: ...``; a failure's longer
message follows on stderr, indented. Exit 0 when no step failed, 1
otherwise, 2 for a bad option.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from pathlib import Path

from ndrpdr.activebed.testbed import ActiveTestbed
from ndrpdr.cli.options import add_traffic_options, check_traffic_options
from ndrpdr.cli.searchargs import usage_error
from ndrpdr.cli.trial_cmd import measure_one
from ndrpdr.labcheck import CheckSettings, run_check
from ndrpdr.search.trial import TrialResult
from ndrpdr.searchlimits import BadSettingError, Given, check_trial_settings
from ndrpdr.units import format_rate

#: The check's trial: low enough for any testbed to forward without loss.
DEFAULT_RATE = "10kpps"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the arguments and ``run`` (the help line is in ``commands.COMMANDS``)."""
    add_traffic_options(parser, topology_required=True)
    parser.add_argument(
        "--rate", default=DEFAULT_RATE, help=f"the trial's rate (default {DEFAULT_RATE})"
    )
    parser.add_argument("--duration", default="1s", help="the trial's duration (default 1s)")
    parser.add_argument(
        "--loss-ratio",
        type=float,
        default=0.0,
        metavar="R",
        help="the largest loss ratio the trial may have and pass (default 0)",
    )
    parser.add_argument(
        "--no-trial", action="store_true", help="check the nodes only; send no traffic"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Print each step's line; 0 when none failed, 1 otherwise, 2 for a bad option."""
    rate_given = Given("--rate", args.rate)
    try:
        duration = check_trial_settings(rate_given, Given("--duration", args.duration))
        profile, frame_size = check_traffic_options(args)
        if not 0.0 <= args.loss_ratio < 1.0:
            raise BadSettingError(f"--loss-ratio {args.loss_ratio:g}: give 0 <= R < 1")
    except BadSettingError as exc:
        return usage_error("check", exc)

    def trial(testbed: ActiveTestbed) -> tuple[str, TrialResult]:
        rate, result = measure_one(testbed, args, profile, frame_size, rate_given, duration)
        return f"{format_rate(rate)} for {duration:g} s ({profile.name}, {frame_size} B)", result

    settings = CheckSettings(
        Path(args.topology),
        nic=args.nic,
        trial=None if args.no_trial else trial,
        max_loss_ratio=args.loss_ratio,
    )
    status = 0
    for outcome in run_check(settings):
        print(outcome.line, flush=True)
        if outcome.detail:
            print(textwrap.indent(outcome.detail, "    "), file=sys.stderr, flush=True)
        if outcome.status == "FAIL":
            status = 1
    return status
