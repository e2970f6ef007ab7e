"""``ndrpdr search``: set up, one search for NDR, PDR (or other loss ratios), a line per
trial (``--console``), the bounds, tear down."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ndrpdr.activebed.testbed import ActiveTestbed
from ndrpdr.cli.options import (
    add_console_option,
    add_traffic_options,
    configured_tg,
    traffic_directions,
    traffic_from,
)
from ndrpdr.cli.searchargs import given, search_settings, usage_error
from ndrpdr.console.lines import bounds_lines, print_to
from ndrpdr.console.progress import ConsoleKind, ProgressPrinter
from ndrpdr.goals import NDR_LOSS_RATIO, PDR_LOSS_RATIO
from ndrpdr.latencyrun import DEFAULT_LATENCY_DURATION_S
from ndrpdr.report.latencysummary import latency_lines
from ndrpdr.results.caveats import caveat_lines
from ndrpdr.results.irregular import IrregularPolicy
from ndrpdr.results.record import RecordTraffic, write_record
from ndrpdr.runsetup import RunSetup, allowed_irregular, search_problem
from ndrpdr.search import ALGORITHMS
from ndrpdr.searchlimits import (
    DEFAULT_MAX_SEARCH_TIME_S,
    DURATION_SUM_MAX_S,
    DURATION_SUM_MAX_TRIALS,
    FINAL_TRIAL_DURATION_MAX_S,
    LATENCY_DURATION_MAX_S,
    MAX_SEARCH_TIME_MAX_S,
    BadSettingError,
)
from ndrpdr.searchrun import SearchHooks, SearchRequest, SearchRun, run_search


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the arguments and ``run`` (the help line is in ``commands.COMMANDS``)."""
    add_traffic_options(parser)
    parser.add_argument(
        "--final-trial-duration",
        default="1s",
        help=f"full-length trial (1s; at most {FINAL_TRIAL_DURATION_MAX_S:g}s)",
    )
    parser.add_argument(
        "--initial-trial-duration",
        default=None,
        help="shortest trial (1s, or the final duration when shorter; at most the final one)",
    )
    parser.add_argument(
        "--duration-sum",
        default=None,
        help=f"full-length seconds per load (max(21s, final); from the final duration to "
        f"{DURATION_SUM_MAX_TRIALS} times it, at most {DURATION_SUM_MAX_S:g}s)",
    )
    parser.add_argument("--width", default="0.005", help="goal width (0.005; above 0, below 1)")
    parser.add_argument(
        "--loss-ratio",
        action="append",
        default=None,
        metavar="RATIO",
        help="a goal's loss ratio (0.02 is 2 %%); repeat for more goals in one search "
        f"(default {NDR_LOSS_RATIO:g} and {PDR_LOSS_RATIO:g}: NDR and PDR)",
    )
    parser.add_argument(
        "--exceed-ratio",
        default="0.5",
        help="share of full-length seconds at a lower bound that may lose more (0.5; 0 to below 1)",
    )
    parser.add_argument("--algorithm", choices=ALGORITHMS, default="mlr")
    parser.add_argument(
        "--intermediate-trials",
        action="store_true",
        help="mlr: before the first full-length trial at a load, one trial of intermediate "
        "duration there (MLRsearch's: sqrt(initial duration x duration sum), when shorter than "
        "the final duration); one more chance to see rare interrupts, at the cost of time "
        "(off; binary and bswlv ignore it)",
    )
    parser.add_argument(
        "--min-rate", default=None, help="lowest load (default max / 1000, at least 10 kpps)"
    )
    parser.add_argument("--max-rate", default=None, help="highest load (default the TG's max)")
    parser.add_argument(
        "--max-search-time",
        default=f"{DEFAULT_MAX_SEARCH_TIME_S:g}s",
        help=f"cap on the sum of trial durations ({DEFAULT_MAX_SEARCH_TIME_S:g}s, as the Robot "
        f"suites; at least the final duration, at most {MAX_SEARCH_TIME_MAX_S:g}s)",
    )
    parser.add_argument(
        "--allow-irregular",
        action="store_true",
        help="pass with a WARNING an irregular result (a min load that already loses, bounds "
        "out of order, bounds limited by the TG, the time cap hit), which fails otherwise",
    )
    parser.add_argument(
        "--no-calibrate",
        action="store_true",
        help="do not cap the max load at what a calibration trial shows the TG can send",
    )
    parser.add_argument(
        "--latency-duration",
        default=f"{DEFAULT_LATENCY_DURATION_S:g}s",
        help="after the search, a latency trial this long at 0, 10, 50 and 90 %% of PDR "
        f"where the TG can ({DEFAULT_LATENCY_DURATION_S:g}s; at most "
        f"{LATENCY_DURATION_MAX_S:g}s)",
    )
    parser.add_argument("--no-latency", action="store_true", help="do not measure latency")
    parser.add_argument("--json", type=Path, default=None, metavar="OUT", help="result record")
    add_console_option(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """0 when the search finished, 1 when it failed or its result is irregular (the record
    still has the trials), 2 for a setting out of range (before any testbed is set up)."""
    try:
        settings = search_settings(args)
        topology, profile, frame_size = traffic_from(args)
    except BadSettingError as exc:
        return usage_error("search", exc)
    finished: list[SearchRun] = []  # the run's outcome, however it ended
    try:
        with ActiveTestbed(topology, nic=args.nic) as testbed:
            tg = configured_tg(testbed, args, profile, frame_size)
            directions = traffic_directions(args, profile)
            setup = RunSetup(testbed, tg, RecordTraffic(topology, profile, frame_size, directions))
            try:  # rates in % or bps need the TG's maximum: checked now, before any trial
                low, high = setup.load_range(given(args, "min_rate"), given(args, "max_rate"))
            except BadSettingError as exc:
                return usage_error("search", exc)
            console = ConsoleKind(args.console)
            if console in (ConsoleKind.VERBOSE, ConsoleKind.DOTTED):
                print_to(
                    sys.stdout,
                    f"{topology.source}: {profile.name} {frame_size} B, {args.algorithm} search "
                    f"up to {high:.6g} pps",
                )
            request = SearchRequest(
                traffic=setup.traffic,
                goals=settings.goals(),
                algorithm=args.algorithm,
                intermediate_trials=args.intermediate_trials,
                min_load_pps=low,
                max_load_pps=high,
                max_search_time_s=settings.max_search_time_s,
                calibrate=not args.no_calibrate,
                latency_duration_s=None if args.no_latency else settings.latency_duration_s,
                irregular=IrregularPolicy.WARN if args.allow_irregular else IrregularPolicy.FAIL,
            )
            hooks = SearchHooks(
                progress=ProgressPrinter(lambda line: print_to(sys.stdout, line))
                if console.shows_trials
                else None,
                notice=lambda text: print_to(sys.stdout, f"WARNING: {text}"),
                record_path=args.json,
                finish=finished.append,
            )
            # a Ctrl-C propagates from here, once finish has the outcome
            run_search(tg, request, setup.search_hooks(hooks))
    finally:  # after teardown, also when a Ctrl-C propagates: the record and the bounds
        written = not finished or _report(args, finished[0].record_json())
    outcome = finished[0]
    problem = search_problem(outcome)
    if problem is not None:
        print_to(sys.stderr, f"search {problem[0]}: {problem[1]}")
        return 1
    for line in allowed_irregular(outcome, "--allow-irregular"):
        print_to(sys.stderr, f"WARNING: {line}")
    return 0 if written else 1


def _report(args: argparse.Namespace, record: dict[str, Any]) -> bool:
    """Write the record (``--json``) and print the bounds; False when the record could not be
    written (the bounds are printed all the same)."""
    console = ConsoleKind(args.console)
    written = True
    if args.json is not None:
        try:
            write_record(record, args.json)
        except OSError as exc:
            print_to(sys.stderr, f"ndrpdr search: cannot write the result record: {exc}")
            written = False
        else:
            if console in (ConsoleKind.VERBOSE, ConsoleKind.DOTTED):
                print_to(sys.stdout, f"result record: {args.json}")
    if console is not ConsoleKind.NONE:  # the bounds (and their caveats): the command's answer
        for line in bounds_lines(record) + caveat_lines(record) + latency_lines(record):
            print_to(sys.stdout, line)
    return written
