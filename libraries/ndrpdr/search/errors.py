"""Exceptions raised by the search engine."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ndrpdr.errors import NdrPdrError

if TYPE_CHECKING:
    from ndrpdr.search.result import SearchResult


class SearchError(NdrPdrError):
    """Base class of the search engine's errors."""


class SearchInputError(SearchError, ValueError):
    """A goal, a load, an argument or a measurer's answer is invalid.

    The message names the value at fault.
    """


class SearchAbortedError(SearchError):
    """The search stopped before it finished; ``partial`` keeps what it got.

    ``partial`` is a SearchResult holding every trial measured so far and the
    best bounds those trials support (classified as usual, so they may be
    wider than the goal width).
    """

    def __init__(self, message: str, partial: SearchResult) -> None:
        super().__init__(message)
        self.partial = partial


class SearchTimeLimitError(SearchAbortedError):
    """A time limit (trial time or wall clock) was reached."""


class SearchIrregularError(SearchAbortedError):
    """With fail_fast=True: the min load is an upper bound for a goal."""


class MeasurerFailedError(SearchAbortedError):
    """The measurer raised: the exception it raised is ``__cause__``, the trials before it
    are in ``partial``.

    Only ``Exception``s are wrapped: a Ctrl-C (KeyboardInterrupt), a Robot
    Framework timeout or ``SystemExit`` propagate as raised (the search's
    ``progress`` callback has seen every trial before them).
    """
