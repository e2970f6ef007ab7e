"""The shape of the mlr controller's strategies and how one is selected.

A strategy looks at a stage's view (see ``view``) and nominates a trial,
declines (None: the next strategy is asked), or hands the goal over to its
next stage. A stage's strategies are asked in priority order and the first
that does not decline wins, as in CSIT's MLRsearch strategies; a strategy
may rely on the ones before it having declined.
"""

from __future__ import annotations

import abc
import enum
from collections.abc import Sequence
from typing import Generic, TypeVar

from ndrpdr.search.mlr.plan import Plan

View = TypeVar("View")


class Handover(enum.Enum):
    """A strategy's word that its stage is done, whatever the strategies after it say."""

    NEXT_STAGE = "next stage"


Nomination = Plan | Handover | None
"""A trial, the end of the stage, or None (declined)."""


class Strategy(abc.ABC, Generic[View]):
    """One rule for choosing a goal's next trial in one stage."""

    @abc.abstractmethod
    def nominate(self, view: View) -> Nomination:
        """The trial this rule asks for, ``Handover.NEXT_STAGE``, or None."""


def select(strategies: Sequence[Strategy[View]], view: View) -> Plan | None:
    """The first nomination of ``strategies`` in order; None when the stage is done."""
    for strategy in strategies:
        nomination = strategy.nominate(view)
        if isinstance(nomination, Plan):
            return nomination
        if nomination is Handover.NEXT_STAGE:
            return None
    return None
