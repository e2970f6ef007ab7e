"""``ndrpdr families [ID...]``: the test families, where they run and what they need."""

from __future__ import annotations

import argparse
import sys

from ndrpdr.drivers import FAMILY_SETUP_KINDS, descriptions
from ndrpdr.families import Family, FamilyError, all_families, get_family
from ndrpdr.families.registry import builtin_families, kind_of


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the arguments and ``run`` (the help line is in ``commands.COMMANDS``)."""
    parser.add_argument("ids", nargs="*", metavar="ID", help="only these families")
    parser.set_defaults(run=run)


def drivers_running(family: Family) -> list[str]:
    """The DUT drivers with a set-up for ``family``: by the set-up they take (those that run
    every family, VPP's, the basic modes: ``FAMILY_SETUP_KINDS``), each kind in the drivers'
    order, then those the family names that no description knows."""
    known = descriptions("DUT")
    ordered = [d.name for kind in FAMILY_SETUP_KINDS for d in known if d.family_setup == kind]
    named = set(family.setup.modes) - set(ordered)
    return [driver for driver in [*ordered, *sorted(named)] if family.setup.runs_on(driver)]


def describe(family: Family) -> str:
    """A family's paragraph: id, testbeds, plugins, drivers, traffic (and its note)."""
    lines = [
        family.id + ("" if family.csit else " (ndrpdr's own, not a CSIT id)"),
        f"  testbeds: {family.topologies}",
        f"  VPP plugins: {', '.join(family.plugins) or 'none beyond the base'}",
        f"  DUT drivers: {', '.join(drivers_running(family))}",
        f"  traffic: {family.description}",
        f"  tags: {' '.join(family.tags)}",
    ]
    if family.note:
        lines.append(f"  note: {family.note}")
    return "\n".join(lines) + "\n"


def families_table() -> str:
    """The built-in families as an RST list-table (the manual's docs/reference/families.rst).

    One row per family, in the table's order: kind (the suites' folder), id, testbeds,
    the DUT drivers with a set-up for it, the VPP plugins beyond the base (or none), the traffic.
    """
    lines = [
        ".. list-table::",
        "   :header-rows: 1",
        "   :widths: 8 24 10 16 12 30",
        "   :class: fixed-widths",
        "",
        "   * - kind",
        "     - family",
        "     - testbeds",
        "     - DUT drivers",
        "     - VPP plugins",
        "     - traffic",
    ]
    for family in builtin_families():
        own = "" if family.csit else " (ours)"
        cells = [
            kind_of(family.id),
            f"``{family.id}``{own}",
            family.topologies,
            ", ".join(drivers_running(family)),
            ", ".join(family.plugins) or "none",
            family.description,
        ]
        lines.append(f"   * - {cells[0]}")
        lines += [f"     - {cell}" for cell in cells[1:]]
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    """0; 1 when an id is no family's (the message names the known ones)."""
    try:
        chosen = [get_family(i) for i in args.ids] if args.ids else list(all_families())
    except FamilyError as exc:
        print(f"ndrpdr families: {exc}", file=sys.stderr)
        return 1
    print("\n".join(describe(family) for family in chosen), end="")
    return 0
