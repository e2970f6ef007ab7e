"""``ndrpdr search``: set up, one search for NDR, PDR (or other loss ratios), a line per
trial (``--console``), the bounds, tear down."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ndrpdr.cli.console import bounds_lines, print_to
from ndrpdr.cli.options import add_console_option, add_traffic_options, traffic_from
from ndrpdr.cli.progress import ConsoleKind, ProgressPrinter
from ndrpdr.errors import NdrPdrError
from ndrpdr.goals import NDR_LOSS_RATIO, PDR_LOSS_RATIO, loss_ratio_goals, parse_loss_ratios
from ndrpdr.latencyrun import DEFAULT_LATENCY_DURATION_S
from ndrpdr.results.caveats import caveat_lines
from ndrpdr.results.latencysummary import latency_lines
from ndrpdr.results.record import write_record
from ndrpdr.search import ALGORITHMS
from ndrpdr.searchrun import run_search
from ndrpdr.testbed.active import ActiveTestbed, forwarding_mode
from ndrpdr.units import parse_duration, parse_rate


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register the command."""
    parser = commands.add_parser(
        "search", help="find NDR and PDR (or the throughput of each --loss-ratio) in one search"
    )
    add_traffic_options(parser)
    parser.add_argument("--final-trial-duration", default="1s", help="full-length trial (1s)")
    parser.add_argument("--initial-trial-duration", default="1s", help="shortest trial (1s)")
    parser.add_argument("--duration-sum", default=None, help="full-length seconds per load")
    parser.add_argument("--width", type=float, default=0.005, help="goal width (0.005)")
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
        type=float,
        default=0.5,
        help="share of full-length seconds at a lower bound that may lose more (0.5)",
    )
    parser.add_argument("--algorithm", choices=ALGORITHMS, default="mlr")
    parser.add_argument("--min-rate", default=None, help="lowest load (default max/1000)")
    parser.add_argument("--max-rate", default=None, help="highest load (default the TG's max)")
    parser.add_argument("--max-search-time", default=None, help="cap on trial seconds")
    parser.add_argument(
        "--no-calibrate",
        action="store_true",
        help="do not cap the max load at what a calibration trial shows the TG can send",
    )
    parser.add_argument(
        "--latency-duration",
        default=f"{DEFAULT_LATENCY_DURATION_S:g}s",
        help="after the search, a latency trial this long at 0, 10, 50 and 90 %% of PDR "
        f"where the TG can ({DEFAULT_LATENCY_DURATION_S:g}s)",
    )
    parser.add_argument("--no-latency", action="store_true", help="do not measure latency")
    parser.add_argument("--json", type=Path, default=None, metavar="OUT", help="result record")
    add_console_option(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """0 when the search finished, 1 when it failed (the record still has the trials)."""
    topology, profile, frame_size = traffic_from(args)
    final = parse_duration(args.final_trial_duration)
    ratios = (
        (NDR_LOSS_RATIO, PDR_LOSS_RATIO)
        if args.loss_ratio is None
        else parse_loss_ratios(args.loss_ratio, "--loss-ratio")
    )
    goals = loss_ratio_goals(
        ratios,
        final_trial_duration_s=final,
        initial_trial_duration_s=parse_duration(args.initial_trial_duration),
        duration_sum_s=None if args.duration_sum is None else parse_duration(args.duration_sum),
        relative_width=args.width,
        exceed_ratio=args.exceed_ratio,
    )
    limit = None if args.max_search_time is None else parse_duration(args.max_search_time)
    latency_s = parse_duration(args.latency_duration)
    console = ConsoleKind(args.console)
    show = (
        ProgressPrinter(lambda line: print_to(sys.stdout, line)) if console.shows_trials else None
    )

    with ActiveTestbed(topology, nic=args.nic) as testbed:
        testbed.configure_duts(forwarding_mode(profile))
        tg = testbed.traffic_generator(profile, frame_size, bidirectional=not args.unidirectional)
        high = tg.max_load_pps
        if args.max_rate is not None:
            high = parse_rate(args.max_rate, max_rate_pps=high, frame_size=frame_size)
            if high > tg.max_load_pps * (1 + 1e-9):
                raise NdrPdrError(
                    f"--max-rate {args.max_rate} ({high:.6g} pps) is above the TG's maximum "
                    f"{tg.max_load_pps:.6g} pps"
                )
        low = None
        if args.min_rate is not None:
            low = parse_rate(args.min_rate, max_rate_pps=high, frame_size=frame_size)
        if console in (ConsoleKind.VERBOSE, ConsoleKind.DOTTED):
            print_to(
                sys.stdout,
                f"{topology.source}: {profile.name} {frame_size} B, {args.algorithm} search "
                f"up to {high:.6g} pps",
            )
        outcome = run_search(
            tg,
            topology=topology,
            profile=profile,
            frame_size=frame_size,
            goals=goals,
            algorithm=args.algorithm,
            min_load_pps=low,
            max_load_pps=high,
            max_search_time_s=limit,
            directions=1 if args.unidirectional else 2,
            progress=show,
            telemetry=testbed.collect_telemetry,
            calibrate=not args.no_calibrate,
            latency_duration_s=None if args.no_latency else latency_s,
            notice=lambda text: print_to(sys.stdout, f"WARNING: {text}"),
            record_path=args.json,
            health=testbed.check_duts,
        )
    status = 0
    if args.json is not None:
        try:
            write_record(outcome.record, args.json)
        except OSError as exc:  # the bounds are still printed below
            print_to(sys.stderr, f"ndrpdr search: cannot write the result record: {exc}")
            status = 1
        else:
            if console in (ConsoleKind.VERBOSE, ConsoleKind.DOTTED):
                print_to(sys.stdout, f"result record: {args.json}")
    if console is not ConsoleKind.NONE:  # the bounds (and their caveats) are the command's answer
        lines = bounds_lines(outcome.record) + caveat_lines(outcome.record)
        for line in lines + latency_lines(outcome.record):
            print_to(sys.stdout, line)
    if outcome.pending is not None:
        raise outcome.pending
    if outcome.interrupted:
        raise KeyboardInterrupt
    if outcome.error:
        print_to(sys.stderr, f"search failed: {outcome.error}")
        return 1
    return status
