"""``ndrpdr search``: set up, one NDR+PDR search with a line per trial, bounds, tear down."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ndrpdr.cli.console import bounds_lines, print_to, trial_line
from ndrpdr.cli.options import add_traffic_options, traffic_from
from ndrpdr.errors import NdrPdrError
from ndrpdr.goals import ndr_pdr_goals
from ndrpdr.results.caveats import caveat_lines
from ndrpdr.results.record import write_record
from ndrpdr.search import ALGORITHMS, TrialResult
from ndrpdr.searchrun import run_search
from ndrpdr.testbed.active import ActiveTestbed, forwarding_mode
from ndrpdr.units import parse_duration, parse_rate


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register the command."""
    parser = commands.add_parser("search", help="find NDR and PDR with one search")
    add_traffic_options(parser)
    parser.add_argument("--final-trial-duration", default="1s", help="full-length trial (1s)")
    parser.add_argument("--initial-trial-duration", default="1s", help="shortest trial (1s)")
    parser.add_argument("--duration-sum", default=None, help="full-length seconds per load")
    parser.add_argument("--width", type=float, default=0.005, help="goal width (0.005)")
    parser.add_argument("--algorithm", choices=ALGORITHMS, default="mlr")
    parser.add_argument("--min-rate", default=None, help="lowest load (default max/1000)")
    parser.add_argument("--max-rate", default=None, help="highest load (default the TG's max)")
    parser.add_argument("--max-search-time", default=None, help="cap on trial seconds")
    parser.add_argument(
        "--no-calibrate",
        action="store_true",
        help="do not cap the max load at what a calibration trial shows the TG can send",
    )
    parser.add_argument("--json", type=Path, default=None, metavar="OUT", help="result record")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """0 when the search finished, 1 when it failed (the record still has the trials)."""
    topology, profile, frame_size = traffic_from(args)
    final = parse_duration(args.final_trial_duration)
    goals = ndr_pdr_goals(
        final_trial_duration_s=final,
        initial_trial_duration_s=parse_duration(args.initial_trial_duration),
        duration_sum_s=None if args.duration_sum is None else parse_duration(args.duration_sum),
        relative_width=args.width,
    )
    limit = None if args.max_search_time is None else parse_duration(args.max_search_time)

    def show(index: int, trial: TrialResult) -> None:
        print_to(sys.stdout, trial_line(index, trial))

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
            notice=lambda text: print_to(sys.stdout, f"WARNING: {text}"),
        )
    status = 0
    if args.json is not None:
        try:
            write_record(outcome.record, args.json)
        except OSError as exc:  # the bounds are still printed below
            print_to(sys.stderr, f"ndrpdr search: cannot write the result record: {exc}")
            status = 1
        else:
            print_to(sys.stdout, f"result record: {args.json}")
    for line in bounds_lines(outcome.record) + caveat_lines(outcome.record):
        print_to(sys.stdout, line)
    if outcome.pending is not None:
        raise outcome.pending
    if outcome.interrupted:
        raise KeyboardInterrupt
    if outcome.error:
        print_to(sys.stderr, f"search failed: {outcome.error}")
        return 1
    return status
