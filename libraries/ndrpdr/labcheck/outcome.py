"""One step's outcome and the line it prints."""

from __future__ import annotations

import dataclasses
from typing import Literal

Status = Literal["PASS", "FAIL", "SKIP"]


@dataclasses.dataclass(frozen=True)
class Outcome:
    """What one step found: ``status``, the ``step`` ("reach DUT1"), ``what`` it found,
    for a failure the ``fix``, and ``detail``: more lines of a long error (shown apart)."""

    status: Status
    step: str
    what: str
    fix: str = ""
    detail: str = ""

    @property
    def line(self) -> str:
        """``PASS step: what``, ``FAIL step: what — fix: how`` or ``SKIP step: why``."""
        text = f"{self.status} {self.step}: {self.what}"
        return f"{text} — fix: {self.fix}" if self.status == "FAIL" else text


def passed(step: str, what: str) -> Outcome:
    """A step that passed."""
    return Outcome("PASS", step, what)


def failed(step: str, what: str, fix: str, detail: str = "") -> Outcome:
    """A step that failed, with how to fix it."""
    return Outcome("FAIL", step, what, fix, detail)


def skipped(step: str, why: str) -> Outcome:
    """A step that could not run."""
    return Outcome("SKIP", step, why)


def error_text(exc: BaseException) -> tuple[str, str]:
    """An error's first line (for the step's line) and the rest (its detail)."""
    first, _, rest = str(exc).strip().partition("\n")
    return first or type(exc).__name__, rest.strip()
