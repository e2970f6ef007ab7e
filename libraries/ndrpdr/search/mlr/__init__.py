"""Our multiple-loss-ratio controller ("mlr"): its stages, rules, state and estimates.

``controller`` runs the search over every goal (its docstring tells the
design); ``strategy`` asks each stage's rules (``stage``, ``scout``) for a
trial in priority order; ``view`` and ``state`` answer the rules'
questions about the trials so far; ``hint`` estimates a goal's threshold
from loss points and ``knee`` fits where noisy trials pass half the time;
``track``, ``plan`` and ``names`` hold a goal's state, a nomination and the
names of stages, phases and rules.
"""

from ndrpdr.search.mlr.controller import MlrController

__all__ = ["MlrController"]
