"""A stand-in for bin/run-suites' ``.venv-ndrpdr``, so a test runs the script without pip.

``bin/python`` and ``bin/pip`` are shell scripts running ``script`` (default:
this interpreter with their arguments); the venv is marked installed, newer
than requirements.txt and pyproject.toml, so run-suites installs nothing.
"""

from __future__ import annotations

import sys
from pathlib import Path

#: The default body of bin/python and bin/pip: this interpreter, with their arguments.
THIS_PYTHON = f'exec "{sys.executable}" "$@"'


def standin_venv(directory: Path, script: str = THIS_PYTHON) -> Path:
    """``directory/venv`` whose bin/python and bin/pip run the shell lines ``script``."""
    venv = directory / "venv"
    (venv / "bin").mkdir(parents=True)
    for name in ("python", "pip"):
        path = venv / "bin" / name
        path.write_text(f"#!/bin/sh\n{script}\n")
        path.chmod(0o755)
    (venv / ".ndrpdr-installed").touch()  # newer than requirements.txt and pyproject.toml
    return venv
