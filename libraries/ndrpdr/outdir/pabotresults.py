"""pabot's working directory in an output directory, recognised so a new run can clear it.

pabot runs each robot process with ``--outputdir <output dir>/pabot_results/<n>``
(``<argument file index>/<n>`` with ``--argumentfile<n>``) and writes its own
``pabot_manager.log`` there; it merges the processes' output.xml files into
``<output dir>`` and leaves the directory behind. Only a directory named
``pabot_results`` that pabot's files mark as its own is recognised: one holding
``pabot_manager.log``, or a process directory (``<n>/``, ``<i>/<n>/``) with the
argument file pabot writes for it (``*_argfile.txt``) or the process's output.xml.
"""

from __future__ import annotations

import shutil
from pathlib import Path

#: The directory pabot makes in the output directory.
PABOT_RESULTS = "pabot_results"


def _process_dirs(directory: Path) -> list[Path]:
    """``<n>/`` and ``<i>/<n>/`` directories under ``directory`` (numbered, no symlinks)."""
    found = []
    for first in directory.iterdir():
        if not first.name.isdigit() or first.is_symlink() or not first.is_dir():
            continue
        found.append(first)
        found.extend(
            second
            for second in first.iterdir()
            if second.name.isdigit() and not second.is_symlink() and second.is_dir()
        )
    return found


def _is_pabots(directory: Path) -> bool:
    if (directory / "pabot_manager.log").is_file():
        return True
    for process in _process_dirs(directory):
        if (process / "output.xml").is_file() or any(process.glob("*_argfile.txt")):
            return True
    return False


def pabot_results(directory: Path) -> Path | None:
    """``directory/pabot_results`` when pabot left it there (a real directory), else None."""
    path = directory / PABOT_RESULTS
    if path.is_symlink() or not path.is_dir():
        return None
    try:
        return path if _is_pabots(path) else None
    except OSError:  # unreadable: not ours to judge
        return None


def clear_pabot_results(directory: Path) -> Path | None:
    """Remove ``pabot_results(directory)`` with everything in it; returns it, or None."""
    path = pabot_results(directory)
    if path is None:
        return None
    shutil.rmtree(path)
    return path
