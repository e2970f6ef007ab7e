"""The files an earlier run left in an output directory, recognised so a new run can clear them.

Only what a run of this project writes there is recognised: JSON result
records by their content (a JSON object whose ``tool.name`` is
``"ndrpdr"``), and Robot Framework's own outputs of the run: ``output.xml``
(root element ``<robot``), ``log.html``, ``report.html`` and ``xunit.xml``
(root element ``<testsuite``). Anything else (other JSON, other files,
directories) is never touched.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

#: Robot's outputs of a run, by name, and how each file's start must look [first bytes].
_ROBOT_OUTPUTS: dict[str, Callable[[bytes], bool]] = {
    "output.xml": lambda head: b"<robot " in head,
    "log.html": lambda head: b"<html" in head.lower(),
    "report.html": lambda head: b"<html" in head.lower(),
    "xunit.xml": lambda head: b"<testsuite" in head,
}

#: How much of a Robot output is read to recognise it [bytes].
_HEAD_BYTES = 4096


def is_own_record(path: Path) -> bool:
    """True when ``path`` is a JSON object written by this tool (``"tool": {"name": "ndrpdr"}``)."""
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return False
    tool = data.get("tool") if isinstance(data, dict) else None
    return isinstance(tool, dict) and tool.get("name") == "ndrpdr"


def _is_robot_output(path: Path) -> bool:
    check = _ROBOT_OUTPUTS.get(path.name)
    if check is None:
        return False
    try:
        with path.open("rb") as stream:
            return check(stream.read(_HEAD_BYTES))
    except OSError:
        return False


def earlier_outputs(directory: Path) -> list[Path]:
    """The files of ``directory`` (not its subdirectories) an earlier run wrote, sorted."""
    if not directory.is_dir():
        return []
    found = []
    for path in sorted(directory.iterdir()):
        if not path.is_file() or path.is_symlink():
            continue
        if (path.suffix == ".json" and is_own_record(path)) or _is_robot_output(path):
            found.append(path)
    return found


def clear_earlier_outputs(directory: Path) -> list[Path]:
    """Remove what ``earlier_outputs`` finds; returns what was removed."""
    removed = []
    for path in earlier_outputs(directory):
        try:
            path.unlink()
        except FileNotFoundError:
            continue
        removed.append(path)
    return removed
