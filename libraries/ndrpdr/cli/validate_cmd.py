"""``ndrpdr validate [--plan] [--nic MODEL] FILE...``: check topology files, show the test plan."""

from __future__ import annotations

import argparse
import sys

from ndrpdr.cli.searchargs import add_nic_option
from ndrpdr.drivers import describe
from ndrpdr.dut.plan import plan_duts
from ndrpdr.errors import NdrPdrError
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.model import Topology
from ndrpdr.topology.path import TrafficPath, compute_path, nic_models


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the arguments and ``run`` (the help line is in ``commands.COMMANDS``)."""
    parser.add_argument(
        "--plan",
        action="store_true",
        help="also print the test plan: the traffic path (ports, links) and the DUT addresses",
    )
    add_nic_option(parser)
    parser.add_argument("files", nargs="+", metavar="FILE")
    parser.set_defaults(run=run)


def plan_lines(topology: Topology, path: TrafficPath) -> list[str]:
    """The test plan of ``path`` as printed by ``validate --plan``."""
    models = [m for m in nic_models(topology) if m is not None]
    nic = path.nic or "not named in the file"
    others = [m for m in models if m != path.nic]
    lines = [
        f"  {path.node_count}-node path ({path.topology_tag}), NIC {nic}"
        + (f"; other NICs (--nic): {', '.join(others)}" if others else ""),
    ]
    lines += [f"    {line}" for line in path.describe(topology)]
    configs = plan_duts(topology, path, "ip4base")
    for key, config in configs.items():
        node = topology.nodes[key]
        port_driver = describe("DUT", node.driver).port_driver
        drv = f", ports by {port_driver(node)}" if port_driver is not None else ""
        addresses = ", ".join(
            f"{p.key} {p.ip4_address} -> {p.routed_prefix} via {p.peer_ip4}" for p in config.ports
        )
        lines.append(f"    {key} ({node.driver}{drv}): {addresses}")
    return lines


def run(args: argparse.Namespace) -> int:
    """0 when every file is valid (and has a path, with --plan); 1 with a message otherwise."""
    status = 0
    for name in args.files:
        try:
            topology = load_topology(name)
            path = compute_path(topology, args.nic) if args.plan or args.nic else None
            lines = [] if path is None else plan_lines(topology, path)
        except NdrPdrError as exc:
            print(exc, file=sys.stderr)
            status = 1
            continue
        nodes = ", ".join(f"{n.key} ({n.driver})" for n in topology.nodes.values())
        print(f"{name}: valid: {nodes}; {len(topology.links)} links")
        for line in lines:
            print(line)
    return status
