"""The NDR/PDR search engine: pure Python, standard library only, no I/O.

Speaks RFC 9971 (MLRsearch): Search Goals, load classification, relevant
bounds, conditional throughput. ``search()`` runs one search for any
number of goals over any Measurer.
"""

from ndrpdr.search.api import ALGORITHMS, search
from ndrpdr.search.classify import Classification, Criterion, LoadStats, classify
from ndrpdr.search.errors import (
    MeasurerFailedError,
    SearchAbortedError,
    SearchError,
    SearchInputError,
    SearchIrregularError,
    SearchTimeLimitError,
)
from ndrpdr.search.goal import Goal
from ndrpdr.search.progress import GoalProgress, SearchProgress
from ndrpdr.search.result import GoalIrregularity, GoalResult, SearchResult
from ndrpdr.search.sofar import result_so_far
from ndrpdr.search.trial import Measurer, TrialReason, TrialResult

__all__ = [
    "ALGORITHMS",
    "Classification",
    "Criterion",
    "Goal",
    "GoalIrregularity",
    "GoalProgress",
    "GoalResult",
    "LoadStats",
    "Measurer",
    "MeasurerFailedError",
    "SearchAbortedError",
    "SearchError",
    "SearchInputError",
    "SearchIrregularError",
    "SearchProgress",
    "SearchResult",
    "SearchTimeLimitError",
    "TrialReason",
    "TrialResult",
    "classify",
    "result_so_far",
    "search",
]
