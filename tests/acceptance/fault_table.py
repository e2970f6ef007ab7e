"""Print issue 13's fault table: run the fault-injection cases, then one Markdown row per case.

    python tests/acceptance/fault_table.py                 # as root, from anywhere
    python tests/acceptance/fault_table.py -k "sigkill"    # more arguments go to pytest
    python tests/acceptance/fault_table.py --rows FILE     # the table of rows written before

Columns: the case, the run's exit status (``-9``: killed by the signal;
blank: the test stopped a run that did not end in time), the first line of
its message on stderr, what of the run was left when it ended (after the
grace each case allows), a note (timings, what the case saw), and whether
the test passed. The cases themselves are tests/acceptance/test_faults.py
and test_faults_one_way.py; each appends its row to the file named by
``$NDRPDR_FAULT_TABLE``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: The modules of the fault cases, run in this order.
CASES = ("test_faults.py", "test_faults_one_way.py")
sys.path[:0] = [str(HERE), str(HERE.parent)]  # acceptance_helpers, robot_runner

from robot_runner import ROOT, child_env  # noqa: E402

#: The environment variable the cases read (fault_helpers.TABLE_ENV).
TABLE_ENV = "NDRPDR_FAULT_TABLE"
#: Longest message or leftover text in a cell [characters].
CELL = 110


def cell(text: str) -> str:
    """``text`` fit for one Markdown table cell."""
    text = " ".join(text.split()).replace("|", "\\|")
    return text if len(text) <= CELL else text[: CELL - 1] + "…"


def outcomes(junit: Path) -> dict[str, str]:
    """{test name with parameters: passed / failed / skipped} from a JUnit XML report."""
    found: dict[str, str] = {}
    if not junit.exists():
        return found
    for case in ET.parse(junit).getroot().iter("testcase"):
        name = case.get("name", "")
        if case.find("failure") is not None or case.find("error") is not None:
            found[name] = "failed"
        elif case.find("skipped") is not None:
            found[name] = "skipped"
        else:
            found[name] = "passed"
    return found


def table(rows: list[dict[str, object]], results: dict[str, str]) -> str:
    """The Markdown table of ``rows`` (results by test name, when known)."""
    lines = [
        "| case | exit | message (first line) | left | note | test |",
        "|---|---|---|---|---|---|",
    ]
    for row in rows:
        left = row.get("left") or []
        assert isinstance(left, list)
        test = str(row.get("test", ""))
        lines.append(
            "| "
            + " | ".join(
                [
                    cell(str(row["case"])),
                    "" if row.get("exit") is None else str(row["exit"]),
                    cell(str(row.get("message", ""))) or "(none)",
                    cell("; ".join(map(str, left))) or "nothing",
                    cell(str(row.get("note", ""))),
                    results.get(test, ""),
                ]
            )
            + " |"
        )
    return "\n".join(lines)


def read_rows(path: Path) -> list[dict[str, object]]:
    """The rows the cases appended to ``path`` (JSON lines)."""
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def main(argv: list[str] | None = None) -> int:
    """Run the cases (or read ``--rows``) and print the table; the pytest status is returned."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=Path, help="print the table of this rows file; run nothing")
    args, pytest_args = parser.parse_known_args(argv)
    if args.rows is not None:
        print(table(read_rows(args.rows), {}))
        return 0
    with tempfile.TemporaryDirectory(prefix="ndrpdr-fault-table-") as tmp:
        rows_path = Path(tmp) / "rows.jsonl"
        junit = Path(tmp) / "junit.xml"
        started = time.monotonic()
        status = subprocess.run(
            [
                sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                f"--junitxml={junit}", *(str(HERE / name) for name in CASES), *pytest_args,
            ],
            cwd=ROOT,
            env=child_env(**{TABLE_ENV: str(rows_path)}),
            check=False,
        ).returncode  # fmt: skip
        took = time.monotonic() - started
        print()
        print(table(read_rows(rows_path), outcomes(junit)))
        print(f"\n{len(read_rows(rows_path))} cases in {took:.0f} s (pytest exit status {status})")
    return status


if __name__ == "__main__":
    sys.exit(main())
