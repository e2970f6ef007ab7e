"""Latency after a search: trials at 0, 10, 50 and 90 % of the PDR lower bound.

CSIT's convention: once the search has found PDR, one latency trial per
load point (5 s each by default), latency streams at a low fixed rate per
direction beside background traffic at that share of PDR; 0 % is the
latency streams alone. ``measure_latency_points`` runs them on a TG with
``measure_latency`` (``ndrpdr.trafficgen.base.LatencyMeasurer``);
``LatencyRun.to_json`` is the result record's ``latency`` section. A TG
without latency, a search without a PDR lower bound, or latency turned
off give a run that says "not measured" and why: never zeros.

Used by ``ndrpdr.searchrun.run_search`` (so by the keywords and the CLI).
"""

from __future__ import annotations

import dataclasses
import enum
import logging
from collections.abc import Callable, Sequence
from typing import Any

from ndrpdr.errors import NdrPdrError
from ndrpdr.trafficgen.base import latency_measurer
from ndrpdr.trafficgen.latency import LatencyResult

_log = logging.getLogger(__name__)

#: The load points [% of the PDR lower bound], in the order they are measured.
LATENCY_POINTS_PCT: tuple[int, ...] = (0, 10, 50, 90)
#: Duration of one latency trial by default [s] (CSIT's 5 s).
DEFAULT_LATENCY_DURATION_S = 5.0


class LatencyStatus(enum.Enum):
    """Whether the latency was measured."""

    MEASURED = "measured"
    NOT_MEASURED = "not measured"
    FAILED = "failed"


@dataclasses.dataclass(frozen=True)
class LatencyPoint:
    """One load point: ``percent_of_pdr`` [%] of the PDR lower bound, ``load_pps`` aggregate."""

    percent_of_pdr: int
    load_pps: float
    result: LatencyResult

    def to_json(self) -> dict[str, Any]:
        """As a JSON object (the record's ``latency.points`` item)."""
        return {"percent_of_pdr": self.percent_of_pdr, **self.result.to_json()}


@dataclasses.dataclass(frozen=True)
class LatencyRun:
    """The latency trials after one search (or why there are none).

    ``reason`` says why the latency was not measured or what failed;
    ``pdr_pps`` is the PDR lower bound the points are shares of [pps];
    ``duration_s`` each trial's duration [s]; ``points`` what was measured
    (a failure keeps the points measured before it).
    """

    status: LatencyStatus
    reason: str | None = None
    pdr_pps: float | None = None
    duration_s: float | None = None
    points: tuple[LatencyPoint, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The result record's ``latency`` section."""
        return {
            "status": self.status.value,
            "reason": self.reason,
            "pdr_pps": self.pdr_pps,
            "duration_s": self.duration_s,
            "points_pct": list(LATENCY_POINTS_PCT),
            "points": [p.to_json() for p in self.points],
        }


def not_measured(reason: str) -> LatencyRun:
    """A run that says "not measured" and why."""
    return LatencyRun(LatencyStatus.NOT_MEASURED, reason)


def measure_latency_points(
    tg: object,
    *,
    pdr_pps: float | None,
    duration_s: float | None,
    tg_name: str = "the traffic generator",
    points_pct: Sequence[int] = LATENCY_POINTS_PCT,
    notice: Callable[[str], None] | None = None,
    progress: Callable[[LatencyPoint], None] | None = None,
) -> LatencyRun:
    """Latency trials at ``points_pct`` % of ``pdr_pps`` [pps], ``duration_s`` [s] each.

    ``duration_s`` None (or 0) turns latency off; ``pdr_pps`` None means
    the search found no PDR lower bound. ``tg_name`` names the TG in the
    reason a TG without latency gives. A TG failure (NdrPdrError) ends the
    run as failed, keeping the points measured so far; ``notice(text)``
    hears about it (else a logged warning). Anything else (Ctrl-C, a Robot
    timeout) propagates. ``progress(point)`` hears of each point measured.
    """
    if duration_s is None or duration_s <= 0:
        return not_measured("turned off")
    measurer = latency_measurer(tg)
    if measurer is None:
        return not_measured(f"{tg_name} cannot measure latency")
    if pdr_pps is None or pdr_pps <= 0:
        return not_measured("the search found no PDR lower bound")
    points: list[LatencyPoint] = []
    for percent in points_pct:
        load = pdr_pps * percent / 100.0
        try:
            result = measurer.measure_latency(duration_s, load)
        except NdrPdrError as exc:
            text = f"latency at {percent} % PDR ({load:.6g} pps): {exc}"
            if notice is not None:
                notice(text)
            else:
                _log.warning("%s", text)
            return LatencyRun(LatencyStatus.FAILED, text, pdr_pps, duration_s, tuple(points))
        if result is None:
            return not_measured(f"{tg_name} cannot measure latency here")
        points.append(LatencyPoint(percent, load, result))
        if progress is not None:
            progress(points[-1])
    return LatencyRun(LatencyStatus.MEASURED, None, pdr_pps, duration_s, tuple(points))
