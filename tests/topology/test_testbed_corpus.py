"""Every file in invalid/ is rejected with its expected message, file name and line, fast.

Each corpus file starts with ``# expect: <substring of the message>``; the
line the error must point at carries the comment ``# <- error`` (files
without one must report line 1).
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from ndrpdr.topology.errors import TopologyError
from ndrpdr.topology.loader import load_topology

CORPUS = Path(__file__).parent / "invalid"
FILES = sorted(CORPUS.glob("*.yaml"))
MARKER = b"# <- error"


def _expectation(path: Path) -> tuple[str, int]:
    raw = path.read_bytes()
    first, *_ = raw.split(b"\n", 1)
    match = re.fullmatch(rb"# expect: (.+)", first)
    assert match, f"{path.name}: the first line must be '# expect: ...'"
    lines = raw.split(b"\n")
    marked = [number for number, line in enumerate(lines, 1) if MARKER in line]
    assert len(marked) <= 1, f"{path.name}: more than one error marker"
    return match.group(1).decode(), marked[0] if marked else 1


def test_corpus_is_large() -> None:
    assert len(FILES) >= 40


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_invalid_file_rejected(path: Path) -> None:
    expected, line = _expectation(path)
    shown = str(path)
    started = time.process_time()
    with pytest.raises(TopologyError) as caught:
        load_topology(shown)
    elapsed_s = time.process_time() - started
    message = str(caught.value)
    assert expected in message
    assert message.startswith(f"{shown}:{line}: "), message
    assert caught.value.path == shown
    assert caught.value.line == line
    assert "Traceback" not in message
    assert elapsed_s < 1.0  # CPU seconds: what the loader spent, whatever else runs
