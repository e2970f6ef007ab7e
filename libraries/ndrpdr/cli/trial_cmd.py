"""``ndrpdr trial``: set the testbed up, run one trial, print its counts, tear down."""

from __future__ import annotations

import argparse

from ndrpdr.activebed.testbed import ActiveTestbed
from ndrpdr.cli.options import add_traffic_options, configured_tg, traffic_from
from ndrpdr.cli.searchargs import usage_error
from ndrpdr.profiles import FrameSize, Profile
from ndrpdr.search.trial import TrialResult
from ndrpdr.searchlimits import (
    FINAL_TRIAL_DURATION_MAX_S,
    BadSettingError,
    Given,
    check_load_range,
    check_trial_settings,
)
from ndrpdr.units import format_rate


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the arguments and ``run`` (the help line is in ``commands.COMMANDS``)."""
    add_traffic_options(parser)
    parser.add_argument("--rate", required=True, help="aggregate rate: 100kpps, 1Mpps, 50%%, 1Gbps")
    parser.add_argument(
        "--duration",
        default="1s",
        help=f"trial duration (default 1s, at most {FINAL_TRIAL_DURATION_MAX_S:g}s)",
    )
    parser.set_defaults(run=run)


def measure_one(
    testbed: ActiveTestbed,
    args: argparse.Namespace,
    profile: Profile,
    frame_size: FrameSize,
    rate_given: Given,
    duration: float,
) -> tuple[float, TrialResult]:
    """Configure ``testbed``'s DUTs for the traffic options, check ``rate_given`` against the
    TG's maximum (BadSettingError) and measure one trial: ``(rate [pps], trial)``. What
    ``ndrpdr trial`` does on its testbed, and ``ndrpdr check``'s trial step."""
    tg = configured_tg(testbed, args, profile, frame_size)
    _, rate = check_load_range(None, rate_given, tg_max_pps=tg.max_load_pps, frame_size=frame_size)
    return rate, tg.measure(duration, rate)


def run(args: argparse.Namespace) -> int:
    """Print intended, offered, received and loss of one trial; 0 on success, 2 for a bad
    --rate or --duration (checked before the testbed is set up, the rate against the TG's
    maximum before the trial)."""
    rate_given = Given("--rate", args.rate)
    try:
        duration = check_trial_settings(rate_given, Given("--duration", args.duration))
        topology, profile, frame_size = traffic_from(args)
    except BadSettingError as exc:
        return usage_error("trial", exc)
    with ActiveTestbed(topology, nic=args.nic) as testbed:
        try:
            rate, trial = measure_one(testbed, args, profile, frame_size, rate_given, duration)
        except BadSettingError as exc:
            return usage_error("trial", exc)
    lost = (trial.loss_count or 0) + trial.unsent_count
    print(f"rate:      {format_rate(rate)} for {duration:g} s ({profile.name}, {frame_size} B)")
    print(f"intended:  {trial.intended_count:.0f} frames")
    print(f"offered:   {trial.offered_count:.0f} frames")
    print(f"received:  {trial.forwarded_count:.0f} frames")
    print(f"loss:      {lost:.0f} frames ({100 * trial.loss_ratio:.4f} %)")
    for warning in trial.warnings:
        print(f"WARNING:   {warning}")
    return 0
