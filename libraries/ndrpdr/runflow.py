"""One run to its record, however it ends: the flow a search, MRR trials and a soak share.

A run of any kind (``searchrun``, ``mrrrun``, ``soakrun``) is a ``RunBody``:
it measures, it stops traffic, and it builds its outcome (its record) from
what was measured so far. ``run_flow`` runs one; whatever stops the
measuring (the last trial, a TG or DUT failure, a time limit, Ctrl-C, a
Robot timeout, a bug), traffic is stopped, the outcome is built and handed
to ``RunHooks.finish`` in ``finally``. A failure to stop traffic is added
to the record's error ("...; stopping traffic: ..."), never loses the
record. The record's error is ``failure_text`` of what stopped the run
(what the TG raised, when the search engine wrapped it).

A known failure (``NdrPdrError``) ends there: the outcome comes back with
the error in its record and the exception in ``RunOutcome.failure``, for a
caller that wants to raise it. Anything else (a Ctrl-C, a Robot timeout, a
bug) propagates as it was raised, its traceback whole, once ``finish`` has
the outcome.
"""

from __future__ import annotations

import abc
import dataclasses
from collections.abc import Callable
from types import TracebackType
from typing import Any, Generic, Protocol, TypeVar

from ndrpdr.errors import NdrPdrError
from ndrpdr.search import MeasurerFailedError

#: The record's error after a Ctrl-C or SIGTERM.
INTERRUPTED = "interrupted (Ctrl-C or SIGTERM)"

ProgressT = TypeVar("ProgressT")
OutcomeT = TypeVar("OutcomeT", bound="RunOutcome")
OutcomeT_co = TypeVar("OutcomeT_co", bound="RunOutcome", covariant=True)


def failure_text(exc: BaseException) -> str:
    """The record's error for an exception that stopped a run."""
    if isinstance(exc, NdrPdrError):
        return str(exc)
    if isinstance(exc, KeyboardInterrupt):
        return INTERRUPTED
    return f"stopped by {type(exc).__name__}: {exc}"


def measurer_cause(exc: BaseException | None) -> BaseException | None:
    """What the TG raised, for a MeasurerFailedError from the search; else ``exc``."""
    if isinstance(exc, MeasurerFailedError) and exc.__cause__ is not None:
        return exc.__cause__
    return exc


def _join(error: str | None, more: str) -> str:
    return more if error is None else f"{error}; {more}"


@dataclasses.dataclass(frozen=True)
class RunOutcome(abc.ABC):
    """What every run leaves: its record, and the known failure that ended it, if one did."""

    failure: NdrPdrError | None = dataclasses.field(default=None, kw_only=True)
    """The NdrPdrError that ended the run, as raised (the record's error says it too), or
    that stopping traffic raised; None when the run passed or a foreign exception ended it."""

    @abc.abstractmethod
    def record_json(self) -> dict[str, Any]:
        """The record as a JSON-ready dict."""

    @property
    def error(self) -> str | None:
        """Why the run failed (the record's ``error``), None when it passed."""
        error: str | None = self.record_json()["error"]
        return error


@dataclasses.dataclass(frozen=True)
class RunHooks(Generic[ProgressT, OutcomeT]):
    """Who hears of a run as it goes (``run_flow``); a search has more (``SearchHooks``)."""

    progress: Callable[[ProgressT], None] | None = None
    """Called after every trial with the kind's snapshot (its ``trial_number`` and
    ``trial``, and what else the kind knows so far)."""
    notice: Callable[[str], None] | None = None
    """Hears of what the user should know and the run goes on despite (a capped max load,
    a latency failure, a failed journal write)."""
    failed: Callable[[str], None] | None = None
    """Hears why a run failed or stopped as soon as it does, before traffic is stopped and
    the record built (a console line while they take their time)."""
    finish: Callable[[OutcomeT], None] | None = None
    """Called with the run's outcome however it ends, before an exception propagates: the
    place to write the record."""


@dataclasses.dataclass(frozen=True)
class RunEnd:
    """How the measuring ended, for the body to build its outcome from."""

    error: str | None
    """The record's error (None: the run passed)."""
    exc: BaseException | None
    """What left ``RunBody.measure``, as raised (None: it returned)."""
    failure: NdrPdrError | None
    """The known failure that ended the run (``RunOutcome.failure``)."""


class RunBody(Protocol[OutcomeT_co]):
    """What one kind of run does; the flow around it is ``run_flow``'s."""

    def measure(self) -> None:
        """Run the trials; any exception propagates (the flow records it)."""

    def stop_traffic(self) -> None:
        """Stop the TG's traffic (after the last trial, or a failure)."""

    def conclude(self, end: RunEnd) -> OutcomeT_co:
        """The outcome with the record of the trials so far, however ``end`` says it ended."""


class RecordedRun(Generic[OutcomeT]):
    """The flow's ``finally`` as a context manager: ``with RecordedRun(body, hooks): ...``.

    On the way out: ``hooks.failed`` hears of a failure, traffic is
    stopped, ``body.conclude`` builds the outcome and ``hooks.finish``
    hears of it; True (swallowed) for a known failure. ``outcome`` is set
    once the block is left.
    """

    def __init__(self, body: RunBody[OutcomeT], hooks: RunHooks[Any, OutcomeT]) -> None:
        self.body, self.hooks = body, hooks
        self.outcome: OutcomeT | None = None

    def __enter__(self) -> RecordedRun[OutcomeT]:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> bool:
        """Stop traffic, build the outcome, ``finish`` it; True for known failures.

        A failure of the TG inside the search comes wrapped in
        MeasurerFailedError: what the TG raised decides, as if unwrapped.
        A foreign exception from stopping traffic (a Ctrl-C, a bug)
        propagates after ``finish``, unless the run's own does.
        """
        raised = measurer_cause(exc)
        stop_raised: BaseException | None = None
        try:
            error = None if raised is None else failure_text(raised)
            if error is not None and self.hooks.failed is not None:
                self.hooks.failed(error)  # at once: the record and telemetry take a while
            try:
                self.body.stop_traffic()
            except BaseException as stop_exc:  # the trials so far are still recorded
                stop_raised = stop_exc
                error = _join(error, f"stopping traffic: {failure_text(stop_exc)}")
            failure = _known(exc if isinstance(raised, NdrPdrError) else None, stop_raised)
            self.outcome = self.body.conclude(RunEnd(error, exc, failure))
        finally:
            if self.outcome is not None and self.hooks.finish is not None:
                self.hooks.finish(self.outcome)
        unwrapped = exc is not None and raised is not None and raised is not exc
        if unwrapped and not isinstance(raised, NdrPdrError):
            # A bug or a foreign exception in the TG, as raised, its traceback whole. The
            # wrapper lets go of it first: raised from here it would become the wrapper's
            # context, and a chain that loops sends Robot's traceback cleaner into recursion.
            assert exc is not None and raised is not None
            exc.__cause__ = exc.__context__ = None
            raise raised from raised.__cause__
        if exc is not None and not isinstance(raised, NdrPdrError):
            return False  # propagates as raised
        if stop_raised is not None and not isinstance(stop_raised, NdrPdrError):
            raise stop_raised
        return exc is not None


def _known(
    run_failure: BaseException | None, stop_raised: BaseException | None
) -> NdrPdrError | None:
    """The first known failure: the run's own, else the one of stopping traffic."""
    for candidate in (run_failure, stop_raised):
        if isinstance(candidate, NdrPdrError):
            return candidate
    return None


def run_flow(body: RunBody[OutcomeT], hooks: RunHooks[Any, OutcomeT]) -> OutcomeT:
    """Measure with ``body``, then (always) stop traffic and build the outcome (``RecordedRun``).

    Returns the outcome, failed or not, for a known failure too; anything
    else propagates as raised, after ``hooks.finish`` saw the outcome.
    """
    with RecordedRun(body, hooks) as run:
        body.measure()
    assert run.outcome is not None  # set by __exit__, which raised otherwise
    return run.outcome
