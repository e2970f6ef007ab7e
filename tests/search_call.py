"""``run_search`` called with one flat set of options, for tests that vary a few of them.

A test names the settings it varies (``min_load_pps=...``, ``finish=...``);
``search_call`` sorts each into the ``SearchRequest`` or the ``SearchHooks``
field of that name (``topology``, ``profile``, ``frame_size`` and ``directions``,
default 2, into the request's ``traffic``), so the typed call is made as the
library's callers make it.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ndrpdr.results.record import RecordTraffic
from ndrpdr.searchrun import SearchHooks, SearchRequest, SearchRun, run_search
from ndrpdr.trafficgen.base import TrafficGenerator

_TRAFFIC = frozenset(field.name for field in dataclasses.fields(RecordTraffic))
_REQUEST = frozenset(field.name for field in dataclasses.fields(SearchRequest))
_HOOKS = frozenset(field.name for field in dataclasses.fields(SearchHooks))


def split_options(**options: Any) -> tuple[SearchRequest, SearchHooks]:
    """The request and hooks ``options`` name; an unknown name is a TypeError naming it."""
    unknown = sorted(set(options) - _TRAFFIC - _REQUEST - _HOOKS)
    if unknown:
        raise TypeError(f"neither a SearchRequest nor a SearchHooks field: {', '.join(unknown)}")
    traffic = {name: value for name, value in options.items() if name in _TRAFFIC}
    request = {name: value for name, value in options.items() if name in _REQUEST}
    if "goals" in request:
        request["goals"] = tuple(request["goals"])
    hooks = {name: value for name, value in options.items() if name in _HOOKS}
    request["traffic"] = RecordTraffic(**{"directions": 2, **traffic})
    return SearchRequest(**request), SearchHooks(**hooks)


def search_call(tg: TrafficGenerator, **options: Any) -> SearchRun:
    """``run_search(tg, request, hooks)`` with the request and hooks ``options`` name."""
    request, hooks = split_options(**options)
    return run_search(tg, request, hooks)
