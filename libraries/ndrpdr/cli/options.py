"""Options shared by the commands that drive traffic, and turning them into objects."""

from __future__ import annotations

import argparse
from pathlib import Path

from ndrpdr.activebed.testbed import ActiveTestbed
from ndrpdr.cli.profileargs import frame_size_option, profile_option
from ndrpdr.cli.searchargs import add_nic_option
from ndrpdr.console.progress import ConsoleKind
from ndrpdr.families import get_family
from ndrpdr.profiles import FrameSize, Profile, frame_sizes
from ndrpdr.searchlimits import BadSettingError
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.model import Topology
from ndrpdr.trafficgen.base import TrafficGenerator

DEFAULT_TOPOLOGY = "topologies/sim.yaml"
DEFAULT_PROFILE = "ethip4-ip4base"


def add_traffic_options(
    parser: argparse.ArgumentParser, *, topology_required: bool = False
) -> None:
    """--topology (the simulator's unless ``topology_required``), --profile, --cores,
    --frame-size, --flows, --unidirectional."""
    if topology_required:
        parser.add_argument("--topology", required=True, metavar="FILE", help="topology file")
    else:
        parser.add_argument(
            "--topology",
            default=DEFAULT_TOPOLOGY,
            metavar="FILE",
            help=f"topology file (default {DEFAULT_TOPOLOGY}, the simulator)",
        )
    parser.add_argument(
        "--profile",
        default=DEFAULT_PROFILE,
        metavar="FAMILY",
        help=f"test family by CSIT id, e.g. ethip6-ip6base (default {DEFAULT_PROFILE}; "
        "ndrpdr families lists them)",
    )
    parser.add_argument(
        "--cores",
        type=int,
        default=1,
        metavar="N",
        help="physical cores of each DUT's data plane, as the suites' Nc tests (default 1); "
        "on a DUT with SMT each with all its hardware threads (2T1C), as CSIT's",
    )
    parser.add_argument(
        "--no-smt",
        action="store_true",
        help="one data-plane thread a physical core on DUTs with SMT (1T1C; CSIT's smt_used off)",
    )
    parser.add_argument(
        "--frame-size", default="64", metavar="B", help="64..9018 or IMIX (default 64)"
    )
    parser.add_argument("--flows", type=int, default=None, help="flows per direction")
    parser.add_argument(
        "--unidirectional", action="store_true", help="send TG port 1 -> port 2 only"
    )
    add_nic_option(parser)


def add_console_option(parser: argparse.ArgumentParser) -> None:
    """--console verbose|dotted|quiet|none, as Robot's: only verbose shows a line per trial."""
    parser.add_argument(
        "--console",
        choices=[kind.value for kind in ConsoleKind],
        default=ConsoleKind.VERBOSE.value,
        help="verbose (default): a line per trial with the bounds so far and an estimate of "
        "what is left every 10 trials; dotted, quiet, none: no line per trial",
    )


def check_traffic_options(args: argparse.Namespace) -> tuple[Profile, FrameSize]:
    """The profile and frame size the options name; BadSettingError naming the option
    (``--flows 0: ...``, ``--frame-size 10: ...``) before anything is set up."""
    profile = profile_option(args)
    frame_size = frame_size_option(args)
    if args.cores < 1:
        raise BadSettingError(f"--cores {args.cores}: give 1 or more physical cores")
    return profile, frame_size


def traffic_from(args: argparse.Namespace) -> tuple[Topology, Profile, FrameSize]:
    """Check the traffic options, then load the topology (NdrPdrError if bad; a bad
    option is a BadSettingError naming it)."""
    profile, frame_size = check_traffic_options(args)
    topology = load_topology(Path(args.topology))
    return topology, profile, frame_size


def configured_tg(
    testbed: ActiveTestbed, args: argparse.Namespace, profile: Profile, frame_size: FrameSize
) -> TrafficGenerator:
    """Configure the DUTs of ``testbed`` for ``profile``'s family (``--cores``) and give the
    TG of that traffic (``--unidirectional``, or a one-way family): what one-test commands do
    before measuring."""
    family, size = get_family(profile.name), max(frame_sizes(frame_size))
    testbed.configure_family(family, cores=args.cores, max_frame_size_b=size, smt=not args.no_smt)
    return testbed.traffic_generator(
        profile, frame_size, bidirectional=traffic_directions(args, profile) == 2
    )


def traffic_directions(args: argparse.Namespace, profile: Profile) -> int:
    """Directions sent: 1 with ``--unidirectional`` or for a one-way family, else 2."""
    return 1 if args.unidirectional or profile.unidirectional else 2
