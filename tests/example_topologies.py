"""The example topologies of topologies/, filled in for the tests that use them as lab testbeds.

An example (``*.yaml.example``, ``csit-2n-example.yaml``) writes each value only a
real testbed knows as ``"<what, e.g. VALUE>"``, and the loader refuses it until
every one is replaced (``ndrpdr.topology.placeholders``). ``filled(name)`` is the
example as a user would fill it in: a copy with each placeholder replaced by its
``e.g.`` value, written once per test process into a directory of its own.
"""

from __future__ import annotations

import atexit
import functools
import re
import shutil
import tempfile
from pathlib import Path

TOPOLOGIES = Path(__file__).resolve().parents[1] / "topologies"

#: Every example: copy and fill in.
EXAMPLES = (*sorted(TOPOLOGIES.glob("*.yaml.example")), TOPOLOGIES / "csit-2n-example.yaml")

#: The topologies that run as they are (the simulator, the local testbed, the lab in a box).
RUNNABLE = tuple(p for p in sorted(TOPOLOGIES.glob("*.yaml")) if p not in EXAMPLES)

#: A placeholder of the examples: ``<what, e.g. VALUE>`` (group 1: what, 2: VALUE).
PLACEHOLDER = re.compile(r"<([^<>\n]+?), e\.g\. ([^<>\n]+)>")


def fill(text: str) -> str:
    """``text`` with each placeholder replaced by its ``e.g.`` value."""
    return PLACEHOLDER.sub(lambda match: match[2], text)


@functools.cache
def _directory() -> Path:
    made = Path(tempfile.mkdtemp(prefix="ndrpdr-filled-examples-"))
    atexit.register(shutil.rmtree, made, ignore_errors=True)
    return made


@functools.cache
def filled(name: str) -> Path:
    """The example ``topologies/<name>`` filled in, as a file of the same name."""
    path = _directory() / name
    path.write_text(fill((TOPOLOGIES / name).read_text()))
    return path
