"""Reading the bounds back from a Robot Framework output.xml, without Robot Framework.

output.xml is plain XML: every ``<test>`` element has ``<meta name=...>``
children (test metadata, Robot Framework 7.5+), ``<tag>`` children and its
own ``<status>`` whose text is the test message. That is all a summary, a
trend export or a Jenkins step needs, so this module reads it with the
standard library (``defusedxml`` is not needed: the file is our own output,
and ``xml.etree`` does not fetch external entities).
"""

from __future__ import annotations

import dataclasses
import os
import xml.etree.ElementTree as ET
from collections.abc import Iterator

from ndrpdr.errors import NdrPdrError


class OutputXmlError(NdrPdrError):
    """output.xml is missing or not a Robot Framework output file."""


@dataclasses.dataclass(frozen=True)
class TestOutcome:
    """One test of a run as output.xml tells it."""

    suite: str
    name: str
    status: str
    message: str
    metadata: dict[str, str]
    tags: tuple[str, ...]

    def number(self, key: str) -> float | None:
        """Metadata ``key`` as a number, None when missing or not a number."""
        try:
            return float(self.metadata[key])
        except (KeyError, ValueError):
            return None


def _walk(suite: ET.Element, names: tuple[str, ...]) -> Iterator[TestOutcome]:
    path = (*names, suite.get("name", ""))
    for child in suite:
        if child.tag == "suite":
            yield from _walk(child, path)
        elif child.tag == "test":
            status = child.find("status")
            yield TestOutcome(
                suite=".".join(path),
                name=child.get("name", ""),
                status=status.get("status", "") if status is not None else "",
                message=(status.text or "") if status is not None else "",
                metadata={m.get("name", ""): m.text or "" for m in child.findall("meta")},
                tags=tuple(t.text or "" for t in child.findall("tag")),
            )


def read_root(path: str | os.PathLike[str]) -> ET.Element:
    """The ``<robot>`` element of ``path``; OutputXmlError naming it if unreadable or not one."""
    try:
        root = ET.parse(path).getroot()
    except OSError as exc:
        raise OutputXmlError(f"{os.fspath(path)}: cannot read: {exc.strerror}") from exc
    except ET.ParseError as exc:
        raise OutputXmlError(f"{os.fspath(path)}: not XML: {exc}") from exc
    if root.tag != "robot":
        raise OutputXmlError(f"{os.fspath(path)}: not a Robot Framework output.xml")
    return root


def read_outcomes(path: str | os.PathLike[str]) -> list[TestOutcome]:
    """Every test in ``path`` (an output.xml), in file order."""
    root = read_root(path)
    outcomes: list[TestOutcome] = []
    for suite in root.findall("suite"):
        outcomes.extend(_walk(suite, ()))
    return outcomes
