"""``ndrpdr search``'s options as the user typed them, checked by ``ndrpdr.searchlimits``.

``search_settings(args)`` runs right after argument parsing, before any
testbed exists; ``usage_error`` reports a bad value as argparse does
(``ndrpdr search: error: --min-rate 0: ...``, exit status 2). Also
``--nic MODEL``, which validate, trial, search and check share (here, not
in ``options``: validate needs nothing else of the traffic options, and
none of their imports).
"""

from __future__ import annotations

import argparse
import sys

from ndrpdr.searchlimits import CheckedSettings, Given, check_search_settings

#: Setting key -> (option as typed, attribute of the parsed arguments).
SEARCH_OPTIONS: dict[str, tuple[str, str]] = {
    "final_trial_duration": ("--final-trial-duration", "final_trial_duration"),
    "initial_trial_duration": ("--initial-trial-duration", "initial_trial_duration"),
    "duration_sum": ("--duration-sum", "duration_sum"),
    "max_search_time": ("--max-search-time", "max_search_time"),
    "goal_width": ("--width", "width"),
    "exceed_ratio": ("--exceed-ratio", "exceed_ratio"),
    "loss_ratios": ("--loss-ratio", "loss_ratio"),
    "latency_duration": ("--latency-duration", "latency_duration"),
    "min_rate": ("--min-rate", "min_rate"),
    "max_rate": ("--max-rate", "max_rate"),
}


def given(args: argparse.Namespace, key: str) -> Given:
    """The option of setting ``key`` as typed, with its value."""
    option, attribute = SEARCH_OPTIONS[key]
    return Given(option, getattr(args, attribute))


def search_settings(args: argparse.Namespace) -> CheckedSettings:
    """The checked settings of ``ndrpdr search`` (BadSettingError naming the option)."""
    return check_search_settings({key: given(args, key) for key in SEARCH_OPTIONS})


def usage_error(command: str, error: Exception) -> int:
    """Print ``ndrpdr COMMAND: error: MESSAGE`` to stderr as argparse does; return 2."""
    print(f"ndrpdr {command}: error: {error}", file=sys.stderr, flush=True)
    return 2


def add_nic_option(parser: argparse.ArgumentParser) -> None:
    """--nic MODEL: the NIC whose ports the traffic crosses."""
    parser.add_argument(
        "--nic",
        default=None,
        metavar="MODEL",
        help="NIC model of the DUT ports to test, e.g. Intel-E810CQ (default: the first "
        "ports that make a whole path)",
    )
