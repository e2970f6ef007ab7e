"""``--nic MODEL``, shared by validate, trial and search (a module of its own: validate needs
nothing else of the traffic options, and none of their imports)."""

from __future__ import annotations

import argparse


def add_nic_option(parser: argparse.ArgumentParser) -> None:
    """--nic MODEL: the NIC whose ports the traffic crosses."""
    parser.add_argument(
        "--nic",
        default=None,
        metavar="MODEL",
        help="NIC model of the DUT ports to test, e.g. Intel-E810CQ (default: the first "
        "ports that make a whole path)",
    )
