"""``ndrpdr soak``: set the testbed up, run one soak search, print the critical load, tear down;
``--json OUT`` writes the soak record (also when a trial fails: the trials so far)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ndrpdr.activebed.testbed import ActiveTestbed
from ndrpdr.cli.options import (
    add_traffic_options,
    configured_tg,
    traffic_directions,
    traffic_from,
)
from ndrpdr.cli.searchargs import usage_error
from ndrpdr.console.lines import print_to
from ndrpdr.report.soaksummary import soak_message
from ndrpdr.results.record import RecordTraffic, write_record
from ndrpdr.runsetup import RunSetup
from ndrpdr.search.soak import SOAK_LOSS_RATIO
from ndrpdr.searchlimits import BadSettingError, Given
from ndrpdr.soakrun import SoakHooks, SoakRequest, run_soak
from ndrpdr.units import UnitError, parse_duration


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the arguments and ``run`` (the help line is in ``commands.COMMANDS``)."""
    add_traffic_options(parser)
    parser.add_argument(
        "--soak-time", default="30min", help="trial time of the soak (default 30min, CSIT's)"
    )
    parser.add_argument(
        "--loss-ratio",
        type=float,
        default=SOAK_LOSS_RATIO,
        help=f"target loss ratio (default {SOAK_LOSS_RATIO:g})",
    )
    parser.add_argument("--min-rate", help="lowest load (default max / 1000, at least 10 kpps)")
    parser.add_argument("--max-rate", help="highest load (default the TG's maximum)")
    parser.add_argument("--json", type=Path, default=None, metavar="OUT", help="result record")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Print the soak's estimate; 0 on success, 1 when the record could not be written, 2 for
    a bad option (named)."""
    try:
        soak_time = _soak_time(args.soak_time)
        if not 0.0 < args.loss_ratio < 1.0:
            raise Given("--loss-ratio", args.loss_ratio).bad("out of range", "a ratio in (0, 1)")
        topology, profile, frame_size = traffic_from(args)
    except BadSettingError as exc:
        return usage_error("soak", exc)
    with ActiveTestbed(topology, nic=args.nic) as testbed:
        tg = configured_tg(testbed, args, profile, frame_size)
        directions = traffic_directions(args, profile)
        setup = RunSetup(testbed, tg, RecordTraffic(topology, profile, frame_size, directions))
        try:
            settings = setup.soak_settings(
                None if args.min_rate is None else Given("--min-rate", args.min_rate),
                None if args.max_rate is None else Given("--max-rate", args.max_rate),
                loss_ratio=args.loss_ratio,
                time_budget_s=soak_time,
            )
        except BadSettingError as exc:
            return usage_error("soak", exc)
        written: list[bool] = []
        run = run_soak(
            tg,
            SoakRequest(setup.traffic, settings, initial_duration_s=min(1.0, soak_time)),
            SoakHooks(finish=lambda run: written.append(_write(args.json, run.record))),
        )
        if run.failure is not None:  # the record is written: the failure as raised, as before
            raise run.failure
    print(soak_message(run.record))
    return 0 if all(written) else 1


def _write(path: Path | None, record: dict[str, Any]) -> bool:
    """Write the record to ``path`` (``--json``; None: not asked); False when it could not be."""
    if path is None:
        return True
    try:
        write_record(record, path)
    except OSError as exc:
        print_to(sys.stderr, f"ndrpdr soak: cannot write the result record: {exc}")
        return False
    return True


def _soak_time(text: str) -> float:
    """--soak-time in seconds, or BadSettingError naming it."""
    given = Given("--soak-time", text)
    try:
        seconds = parse_duration(text)
    except UnitError as exc:
        raise given.bad(str(exc), "a duration such as 30min or 600s") from exc
    if seconds <= 0:
        raise given.bad("not a time", "a duration above 0 s")
    return seconds
