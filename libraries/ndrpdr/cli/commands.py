"""The table of ``ndrpdr`` commands: each name's module and one-line help.

The top-level parser is built from this table alone, so ``ndrpdr --help``
(and choosing a command) imports no command module: the chosen command's
module is imported when argparse reaches its name (``LazyCommands``), then
declares its own arguments and the function that runs them
(``add_arguments(parser)``, which sets ``run``). Only that module's imports
are paid for: ``ndrpdr validate`` loads no results store, SSH or Robot.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol


@dataclasses.dataclass(frozen=True)
class Command:
    """One command: the module that declares and runs it, and its line in ``ndrpdr --help``."""

    module: str
    help: str


#: Every command, in the order ``ndrpdr --help`` lists them.
COMMANDS: dict[str, Command] = {
    "validate": Command(
        "ndrpdr.cli.validate_cmd",
        "check topology files (and show the ports and links a test uses)",
    ),
    "check": Command(
        "ndrpdr.cli.check_cmd",
        "smoke-test a testbed before a run: nodes reached, VPP / TRex versions, ports, MACs, "
        "one short trial; a PASS / FAIL / SKIP line per step",
    ),
    "trial": Command("ndrpdr.cli.trial_cmd", "one trial at a rate, counts printed"),
    "search": Command(
        "ndrpdr.cli.search_cmd",
        "find NDR and PDR (or the throughput of each --loss-ratio) in one search",
    ),
    "soak": Command(
        "ndrpdr.cli.soak_cmd",
        "soak search: the critical load for a tiny loss ratio within a time budget",
    ),
    "summary": Command("ndrpdr.cli.summary_cmd", "one line per test of a Robot output.xml"),
    "drivers": Command(
        "ndrpdr.cli.drivers_cmd", "list the TG and DUT drivers and the options each takes"
    ),
    "families": Command(
        "ndrpdr.cli.families_cmd",
        "list the test families (CSIT ids): testbeds, VPP plugins, DUT drivers that run each, "
        "traffic",
    ),
    "frames": Command(
        "ndrpdr.cli.frames_cmd",
        "write the first N frames the TG sends for a family (one direction) to a pcap file",
    ),
    "suites": Command(
        "ndrpdr.cli.suites_cmd",
        "list the suites the family table makes; --write writes them into suites/, "
        "--check names the files that are stale",
    ),
    "cleanup": Command(
        "ndrpdr.cli.cleanup_cmd",
        "remove what dead local runs left: their namespaces, interfaces, processes and "
        "state files (never a live run's; needs root)",
    ),
    "clear-results": Command(
        "ndrpdr.cli.clear_results_cmd",
        "remove an earlier run's result records (JSON written by ndrpdr), Robot's "
        "output.xml, log.html, report.html, xunit.xml and pabot's pabot_results/ from DIR; "
        "nothing else",
    ),
    "compare": Command(
        "ndrpdr.cli.compare_cmd",
        "two runs side by side per test; gate on regressions beyond noise",
    ),
    "export": Command(
        "ndrpdr.cli.export_cmd",
        "write each test of runs in another tool's format (CSIT's JSON model)",
    ),
    "ingest": Command(
        "ndrpdr.cli.ingest_cmd",
        "add runs' JSON records to the results store (again: nothing changes)",
    ),
    "trend": Command(
        "ndrpdr.cli.trend_cmd",
        "one offline HTML page: each test over time, change points, regressions",
    ),
}


class CommandModule(Protocol):
    """What a command's module provides."""

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        """Declare the command's arguments and ``set_defaults(run=...)``."""


def load_command(name: str, parser: argparse.ArgumentParser) -> None:
    """Import command ``name``'s module and let it declare its arguments on ``parser``."""
    module: CommandModule = importlib.import_module(COMMANDS[name].module)
    module.add_arguments(parser)


if TYPE_CHECKING:
    _SubParsers = argparse._SubParsersAction[argparse.ArgumentParser]
else:
    _SubParsers = argparse._SubParsersAction


class LazyCommands(_SubParsers):
    """The subcommands action: a command's parser gets its arguments when it is chosen.

    Until then each is a bare parser that only carries its name and help
    line, which is all the top-level help and the choice check read.
    """

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        """Declare the chosen command's arguments, then parse them as argparse does."""
        assert isinstance(values, list) and values, "argparse gives the command and its arguments"
        name, chosen = values[0], self._name_parser_map[values[0]]
        if chosen.get_default("run") is None:  # not loaded by an earlier parse
            load_command(name, chosen)
        super().__call__(parser, namespace, values, option_string)


def add_commands(parser: argparse.ArgumentParser) -> None:
    """Every command of the table as a subcommand of ``parser`` (its ``command``)."""
    commands = parser.add_subparsers(dest="command", required=True, action=LazyCommands)
    for name, command in COMMANDS.items():
        commands.add_parser(name, help=command.help)
