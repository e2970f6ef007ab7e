"""``ndrpdr export --format csit -o DIR RUN...``: each test as a document of CSIT's JSON model.

RUN is a results directory (one JSON record per test; its output.xml,
when there, gives each test's suite, tags and Robot verdict) or an
output.xml linking the records. Each test becomes one file, where CSIT
writes it: ``DIR/<suite path>/<test name>.info.json`` (lower case, the
suite's dots as directories). The mapping is ``ndrpdr.csitexport.csitmodel``.
A test Robot ran without a record (it stopped before its search or MRR)
has nothing the model can say: a ``note:`` on stderr names it.

``--validate SCHEMA`` checks every document against CSIT's
``test_case.schema.yaml`` (version 1.5.1) first; when one is invalid,
nothing is written and each error is printed as ``TEST: field: what``.
Exit 0; 1 for invalid documents or a record the model cannot take; 2 for
a RUN that is not a run's results (the message names it).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any

from ndrpdr.console.lines import print_to
from ndrpdr.csitexport.csitmodel import (
    CSIT_MODEL_VERSION,
    RobotTest,
    csit_caveats,
    csit_test_case,
    names_of_test,
)
from ndrpdr.csitexport.csitnames import info_path
from ndrpdr.csitexport.csitschema import CsitValidator, load_csit_schema
from ndrpdr.outdir.outputxml import OutputXmlError, TestOutcome, read_outcomes
from ndrpdr.outdir.runfiles import RunFilesError, read_run
from ndrpdr.results.journal import write_json_atomically

FORMATS = ("csit",)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the arguments and ``run`` (the help line is in ``commands.COMMANDS``)."""
    parser.add_argument(
        "--format", required=True, choices=FORMATS, help="csit: CSIT's test_case model 1.5.1"
    )
    parser.add_argument(
        "-o", "--output-dir", required=True, type=Path, help="directory to write the files into"
    )
    parser.add_argument(
        "--suite",
        metavar="NAME",
        default="",
        help="suite name for tests whose suite nothing else names"
        " (default: the test name without frame size and cores)",
    )
    parser.add_argument(
        "--validate",
        metavar="SCHEMA_FILE",
        type=Path,
        help="check each document against CSIT's test_case.schema.yaml (model 1.5.1) first",
    )
    parser.add_argument(
        "runs", nargs="+", type=Path, metavar="RUN", help="results directory or output.xml"
    )
    parser.set_defaults(run=run)


def _outcomes(path: Path) -> dict[str, TestOutcome]:
    """Robot's word on each test of the run at ``path``: its output.xml, when there is one."""
    xml = path / "output.xml" if path.is_dir() else path
    if not xml.is_file():
        return {}
    try:
        outcomes = read_outcomes(xml)
    except OutputXmlError:
        if path.is_dir():  # a directory's records stand without it
            return {}
        raise
    found: dict[str, TestOutcome] = {}
    for outcome in outcomes:
        found.setdefault(outcome.name, outcome)
    return found


def robot_test(name: str, outcome: TestOutcome | None, suite: str) -> RobotTest:
    """What ``csit_test_case`` needs besides the record; ``suite`` when nothing names one."""
    if outcome is None:
        return RobotTest(name=name, fallback_suite=suite)
    return RobotTest(
        name=name,
        suite=outcome.suite,
        tags=outcome.tags,
        status=outcome.status or None,
        message=outcome.message,
        fallback_suite=suite,
    )


@dataclasses.dataclass(frozen=True)
class Export:
    """One test to export: where it came from, its record, its document and file."""

    name: str
    run: Path
    record: Mapping[str, Any]
    document: dict[str, Any]
    #: The file, relative to the output directory (``csitnames.info_path``).
    path: PurePosixPath

    @property
    def where(self) -> str:
        """``64B-1c-ethip4-ip4base-ndrpdr (results/a)``: the test and its run, for messages."""
        return f"{self.name} ({os.fspath(self.run)})"


def exports(runs: list[Path], suite: str) -> tuple[list[Export], list[str]]:
    """Every test of ``runs`` with a record, in order; and those without (``TEST (RUN)``).

    A test output.xml names but no record stands for (it stopped before
    its search or MRR, or was skipped) cannot be said in the model: the
    caller notes it. Raises RunFilesError for a path that is not a run's
    results, and CsitModelError for a record the model cannot take.
    """
    found: list[Export] = []
    unrecorded: list[str] = []
    for path in runs:
        records = read_run(path)
        outcomes = _outcomes(path)
        unrecorded.extend(
            f"{name} ({os.fspath(path)}) [{outcome.status}]"
            for name, outcome in outcomes.items()
            if name not in records
        )
        for name, record in records.items():
            test = robot_test(name, outcomes.get(name), suite)
            document = csit_test_case(record, test)
            found.append(
                Export(name, path, record, document, info_path(names_of_test(record, test)))
            )
    return found, unrecorded


def run(args: argparse.Namespace) -> int:
    """0 when every document was written; 1 when one is invalid; 2 for a bad RUN."""
    try:
        found, unrecorded = exports(list(args.runs), args.suite)
    except RunFilesError as exc:
        print(f"ndrpdr export: {exc}", file=sys.stderr)
        return 2
    first: dict[PurePosixPath, Export] = {}
    for item in found:
        if item.path in first:
            print(
                f"ndrpdr export: {item.where}: test id {item.document['test_id']} again"
                f" (first from {first[item.path].where}); export one run at a time",
                file=sys.stderr,
            )
            return 1
        first[item.path] = item
    if args.validate is not None:
        validator = CsitValidator(load_csit_schema(args.validate))
        errors = [
            f"{item.where}: {error}" for item in found for error in validator.errors(item.document)
        ]
        if errors:
            for line in errors:
                print(f"ndrpdr export: invalid: {line}", file=sys.stderr)
            print(
                f"ndrpdr export: {len(errors)} errors against {os.fspath(args.validate)};"
                " nothing written",
                file=sys.stderr,
            )
            return 1
    for item in found:
        write_json_atomically(item.document, args.output_dir / item.path)
        for note in csit_caveats(item.record, item.document):
            print(f"ndrpdr export: note: {item.where}: {note}", file=sys.stderr)
    for where in unrecorded:
        print(f"ndrpdr export: note: {where}: no result record; not exported", file=sys.stderr)
    checked = f", valid against {os.fspath(args.validate)}" if args.validate else ""
    print_to(
        sys.stdout,
        f"{len(found)} tests written to {os.fspath(args.output_dir)}"
        f" as CSIT test_case model {CSIT_MODEL_VERSION} documents{checked}",
    )
    return 0
