"""Per-trial progress on a console: which consoles show it, and the printer a search calls.

The console kinds are Robot Framework's ``--console`` values; the CLI's
``--console`` takes the same ones. Only ``verbose`` shows a line per
trial: ``dotted``, ``quiet`` and ``none`` promise a quiet console.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable

from ndrpdr.console.estimate import estimate_line
from ndrpdr.console.lines import progress_line
from ndrpdr.goals import PDR_LOSS_RATIO
from ndrpdr.search.progress import SearchProgress

#: Trials between two estimates of what is left.
ESTIMATE_EVERY = 10


class ConsoleKind(enum.Enum):
    """Robot Framework's console types (``robot --console``)."""

    VERBOSE = "verbose"
    DOTTED = "dotted"
    QUIET = "quiet"
    NONE = "none"

    @property
    def shows_trials(self) -> bool:
        """True when this console shows a line per trial (``verbose`` only)."""
        return self is ConsoleKind.VERBOSE


class ProgressOption(enum.Enum):
    """The library's ``progress`` option: a line per trial (``trials``) or nothing (``none``)."""

    TRIALS = "trials"
    NONE = "none"


def parse_progress_option(value: str) -> ProgressOption:
    """``trials`` or ``none`` (any case); ValueError naming the option otherwise."""
    try:
        return ProgressOption(str(value).strip().lower())
    except ValueError:
        choices = ", ".join(o.value for o in ProgressOption)
        raise ValueError(f"progress={value!r} is not one of {choices}") from None


@dataclasses.dataclass
class ProgressPrinter:
    """Called with every SearchProgress: the trial's line with the bounds so far, and
    every ``every`` trials an estimate of what is left (``ndrpdr.console.estimate``)."""

    write: Callable[[str], None]
    pdr_loss_ratio: float = PDR_LOSS_RATIO
    every: int = ESTIMATE_EVERY

    def __call__(self, progress: SearchProgress) -> None:
        """Write the lines for one trial."""
        self.write(progress_line(progress, self.pdr_loss_ratio))
        if self.every > 0 and progress.trial_number % self.every == 0:
            self.write(estimate_line(progress, self.pdr_loss_ratio))
