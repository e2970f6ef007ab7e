"""A run's records read from disk: a results directory or the output.xml linking them.

A results directory (what ``bin/run-suites`` leaves) holds one JSON record
per test, named after the test (``64B-1c-ethip4-ip4base-ndrpdr.json``). An
output.xml links each test's record from its log message (``<a
href="...json">``, relative to the output.xml's directory). Either gives a
mapping ``test name -> record`` for ``ndrpdr.trend.compare``.
"""

from __future__ import annotations

import json
import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from ndrpdr.errors import NdrPdrError
from ndrpdr.outdir.outputxml import OutputXmlError, read_root

#: Record kinds a run's records may have.
RECORD_KINDS = frozenset({"ndrpdr", "mrr", "soak"})

_LINK = re.compile(r'href="([^"]+\.json)"')


class RunFilesError(NdrPdrError):
    """A path that is neither a results directory nor an output.xml with records."""


def _read_record(path: Path) -> dict[str, Any] | None:
    """The record in ``path`` (a JSON object of a kind in ``RECORD_KINDS``), else None."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    if isinstance(data, dict) and data.get("kind") in RECORD_KINDS:
        return data
    return None


def _from_directory(directory: Path) -> dict[str, dict[str, Any]]:
    records: dict[str, dict[str, Any]] = {}
    for path in sorted(directory.glob("*.json")):
        record = _read_record(path)
        if record is not None:
            records[path.stem] = record
    return records


def _linked(test: ET.Element) -> list[str]:
    links: list[str] = []
    for message in test.iter("msg"):
        links.extend(_LINK.findall(message.text or ""))
    return links


def _from_output_xml(path: Path) -> dict[str, dict[str, Any]]:
    try:
        root = read_root(path)
    except OutputXmlError as exc:
        raise RunFilesError(str(exc)) from exc
    records: dict[str, dict[str, Any]] = {}
    for test in root.iter("test"):
        for link in reversed(_linked(test)):  # the last record written is the final one
            record = _read_record(path.parent / link)
            if record is not None:
                records[test.get("name", "")] = record
                break
    return records


def read_run(path: Path) -> dict[str, dict[str, Any]]:
    """``test name -> record`` of the run at ``path`` (a results directory or an output.xml).

    Raises RunFilesError naming ``path`` when it is missing, or holds no record.
    """
    if path.is_dir():
        records = _from_directory(path)
        what = "a results directory: no JSON result record in it"
    elif path.is_file():
        records = _from_output_xml(path)
        what = "an output.xml linking result records: no record found through it"
    else:
        raise RunFilesError(f"{os.fspath(path)}: no such file or directory")
    if not records:
        raise RunFilesError(f"{os.fspath(path)}: not {what}")
    return records
