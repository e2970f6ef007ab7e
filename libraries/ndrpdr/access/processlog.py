"""A process's log as messages and telemetry quote it: escapes and control bytes removed, bounded.

testpmd redraws its statistics with terminal escapes, TRex's server its
status screen with escapes and carriage returns; an error quotes the
last ``LOG_TAIL_LINES`` non-empty lines (``log_tail``), telemetry keeps at
most ``LOG_LIMIT`` characters, head and tail (``bounded_log``).
"""

from __future__ import annotations

import re

#: Lines of a process log quoted in an error.
LOG_TAIL_LINES = 40
_ANSI = re.compile(r"\x1b(?:\[[0-9;?]*[A-Za-z]|[()][0-9A-Za-z]|[=>78])")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def strip_ansi(text: str) -> str:
    """``text`` without terminal escapes and control bytes (a lone carriage return: a new line).

    testpmd clears the screen per stats print; tabs and new lines stay.
    """
    text = _ANSI.sub("", text).replace("\r\n", "\n").replace("\r", "\n")
    return _CONTROL.sub("", text)


#: Telemetry keeps at most this much of a process log [characters] (head and tail).
LOG_LIMIT = 256 * 1024


def bounded_log(text: str, limit: int = LOG_LIMIT) -> str:
    """``text`` without escapes; if longer than ``limit``, its start and end around a cut mark."""
    text = strip_ansi(text)
    if len(text) <= limit:
        return text
    head = limit // 8
    tail = limit - head
    return f"{text[:head]}\n[... {len(text) - limit} characters cut ...]\n{text[-tail:]}"


def log_tail(text: str, lines: int = LOG_TAIL_LINES) -> str:
    """The last ``lines`` non-empty lines of a process log, escapes removed."""
    kept = [line for line in strip_ansi(text).splitlines() if line.strip()]
    return "\n".join(kept[-lines:])
